"""The plan searches that cover a list question: a batch (a conjunction of many wanted items, for one
plan that shows them all) only ever shows items; Fast Downward finding no plan for a batch proves
nothing about each item. Only its exhausting the disjunction of all of them is a proof. On
tests/pddl/three-places (two tokens, three places) a check of x and z and a check of y and z are each
reachable, but both need all three places occupied at once, which h^2's pairs do not rule out."""

from __future__ import annotations

from pathlib import Path

import pytest

from acptools import Budget, load_task
from acptools.questions import reach

HERE = Path(__file__).parent.parent / "pddl" / "three-places"
CHECKS = ["(check x z)", "(check y z)"]


@pytest.fixture(scope="module")
def task():
    return load_task(HERE / "domain.pddl", HERE / "problem.pddl")


def test_the_batch_of_both_checks_is_unreachable_yet_compatible_for_h2(task):
    """The premise, so that the test below can fail: h^2 lets the two checks into one batch, and that
    batch (all three places occupied) has no plan."""
    engine = task.questions.engine
    state = task.grounded.init
    pairs = engine.h2(state, Budget(30))
    actions = {engine.task.action_index[n] for n in CHECKS}
    pos, neg = reach._compatible_batch(engine, pairs, 0, actions)
    assert all(op.pre & ~pos == 0 for a in actions for op in engine.task.ops_of_action[a])
    assert not task.questions.is_reachable(engine.task.names(pos), budget=30).answer


def test_a_batch_without_a_plan_proves_no_item_unreachable(task, monkeypatch):
    """With the long walk turned off, the plan searches alone must show both checks reachable."""
    monkeypatch.setattr(reach, "LONG_WALK_STEPS", 1)
    engine = task.questions.engine
    state = task.grounded.init
    pairs = engine.h2(state, Budget(30))
    actions = {engine.task.action_index[n] for n in CHECKS}
    atoms, left, exhausted = reach._cover(engine, state, 0, set(actions), Budget(60), pairs)
    assert (atoms, left, exhausted) == (0, set(), False)
