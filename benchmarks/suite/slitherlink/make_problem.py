"""Writes slitherlink-opt23-adl problems from their clue grid (rows of digits and dots, as in the
files' header comment), in the generator's fact order (derived from p01).
Usage: python make_problem.py NAME 'row row ...' > out.pddl"""

import sys

name, rows = sys.argv[1], sys.argv[2].split()
R, C = len(rows), len(rows[0])
cells = [f"cell-{i}-{j}" for i in range(R) for j in range(C)]
outs = []
for i in range(R):
    outs += [f"cell-outside-{i}-left", f"cell-outside-{i}-right"]
for j in range(C):
    outs += [f"cell-outside-{j}-up", f"cell-outside-{j}-down"]
nodes = [f"n-{i}-{j}" for i in range(R + 1) for j in range(C + 1)]
L = [
    f"(define (problem {name})",
    "(:domain slitherlink)",
    "",
    "(:objects",
    "    cap-0 cap-1 cap-2 cap-3 cap-4 - cell-capacity-level",
    "    " + " ".join(nodes) + " - node",
    "    " + " ".join(cells + outs) + " - cell",
    ")",
    "",
    "(:init",
]
L += [f"    (CELL-CAPACITY-INC cap-{k} cap-{k + 1})" for k in range(4)] + [""]
L += [f"    (CELL-CAPACITY {o} cap-1)" for o in outs]
L += [
    f"    (CELL-CAPACITY cell-{i}-{j} cap-{4 if rows[i][j] == '.' else rows[i][j]})" for i in range(R) for j in range(C)
]
L += [""] + [f"    (node-degree0 {n})" for n in nodes] + [""]
for i in range(R - 1):
    for j in range(C):
        L.append(f"    (CELL-EDGE cell-{i}-{j} cell-{i + 1}-{j} n-{i + 1}-{j} n-{i + 1}-{j + 1})")
for j in range(C):
    L.append(f"    (CELL-EDGE cell-outside-{j}-up cell-0-{j} n-0-{j} n-0-{j + 1})")
    L.append(f"    (CELL-EDGE cell-{R - 1}-{j} cell-outside-{j}-down n-{R}-{j} n-{R}-{j + 1})")
for j in range(C - 1):
    for i in range(R):
        L.append(f"    (CELL-EDGE cell-{i}-{j} cell-{i}-{j + 1} n-{i}-{j + 1} n-{i + 1}-{j + 1})")
for i in range(R):
    L.append(f"    (CELL-EDGE cell-outside-{i}-left cell-{i}-0 n-{i}-0 n-{i + 1}-0)")
    L.append(f"    (CELL-EDGE cell-{i}-{C - 1} cell-outside-{i}-right n-{i}-{C} n-{i + 1}-{C})")
L += ["", "    ", ")", "(:goal", "    (and"] + [f"        (not (node-degree1 {n}))" for n in nodes] + [""]
L += [f"        (CELL-CAPACITY cell-{i}-{j} cap-0)" for i in range(R) for j in range(C) if rows[i][j] != "."]
L += ["    )", ")", ")"]
print("\n".join(L))
