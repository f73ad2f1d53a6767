"""Writes slitherlink-opt23-adl/domain.pddl (IPC 2023), comments stripped: four link actions that
differ only in the degrees of the two nodes (link-0-0 also sets and checks disable-link-0-0)."""

L = [
    "(define (domain slitherlink)",
    "(:requirements :typing :adl)",
    "",
    "(:types",
    "    node - object",
    "    cell - object",
    "    cell-capacity-level - object",
    ")",
    "",
    "(:predicates",
    "    (CELL-CAPACITY-INC ?clower ?chigher - cell-capacity-level)",
    "    (CELL-CAPACITY ?c - cell ?cap - cell-capacity-level)",
    "    (CELL-EDGE ?c1 ?c2 - cell ?n1 ?n2 - node)",
    "    (node-degree0 ?n - node)",
    "    (node-degree1 ?n - node)",
    "    (node-degree2 ?n - node)",
    "    (linked ?n1 ?n2 - node)",
    "    (disable-link-0-0)",
    ")",
]
for d1, d2 in ((0, 0), (0, 1), (1, 0), (1, 1)):
    L += [
        "",
        f"(:action link-{d1}-{d2}",
        "    :parameters (?n1 - node ?n2 - node",
        "                 ?c1 - cell ?c1capfrom ?c1capto - cell-capacity-level",
        "                 ?c2 - cell ?c2capfrom ?c2capto - cell-capacity-level)",
        "    :precondition",
        "        (and",
        "            (not (linked ?n1 ?n2))",
        f"            (node-degree{d1} ?n1)",
        f"            (node-degree{d2} ?n2)",
        "            (CELL-EDGE ?c1 ?c2 ?n1 ?n2)",
        "            (CELL-CAPACITY ?c1 ?c1capfrom)",
        "            (CELL-CAPACITY ?c2 ?c2capfrom)",
        "            (CELL-CAPACITY-INC ?c1capto ?c1capfrom)",
        "            (CELL-CAPACITY-INC ?c2capto ?c2capfrom)",
    ]
    if (d1, d2) == (0, 0):
        L.append("            (not (disable-link-0-0))")
    L += [
        "        )",
        "    :effect",
        "        (and",
        "            (linked ?n1 ?n2)",
        "",
        f"            (not (node-degree{d1} ?n1))",
        f"            (node-degree{d1 + 1} ?n1)",
        "",
        f"            (not (node-degree{d2} ?n2))",
        f"            (node-degree{d2 + 1} ?n2)",
        "",
        "            (not (CELL-CAPACITY ?c1 ?c1capfrom))",
        "            (CELL-CAPACITY ?c1 ?c1capto)",
        "",
        "            (not (CELL-CAPACITY ?c2 ?c2capfrom))",
        "            (CELL-CAPACITY ?c2 ?c2capto)",
    ]
    if (d1, d2) == (0, 0):
        L += ["", "            (disable-link-0-0)"]
    L += ["        )", ")"]
L.append(")")
print("\n".join(L))
