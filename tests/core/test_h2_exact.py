"""acptools' h^2 (engine/h2.py: rows of the added atoms, then a symmetric completion per sweep) gives
exactly the pairs of a textbook h^2 fixpoint over sets of atom pairs, written here without bitsets:
from the initial state and from random-walk states, on plain operators and on the complement
compilation of negative preconditions (literal_h2.py), on STRIPS and ADL tasks."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from acptools import load_task
from acptools.engine import h2
from acptools.engine.literal_h2 import LiteralH2
from tests.support.data import PDDL, ROOT

SUITE = ROOT / "benchmarks" / "suite"
TASKS = {
    "ferry": ROOT / "acptools" / "examples" / "ferry",
    "blocksworld-4ops": ROOT / "acptools" / "examples" / "blocksworld-4ops",
    "grid-visit-all": ROOT / "acptools" / "examples" / "grid-visit-all",
    "schedule": PDDL / "schedule",
    "switches": PDDL / "switches",
    "briefcase": PDDL / "briefcase",
}


def _atoms(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def reference_pairs(num_atoms: int, operators, state: int) -> set[frozenset[int]]:
    """Reachable atom sets of size 1 and 2: an operator applies when its preconditions are pairwise
    reachable; it then reaches its adds pairwise, and each add with every atom reachable beside all
    its preconditions that it does not surely delete (conditional adds always, conditional deletes
    only "if p, delete p")."""
    facts = _atoms(state)
    pairs = {frozenset((p, q)) for p in facts for q in facts}
    ops = []
    for op in operators:
        adds = set(_atoms(op.add))
        for _, _, ca, _ in op.conds:
            adds |= set(_atoms(ca))
        deletes = set(_atoms(op.dele))
        for cp, cn, ca, cd in op.conds:
            if not cn and len(_atoms(cp)) == 1 and cp & cd and not cp & ca:
                deletes |= set(_atoms(cp))
        ops.append((_atoms(op.pre), adds, deletes - adds))
    changed = True
    while changed:
        changed = False
        reached = {p for pair in pairs if len(pair) == 1 for p in pair}
        for pre, adds, deletes in ops:
            if any(frozenset((p, q)) not in pairs for p in pre for q in pre):
                continue
            beside = {q for q in reached if all(frozenset((p, q)) in pairs for p in pre)} - deletes
            for a in adds:
                for q in adds | beside:
                    pair = frozenset((a, q))
                    if pair not in pairs:
                        pairs.add(pair)
                        changed = True
    return pairs


def _as_sets(rows: list[int]) -> set[frozenset[int]]:
    return {frozenset((p, q)) for p, row in enumerate(rows) for q in _atoms(row)}


def _load(name: str):
    if "/" in name:
        domain, size = name.split("/")
        return load_task(SUITE / domain / "domain.pddl", SUITE / domain / f"{size}.pddl")
    folder = Path(TASKS[name])
    return load_task(folder / "domain.pddl", folder / "problem.pddl")


def _states(task, n: int, seed: int) -> list[int]:
    rng, out = random.Random(seed), [task.init]
    for _ in range(n):
        s = task.init
        for _ in range(rng.randrange(1, 15)):
            ops = task.applicable_ops(s)
            if not ops:
                break
            s = task.apply_op(rng.choice(ops), s)
        out.append(s)
    return out


@pytest.mark.parametrize("name", sorted(TASKS) + ["gripper/small", "logistics/small", "miconic-fulladl/small"])
def test_h2_pairs_equal_the_textbook_fixpoint(name):
    task = _load(name)
    ops = task.questions.engine.operators
    literals = LiteralH2(len(task.atoms), ops)
    for s in _states(task, 3, seed=len(name)):
        rows = h2.h2_pairs(len(task.atoms), ops, s)
        assert _as_sets(rows) == reference_pairs(len(task.atoms), ops, s)
        lifted = s | literals.complement(literals.negated & ~s)
        size = len(task.atoms) + len(literals.index)
        assert _as_sets(literals.pairs(s)) == reference_pairs(size, literals.operators, lifted)


def test_symmetric_completion_works_slice_by_slice(monkeypatch):
    """Slices of a few rows (as on tasks with many thousand atoms) give the same pairs as one slice."""
    task = _load("logistics/small")
    ops = task.questions.engine.operators
    whole = h2.h2_pairs(len(task.atoms), ops, task.init)
    monkeypatch.setattr(h2, "BLOCK", 7)
    assert h2.h2_pairs(len(task.atoms), ops, task.init) == whole
