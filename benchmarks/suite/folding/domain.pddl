;; folding-sat23-adl/domain.pddl (IPC 2023), header comment shortened
(define (domain folding)
(:requirements :adl :action-costs)
(:types
    node - object
    coord - object
    direction - object
    rotation - object
)
(:constants
    left right up down - direction
    clockwise counterclockwise - rotation
)
(:predicates
    (NEXT-DIRECTION ?dfrom - direction ?r - rotation ?d2to - direction)
    (COORD-INC ?c ?cnext - coord)
    (END-NODE ?n - node)
    (CONNECTED ?n1 ?n2 - node)
    (at ?n - node ?x ?y - coord)
    (heading ?n - node ?dir - direction)
    (free ?x ?y - coord)
    (rotating)
    (node-first-pass-next ?nstart - node ?r - rotation ?n - node)
    (node-second-pass-next ?n - node)
)
(:functions
    (total-cost) - number
    (rotate-cost) - number
    (update-cost) - number
)
(:action rotate
    :parameters (?n - node ?r - rotation ?fromdir ?todir - direction)
    :precondition
        (and
            (not (rotating))
            (NEXT-DIRECTION ?fromdir ?r ?todir)
            (heading ?n ?fromdir)
        )
    :effect
        (and
            (not (heading ?n ?fromdir))
            (heading ?n ?todir)
            (rotating)
            (node-first-pass-next ?n ?r ?n)
            (increase (total-cost) (rotate-cost))
        )
)
(:action rotate-first-pass
    :parameters (?nstart - node ?r - rotation
                 ?n1 - node
                 ?n2 - node ?n2x ?n2y - coord ?n2dir ?n2setdir - direction)
    :precondition
        (and
            (CONNECTED ?n1 ?n2)
            (NEXT-DIRECTION ?n2dir ?r ?n2setdir)
            (node-first-pass-next ?nstart ?r ?n1)
            (at ?n2 ?n2x ?n2y)
            (heading ?n2 ?n2dir)
        )
    :effect
        (and
            (not (node-first-pass-next ?nstart ?r ?n1))
            (node-first-pass-next ?nstart ?r ?n2)
            (not (at ?n2 ?n2x ?n2y))
            (free ?n2x ?n2y)
            (not (heading ?n2 ?n2dir))
            (heading ?n2 ?n2setdir)
            (increase (total-cost) (update-cost))
        )
)
(:action rotate-first-pass-end
    :parameters (?nstart - node ?r - rotation
                 ?n1 - node
                 ?n2 - node ?n2x ?n2y - coord)
    :precondition
        (and
            (END-NODE ?n2)
            (CONNECTED ?n1 ?n2)
            (node-first-pass-next ?nstart ?r ?n1)
            (at ?n2 ?n2x ?n2y)
        )
    :effect
        (and
            (not (at ?n2 ?n2x ?n2y))
            (free ?n2x ?n2y)
            (not (node-first-pass-next ?nstart ?r ?n1))
            (node-second-pass-next ?nstart)
            (increase (total-cost) (update-cost))
        )
)
(:action rotate-second-pass
    :parameters (?n1 - node ?n1x ?n1y - coord ?n1dir - direction
                 ?n2 - node ?n2x ?n2y - coord)
    :precondition
        (and
            (CONNECTED ?n1 ?n2)
            (node-second-pass-next ?n1)
            (at ?n1 ?n1x ?n1y)
            (heading ?n1 ?n1dir)
            (free ?n2x ?n2y)
            (or
                (and (= ?n1dir up)
                     (= ?n1x ?n2x)
                     (COORD-INC ?n1y ?n2y)
                )
                (and (= ?n1dir down)
                     (= ?n1x ?n2x)
                     (COORD-INC ?n2y ?n1y)
                )
                (and (= ?n1dir left)
                     (= ?n1y ?n2y)
                     (COORD-INC ?n2x ?n1x)
                )
                (and (= ?n1dir right)
                     (= ?n1y ?n2y)
                     (COORD-INC ?n1x ?n2x)
                )
            )
        )
    :effect
        (and
            (not (node-second-pass-next ?n1))
            (node-second-pass-next ?n2)
            (not (free ?n2x ?n2y))
            (at ?n2 ?n2x ?n2y)
            (increase (total-cost) (update-cost))
        )
)
(:action rotate-second-pass-end
    :parameters (?n - node)
    :precondition
        (and
            (END-NODE ?n)
            (node-second-pass-next ?n)
        )
    :effect
        (and
            (not (node-second-pass-next ?n))
            (not (rotating))
            (increase (total-cost) (update-cost))
        )
)
)
