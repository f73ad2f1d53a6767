"""Small test tasks: a real problem whose init and goal are moved by seeded random walks.

The walks use the oracle (unified-planning's simulator), so the states are ones the task can
really be in, and the goals are often but not always reachable (a second walk from a different
state picks them)."""

from __future__ import annotations

import random
import re

from tests.support.oracle import Oracle


def _objects_section(problem_text: str) -> str:
    m = re.search(r"\(:objects(.*?)\)\s*\(:init", problem_text, re.S | re.I)
    return m.group(1) if m else ""


def walk(oracle: Oracle, atoms, steps: int, rng: random.Random):
    s = frozenset(atoms)
    for _ in range(steps):
        moves = sorted(oracle.moves(oracle.state(s)), key=lambda m: m[0])
        if not moves:
            break
        s = oracle.atoms(rng.choice(moves)[1])
    return s


def random_task(domain_text: str, problem_text: str, seed: int) -> tuple[str, str]:
    """(problem text, description): init and goal drawn by random walks from the problem's init."""
    rng = random.Random(seed)
    base = Oracle(domain_text, problem_text)
    init = walk(base, base.init_atoms(), rng.randint(0, 12), rng)
    # goal atoms come from a walk out of the original init or the new one: often reachable, not always
    source = walk(base, init if rng.random() < 0.7 else base.init_atoms(), rng.randint(1, 15), rng)
    fluent_changed = sorted(source - init) or sorted(source)
    goal = rng.sample(fluent_changed, min(len(fluent_changed), rng.randint(1, 3)))
    if rng.random() < 0.2:
        goal.append(f"(not {rng.choice(sorted(init))})")
    m = re.search(r"\(\s*define\s*\(\s*problem\s+\S+\)\s*\(:domain\s+([^\s)]+)\)", problem_text, re.I)
    text = (
        f"(define (problem walk-{seed}) (:domain {m.group(1)})\n (:objects {_objects_section(problem_text)})\n"
        f" (:init {' '.join(sorted(init - base.derived))})\n (:goal (and {' '.join(goal)})))\n"
    )
    return text
