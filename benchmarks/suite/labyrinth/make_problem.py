"""Writes labyrinth-opt23-adl problems (IPC 2023) from their content: grid size, the card at each
(x, y) in row order, the blocked sides per card, the seed line. Same facts in the same order as the
generator's files (blank lines dropped).
Usage: python make_problem.py SIZE ROTATIONS SEED 'card per cell, x fastest' 'card:SIDES ...' > out.pddl"""

import sys

size, rot, seed = int(sys.argv[1]), sys.argv[2], sys.argv[3]
cells, blocked = sys.argv[4].split(), [b.split(":") for b in sys.argv[5].split()]
P = [f"pos{i}" for i in range(size)]
L = [
    f";; Generated with seed: {seed}, size: {size}, num-rotations: {rot}",
    f"(define (problem labyrinth-size-{size}-rotations-{rot}-seed-{seed})",
    "(:domain labyrinth)",
    "(:objects",
    "\t" + " ".join(P) + "  - gridpos",
    "\t" + " ".join(f"card{i}" for i in range(size * size)) + "  - card",
    ")",
    "(:init",
    f"\t(MAX-POS pos{size - 1})",
    "\t(MIN-POS pos0)",
]
L += [f"\t(NEXT pos{i + 1} pos{i})" for i in range(size - 1)]
L += [f"\t(card-at card{c} pos{k % size} pos{k // size})" for k, c in enumerate(cells)]
for card, sides in blocked:
    L += [f"\t(BLOCKED card{card} {s})" for s in sides]
L += [
    "\t(robot-at card0)",
    "\t(= (total-cost) 0)",
    "\t(= (move-robot-cost) 1)",
    "\t(= (move-card) 1)",
    ")",
    "(:goal",
    "\t(and",
    "\t\t(left)",
    "\t)",
    ")",
    "\t(:metric minimize (total-cost))",
    ")",
]
print("\n".join(L))
