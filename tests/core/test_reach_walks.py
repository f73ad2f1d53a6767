"""Reachability where the heuristic searches are trapped. On this floor-tile record two moves of
robot1 are reachable, but Fast Downward's greedy searches (eager and lazy, FF) find no plan to them in
20 CPU seconds each: painting tiles makes dead ends the relaxation does not see. Random walks from
the state find them at once. Every witness is replayed by pyperplan."""

from __future__ import annotations

import pytest

from acptools import Budget, load_task
from acptools.engine import reachability
from acptools.planners import fd
from acptools.questions.reach import _walk, action_goal
from tests.support.data import SPLITS, records
from tests.support.simulator import trajectory

RECORD_ID = -2584845745225226514
TRAPPED = ["(right robot1 tile_4 tile_5)", "(left robot1 tile_5 tile_4)"]


@pytest.fixture(scope="module")
def record():
    return next(r for split in SPLITS for r in records(split, "areach") if r["id"] == RECORD_ID)


def _replays_to(record, witness: list[str], action: str) -> bool:
    states = trajectory(record["PDDL_domain"], record["PDDL_problem"], witness)
    return (
        states is not None
        and trajectory(record["PDDL_domain"], record["PDDL_problem"], [action], states[-1]) is not None
    )


def test_the_greedy_searches_are_trapped_here(record):
    """The premise: without walks these actions stay undecided (so the tests below can fail)."""
    task = load_task(record["PDDL_domain"], record["PDDL_problem"])
    engine = task.questions.engine
    for name in TRAPPED:
        goal = action_goal(engine, engine.task.action_index[name])
        res = fd.solve(
            len(engine.task.atoms),
            engine.operators,
            engine.task.init,
            goal,
            Budget(None, cpu=3.0),
            optimal=False,
            axioms=engine.task.axioms,
        )
        assert res.plan is None and not res.proven_none, name


@pytest.mark.parametrize("name", TRAPPED)
def test_a_random_walk_finds_the_witness_the_searches_miss(record, name):
    task = load_task(record["PDDL_domain"], record["PDDL_problem"])
    v = task.questions.is_action_reachable(name, budget=Budget(None, cpu=20.0))
    assert v.answer is True and v.how == "witness-plan"
    assert len(v.witness) <= reachability.WALK_LENGTH and _replays_to(record, v.witness, name)


def test_walk_witnesses_have_no_loops(record):
    """A walk's witness has its loops cut out: no state repeats along it."""
    task = load_task(record["PDDL_domain"], record["PDDL_problem"])
    engine = task.questions.engine
    for name in TRAPPED:
        v = engine._by_walk(
            engine.task.init, action_goal(engine, engine.task.action_index[name]), engine.gen, Budget(None, cpu=20.0)
        )
        states = trajectory(record["PDDL_domain"], record["PDDL_problem"], v.witness)
        assert len(set(states)) == len(states) and _replays_to(record, v.witness, name)


def test_the_whole_list_is_complete_and_the_same_with_a_tenth_of_the_cpu_speed(record, monkeypatch):
    """The list's sweeps and walks count states, not CPU seconds: a machine where every CPU second
    does a tenth of the work (a loaded one) reaches the same list."""
    first = load_task(record["PDDL_domain"], record["PDDL_problem"]).questions.unreachable_actions(
        budget=Budget(None, cpu=60.0)
    )
    import acptools.budget as budget_module

    real = budget_module.time.thread_time
    monkeypatch.setattr(budget_module.time, "thread_time", lambda: 10 * real())
    slow = load_task(record["PDDL_domain"], record["PDDL_problem"]).questions.unreachable_actions(
        budget=Budget(None, cpu=600.0)
    )
    assert first.complete and slow.complete
    assert first.names == slow.names and {n for n in TRAPPED} <= {i.name for i in first.refuted}


def test_a_walk_cut_short_by_the_whole_budget_keeps_what_it_showed(record):
    """When the list's budget (not the walk's own slice) runs out mid-walk, the actions the walk
    already showed applicable are returned, not lost with an exception."""
    task = load_task(record["PDDL_domain"], record["PDDL_problem"])
    engine = task.questions.engine
    wanted = set(range(len(engine.task.action_names)))
    left_atoms, left = _walk(engine, engine.task.init, 0, set(wanted), Budget(None, cpu=0.05).child(60.0))
    assert left < wanted and left_atoms == 0
