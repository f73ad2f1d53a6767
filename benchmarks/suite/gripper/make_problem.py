"""Writes the IPC-1998 gripper instance strips-gripper-x-N (2N+2 balls, rooms rooma/roomb, grippers
left/right): the family is fully determined by N. Usage: python make_problem.py N > out.pddl"""

import sys

n = int(sys.argv[1])
balls = [f"ball{i}" for i in range(2 * n + 2, 0, -1)]
L = [
    f"(define (problem strips-gripper-x-{n})",
    "   (:domain gripper-strips)",
    "   (:objects rooma roomb " + " ".join(balls) + " left right)",
    "   (:init (room rooma)",
    "          (room roomb)",
]
L += [f"          (ball {b})" for b in balls]
L += ["          (at-robby rooma)", "          (free left)", "          (free right)"]
L += [f"          (at {b} rooma)" for b in balls]
L += [
    "          (gripper left)",
    "          (gripper right))",
    "   (:goal (and " + "\n               ".join(f"(at {b} roomb)" for b in balls) + ")))",
]
print("\n".join(L))
