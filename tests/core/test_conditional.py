"""Conditional effects compiled away (acptools/conditional.py) keep every transition: in states
reached by random walks, each action's successors under the plain variants are exactly its
successors under the original operators (applied by `GroundedTask.apply_op`)."""

import random
from pathlib import Path

import pytest

from acptools import load_task
from acptools.ground import conditional
from tests.support.data import pddl_texts

SUITE = Path(__file__).resolve().parents[2] / "benchmarks" / "suite"


def _task(name: str):
    if "/" in name:
        domain, size = name.split("/")
        return load_task(SUITE / domain / "domain.pddl", SUITE / domain / f"{size}.pddl")
    return load_task(*pddl_texts(name))


def _applies(op, state: int) -> bool:
    return state & op.pre == op.pre and not state & op.neg


def _walk_states(task, n: int, seed: int) -> list[int]:
    rng, out = random.Random(seed), []
    for _ in range(n):
        s = task.init
        for _ in range(rng.randrange(0, 12)):
            ops = [op for op in task.operators if _applies(op, s)]
            if not ops:
                break
            s = task.apply_op(rng.choice(ops), s)
        out.append(s)
    return out


def _moves(ops, state: int, apply) -> set[tuple[int, int]]:
    return {(op.action, apply(op, state)) for op in ops if _applies(op, state)}


@pytest.mark.parametrize(
    "name", ["switches", "briefcase", "briefcaseworld/small", "miconic-fulladl/small", "assembly/small"]
)
def test_compiled_operators_have_the_same_transitions(name):
    task = _task(name)
    assert any(op.conds for op in task.operators)
    compiled = conditional.compile_away(task.operators)
    assert compiled is not None
    plain, source = compiled
    assert not any(op.conds for op in plain) and len(source) == len(plain)
    assert all(plain[j].action == task.operators[i].action for j, i in enumerate(source))
    for s in _walk_states(task, 25, seed=len(name)):
        assert _moves(plain, s, task.apply_op) == _moves(task.operators, s, task.apply_op)


def test_too_many_variants_keep_the_conditional_effects(monkeypatch):
    task = _task("switches")
    monkeypatch.setattr(conditional, "MAX_VARIANTS", 1)
    assert conditional.compile_away(task.operators) is None
