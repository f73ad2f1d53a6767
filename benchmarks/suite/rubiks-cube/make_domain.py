"""Writes rubiks-cube-opt23-adl/domain.pddl (IPC 2023, 12-action variant) from its rule table: every
action moves 4 corner cubies (cubeA ?x ?y ?z) -> (cubeB <permuted args>) and 4 edge cubies, each as
(forall (vars) (when (old ...) (and (not (old ...)) (new ...)))), in the source's order."""

EDGE = {
    "12": "?y ?z",
    "13": "?x ?z",
    "15": "?x ?y",
    "26": "?x ?y",
    "24": "?x ?z",
    "48": "?x ?y",
    "34": "?y ?z",
    "37": "?x ?y",
    "56": "?y ?z",
    "57": "?x ?z",
    "68": "?x ?z",
    "78": "?y ?z",
}
PERM = {"yxz": "?y ?x ?z", "xzy": "?x ?z ?y", "zyx": "?z ?y ?x"}
# action: (cube cycle as (from, to) pairs, permutation, edge (from, to) pairs, swap edge args?)
ACTIONS = [
    ("R", [(5, 7), (7, 8), (8, 6), (6, 5)], "yxz", [("57", "78"), ("78", "68"), ("68", "56"), ("56", "57")], False),
    ("Rrev", [(5, 6), (6, 8), (8, 7), (7, 5)], "yxz", [("57", "56"), ("78", "57"), ("68", "78"), ("56", "68")], False),
    ("L", [(1, 2), (3, 1), (4, 3), (2, 4)], "yxz", [("13", "12"), ("34", "13"), ("24", "34"), ("12", "24")], False),
    ("Lrev", [(1, 3), (3, 4), (4, 2), (2, 1)], "yxz", [("13", "34"), ("34", "24"), ("24", "12"), ("12", "13")], False),
    ("D", [(2, 6), (6, 8), (8, 4), (4, 2)], "xzy", [("26", "68"), ("68", "48"), ("48", "24"), ("24", "26")], False),
    ("Drev", [(2, 4), (4, 8), (8, 6), (6, 2)], "xzy", [("26", "24"), ("68", "26"), ("48", "68"), ("24", "48")], False),
    ("U", [(1, 3), (5, 1), (7, 5), (3, 7)], "xzy", [("15", "13"), ("57", "15"), ("37", "57"), ("13", "37")], False),
    ("Urev", [(1, 5), (5, 7), (7, 3), (3, 1)], "xzy", [("15", "57"), ("57", "37"), ("37", "13"), ("13", "15")], False),
    ("F", [(1, 5), (5, 6), (6, 2), (2, 1)], "zyx", [("15", "56"), ("56", "26"), ("26", "12"), ("12", "15")], True),
    ("Frev", [(1, 2), (2, 6), (6, 5), (5, 1)], "zyx", [("15", "12"), ("56", "15"), ("26", "56"), ("12", "26")], True),
    ("B", [(3, 4), (7, 3), (8, 7), (4, 8)], "zyx", [("37", "34"), ("78", "37"), ("48", "78"), ("34", "48")], True),
    ("Brev", [(3, 7), (7, 8), (8, 4), (4, 3)], "zyx", [("37", "78"), ("78", "48"), ("48", "34"), ("34", "37")], True),
]
L = [";; 12-action variant", "(define", "    (domain rubiks-cube)", "    (:requirements :adl)", "    (:predicates"]
L += [f"        (cube{i} ?x ?y ?z)" for i in range(1, 9)]
L += [f"        (edge{e} {v})" for e, v in EDGE.items()]
L += ["    )"]
for name, cubes, perm, edges, swap in ACTIONS:
    L += ["", f"    (:action {name}", "     :parameters ()", "     :precondition (and)", "     :effect", "        (and"]
    for a, b in cubes:
        L.append(
            f"            (forall (?x ?y ?z) (when (cube{a} ?x ?y ?z) (and (not (cube{a} ?x ?y ?z)) (cube{b} {PERM[perm]}))))"
        )
    L.append("")
    for a, b in edges:
        v = EDGE[a]
        out = " ".join(reversed(v.split())) if swap else v
        L.append(f"            (forall ({v}) (when (edge{a} {v}) (and (not (edge{a} {v})) (edge{b} {out}))))")
    L += ["        )", "    )"]
L.append(")")
print("\n".join(L))
