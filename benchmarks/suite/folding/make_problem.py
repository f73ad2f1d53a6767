"""Writes folding-opt23-adl problems from their content (the IPC 2023 files list every grid cell not
occupied as (free x y) in row-major order; only the string's cells, headings and goal differ).
Usage: python make_problem.py NAME N_NODES GRID 'x,y x,y ...' 'dir dir ...' 'goal x,y ...' > out.pddl"""

import sys

name, n, grid, at, heads, goal = (
    sys.argv[1],
    int(sys.argv[2]),
    int(sys.argv[3]),
    sys.argv[4].split(),
    sys.argv[5].split(),
    sys.argv[6].split(),
)
at = [tuple(map(int, c.split(","))) for c in at]
goal = [tuple(map(int, c.split(","))) for c in goal]
L = [
    f"(define (problem {name})",
    "(:domain folding)",
    "",
    "(:objects",
    "    " + " ".join(f"n{i}" for i in range(1, n + 1)) + " - node",
    "    " + " ".join(f"c{i}" for i in range(1, grid + 1)) + " - coord",
    ")",
    "(:init",
]
for a, r, b in [
    ("up", "clockwise", "right"),
    ("up", "counterclockwise", "left"),
    ("down", "clockwise", "left"),
    ("down", "counterclockwise", "right"),
    ("left", "clockwise", "up"),
    ("left", "counterclockwise", "down"),
    ("right", "clockwise", "down"),
    ("right", "counterclockwise", "up"),
]:
    L.append(f"    (NEXT-DIRECTION {a} {r} {b})")
L.append("")
L += [f"    (COORD-INC c{i} c{i + 1})" for i in range(1, grid)]
L.append("")
L += [f"    (CONNECTED n{i} n{i + 1})" for i in range(1, n)]
L += [f"    (END-NODE n{n})", ""]
L += [f"    (at n{i + 1} c{x} c{y})" for i, (x, y) in enumerate(at)]
L += [f"    (heading n{i + 1} {d})" for i, d in enumerate(heads)]
occ = set(at)
L += [f"    (free c{x} c{y})" for x in range(1, grid + 1) for y in range(1, grid + 1) if (x, y) not in occ]
L += ["", "    (= (total-cost) 0)", "    (= (rotate-cost) 1)", "    (= (update-cost) 0)", ")", "(:goal", "    (and"]
L += [f"        (at n{i + 1} c{x} c{y})" for i, (x, y) in enumerate(goal)]
L += ["        (not (rotating))", "    )", ")", "(:metric minimize (total-cost))", ")"]
print("\n".join(L))
