"""The library's eight questions on a task with more than 20,000 ground atoms and 50,000 ground
actions, with Python's int-to-text limit at its lowest (tests/support/big_tasks.py): every question
answers (unknown with proven bounds is an answer, an exception is not), every answer that can be
checked cheaply is checked against pyperplan, every witness is replayed by it, and every object the
questions leave behind that holds a state writes a bounded repr."""

from __future__ import annotations

import gc

import pytest

from acptools import load_task
from acptools.engine.hstar_table import HStarTable
from acptools.engine.optimal import NextActions
from acptools.ground.grounding import Operator
from tests.support.big_tasks import (
    MIN_ACTIONS,
    MIN_ATOMS,
    NEAR,
    acpbench_records,
    applicable,
    big_ferry,
    first_inapplicable,
    low_digit_limit,
    near_goal,
    reaches_goal,
)

BUDGET = 1.0  # seconds per question: most answers are bounds at this size, which is the point


@pytest.fixture(scope="module")
def big():
    """The big task, loaded once, with the low int-to-text limit for the whole module."""
    with low_digit_limit():
        domain, problem, plan = big_ferry()
        yield load_task(domain, problem), list(plan)


def test_the_task_is_at_the_sizes_users_bring_and_its_states_cannot_be_written(big):
    task, plan = big
    assert len(task.atom_names) > MIN_ATOMS and len(task.operators) > MIN_ACTIONS
    with pytest.raises(ValueError, match="integer string conversion"):
        str(task.init)  # so a state written as text anywhere below fails the test that reaches it
    assert task.questions.validate(plan).goal_reached and reaches_goal(plan, task.names(task.init))


def test_app_prog_val_just_agree_with_pyperplan(big):
    task, _ = big
    q = task.questions
    atoms, rest = near_goal()
    assert sorted(q.applicable(atoms)) == applicable(atoms)
    p = q.progress(rest[0], atoms)
    after = set(atoms) - set(p.negative_effects) | set(p.positive_effects)
    assert p.applicable and reaches_goal(rest[1:], sorted(after))
    records = {r["group"]: r for r in acpbench_records()}
    sequence = records["validation_gen"]["question"].split('"')[1].split(") ")
    sequence = [a if a.endswith(")") else a + ")" for a in sequence]
    assert q.validate(sequence, atoms).first_inapplicable == first_inapplicable(sequence, atoms)
    detour = [
        a if a.endswith(")") else a + ")"
        for a in records["action_justification_gen"]["question"].split('"')[1].split(") ")
    ]
    removals = q.simplify(detour, atoms, budget=BUDGET)
    assert removals, "the detour sails out and back: that pair is removable"
    for r in removals:
        assert reaches_goal(r.plan, atoms), r


def test_reach_areach_land_answer_with_proofs_or_bounds(big):
    task, _ = big
    q = task.questions
    atoms, rest = near_goal()
    target = rest[0].strip("()").split()[2]
    v = q.is_reachable(f"(at-ferry {target})", atoms, budget=BUDGET)
    assert v.answer in (True, None)
    if v.witness is not None:
        assert reaches_goal_or_holds(v.witness, atoms, f"(at-ferry {target})")
    for listed in (q.unreachable_atoms(atoms, budget=BUDGET), q.landmarks(atoms, budget=BUDGET)):
        assert listed.complete or listed.unknown or listed.items  # a list that ran out says what is left
    lost = q.unreachable_actions(atoms, budget=BUDGET)
    here = rest[0].strip("()").split()[1]
    assert f"(sail {here} {here})" in lost.names + lost.unknown  # pyperplan grounds no such action
    assert q.is_action_reachable(f"(sail {here} {here})", atoms, budget=BUDGET).answer is False
    land = q.is_landmark(f"(at-ferry {target})", atoms, budget=BUDGET)  # the last car's goal is there
    assert land.answer in (True, None) and land.witness is None


def reaches_goal_or_holds(plan: list[str], atoms: list[str], atom: str) -> bool:
    """Whether `plan` applies from the state and ends where `atom` holds (pyperplan)."""
    from tests.support import simulator
    from tests.support.big_tasks import statics

    domain, problem, _ = big_ferry()
    states = simulator.trajectory(domain, problem, plan, frozenset(atoms) | statics())
    return states is not None and atom in states[-1]


def test_nexta_answers_or_bounds_h_star(big):
    task, plan = big
    q = task.questions
    atoms, rest = near_goal()
    for state in (None, atoms):
        r = q.optimal_next(state, budget=BUDGET)  # the call the issue saw fail at this size
        if r.known:
            assert reaches_goal(r.plan, atoms if state else task.names(task.init)) and len(r.plan) == r.h_star
        else:
            assert r.h_star_lower is not None and r.h_star_lower <= (NEAR - 2 if state else len(plan))
    picked = q.optimal_next(atoms, budget=BUDGET, actions=[rest[0]])
    assert [a.action for a in picked.actions] == [rest[0]]
    h = q.h_star(atoms, budget=BUDGET)
    assert h.known or h.lower <= NEAR - 2
    found = q.plan(atoms, optimal=False, budget=BUDGET)
    assert found.witness is None or reaches_goal(found.witness, atoms)


def test_objects_that_hold_states_write_bounded_reprs(big):
    """Every acptools object alive after the questions (operators, what lists showed, verdicts, ...)
    can be written under the low limit."""
    task, _ = big
    atoms, _ = near_goal()
    task.questions.unreachable_atoms(atoms, budget=BUDGET)
    task.questions.optimal_next(atoms, budget=BUDGET)
    assert Operator in written_reprs()


def test_an_h_star_table_and_its_rows_write_bounded_reprs(big):
    """The rows of h* after every action hold successor states (made here directly: the search that
    fills them overruns a small budget at this size)."""
    task, _ = big
    state = task.parse_state(near_goal()[0])
    moves = [(op.action, task.apply_op(op, state)) for op in task.applicable_ops(state)]
    table = HStarTable.of_state(task, lambda s: s, state, moves)
    text = repr(NextActions(2, frozenset(), None, "test", table=table))
    assert "bit set" in text and len(table.rows) == len(moves) and len(text) < 5_000


def written_reprs() -> set[type]:
    """The classes of every live acptools object, each written with repr; fails naming the classes
    whose repr raises."""
    seen, failed = set(), {}
    for obj in gc.get_objects():
        kind = type(obj)
        module = kind.__dict__.get("__module__")  # a builtin type's __module__ may be a descriptor
        if not isinstance(module, str) or not module.startswith(("acptools", "acptools_server")):
            continue
        try:
            repr(obj)
        except ValueError as e:
            failed.setdefault(f"{kind.__module__}.{kind.__qualname__}", str(e)[:80])
            continue
        seen.add(kind)
    assert not failed, failed
    assert len(seen) > 10
    return seen
