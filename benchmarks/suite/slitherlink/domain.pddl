(define (domain slitherlink)
(:requirements :typing :adl)

(:types
    node - object
    cell - object
    cell-capacity-level - object
)

(:predicates
    (CELL-CAPACITY-INC ?clower ?chigher - cell-capacity-level)
    (CELL-CAPACITY ?c - cell ?cap - cell-capacity-level)
    (CELL-EDGE ?c1 ?c2 - cell ?n1 ?n2 - node)
    (node-degree0 ?n - node)
    (node-degree1 ?n - node)
    (node-degree2 ?n - node)
    (linked ?n1 ?n2 - node)
    (disable-link-0-0)
)

(:action link-0-0
    :parameters (?n1 - node ?n2 - node
                 ?c1 - cell ?c1capfrom ?c1capto - cell-capacity-level
                 ?c2 - cell ?c2capfrom ?c2capto - cell-capacity-level)
    :precondition
        (and
            (not (linked ?n1 ?n2))
            (node-degree0 ?n1)
            (node-degree0 ?n2)
            (CELL-EDGE ?c1 ?c2 ?n1 ?n2)
            (CELL-CAPACITY ?c1 ?c1capfrom)
            (CELL-CAPACITY ?c2 ?c2capfrom)
            (CELL-CAPACITY-INC ?c1capto ?c1capfrom)
            (CELL-CAPACITY-INC ?c2capto ?c2capfrom)
            (not (disable-link-0-0))
        )
    :effect
        (and
            (linked ?n1 ?n2)

            (not (node-degree0 ?n1))
            (node-degree1 ?n1)

            (not (node-degree0 ?n2))
            (node-degree1 ?n2)

            (not (CELL-CAPACITY ?c1 ?c1capfrom))
            (CELL-CAPACITY ?c1 ?c1capto)

            (not (CELL-CAPACITY ?c2 ?c2capfrom))
            (CELL-CAPACITY ?c2 ?c2capto)

            (disable-link-0-0)
        )
)

(:action link-0-1
    :parameters (?n1 - node ?n2 - node
                 ?c1 - cell ?c1capfrom ?c1capto - cell-capacity-level
                 ?c2 - cell ?c2capfrom ?c2capto - cell-capacity-level)
    :precondition
        (and
            (not (linked ?n1 ?n2))
            (node-degree0 ?n1)
            (node-degree1 ?n2)
            (CELL-EDGE ?c1 ?c2 ?n1 ?n2)
            (CELL-CAPACITY ?c1 ?c1capfrom)
            (CELL-CAPACITY ?c2 ?c2capfrom)
            (CELL-CAPACITY-INC ?c1capto ?c1capfrom)
            (CELL-CAPACITY-INC ?c2capto ?c2capfrom)
        )
    :effect
        (and
            (linked ?n1 ?n2)

            (not (node-degree0 ?n1))
            (node-degree1 ?n1)

            (not (node-degree1 ?n2))
            (node-degree2 ?n2)

            (not (CELL-CAPACITY ?c1 ?c1capfrom))
            (CELL-CAPACITY ?c1 ?c1capto)

            (not (CELL-CAPACITY ?c2 ?c2capfrom))
            (CELL-CAPACITY ?c2 ?c2capto)
        )
)

(:action link-1-0
    :parameters (?n1 - node ?n2 - node
                 ?c1 - cell ?c1capfrom ?c1capto - cell-capacity-level
                 ?c2 - cell ?c2capfrom ?c2capto - cell-capacity-level)
    :precondition
        (and
            (not (linked ?n1 ?n2))
            (node-degree1 ?n1)
            (node-degree0 ?n2)
            (CELL-EDGE ?c1 ?c2 ?n1 ?n2)
            (CELL-CAPACITY ?c1 ?c1capfrom)
            (CELL-CAPACITY ?c2 ?c2capfrom)
            (CELL-CAPACITY-INC ?c1capto ?c1capfrom)
            (CELL-CAPACITY-INC ?c2capto ?c2capfrom)
        )
    :effect
        (and
            (linked ?n1 ?n2)

            (not (node-degree1 ?n1))
            (node-degree2 ?n1)

            (not (node-degree0 ?n2))
            (node-degree1 ?n2)

            (not (CELL-CAPACITY ?c1 ?c1capfrom))
            (CELL-CAPACITY ?c1 ?c1capto)

            (not (CELL-CAPACITY ?c2 ?c2capfrom))
            (CELL-CAPACITY ?c2 ?c2capto)
        )
)

(:action link-1-1
    :parameters (?n1 - node ?n2 - node
                 ?c1 - cell ?c1capfrom ?c1capto - cell-capacity-level
                 ?c2 - cell ?c2capfrom ?c2capto - cell-capacity-level)
    :precondition
        (and
            (not (linked ?n1 ?n2))
            (node-degree1 ?n1)
            (node-degree1 ?n2)
            (CELL-EDGE ?c1 ?c2 ?n1 ?n2)
            (CELL-CAPACITY ?c1 ?c1capfrom)
            (CELL-CAPACITY ?c2 ?c2capfrom)
            (CELL-CAPACITY-INC ?c1capto ?c1capfrom)
            (CELL-CAPACITY-INC ?c2capto ?c2capfrom)
        )
    :effect
        (and
            (linked ?n1 ?n2)

            (not (node-degree1 ?n1))
            (node-degree2 ?n1)

            (not (node-degree1 ?n2))
            (node-degree2 ?n2)

            (not (CELL-CAPACITY ?c1 ?c1capfrom))
            (CELL-CAPACITY ?c1 ?c1capto)

            (not (CELL-CAPACITY ?c2 ?c2capfrom))
            (CELL-CAPACITY ?c2 ?c2capto)
        )
)
)
