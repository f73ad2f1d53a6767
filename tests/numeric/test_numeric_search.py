"""reach, areach, land, h*, nexta and plan on numeric tasks (engine/numeric_search.py, numeric_optimal.py)
against the independent oracle (tests/support/numeric_oracle.py) and unified-planning: every witness
replays in UP's SequentialSimulator (the oracle where UP cannot take the task); every claim that an atom
is unreachable, an action never applicable, an atom a landmark or the goal unreachable is checked by
the oracle's exhaustive search on problems whose state space it visits completely; h* equals the
oracle's uniform-cost search wherever that finishes, and optimal next actions its successors' h*."""

from __future__ import annotations

import pytest

from acptools import load_task
from tests.support.numeric_corpus import CORPUS, kind, numeric_families, problems
from tests.support.numeric_oracle import load_task as load_oracle
from tests.support.numeric_planners import up_trajectory

LIMIT = 20_000  # states the oracle enumerates: a problem it enumerates completely is finite
CASES = [(f, p) for f in numeric_families() for p in problems(f)]
SMALL = [pytest.param(f, p, id=f"{f}/{p.stem}") for f, p in CASES if kind(p) in ("solvable", "unsolvable")]
ALL = [
    pytest.param(f, p, id=f"{f}/{p.stem}", marks=[pytest.mark.slow] if kind(p) in ("larger", "infinite") else [])
    for f, p in CASES
]


def both(family, problem):
    domain = CORPUS / family / "domain.pddl"
    task, oracle = load_task(domain, problem), load_oracle(domain, problem)
    if task.grounded.metric != "cost":
        oracle.metric = "length"  # ours measures plan length: the oracle searches the same measure
    return task, oracle


def up_states(oracle, plan: list[str]) -> list:
    """The states along `plan` by UP's SequentialSimulator, or by the oracle where UP cannot take the
    task (undefined initial values); fails when a step does not apply."""
    try:
        return up_trajectory(oracle, plan)
    except Exception as e:  # UP's refusal of the problem kind, not a failed step
        if "NoSuitableEngine" not in type(e).__name__:
            raise
        return oracle.trajectory(plan)


def finite(oracle):
    explored = oracle.explore(limit=LIMIT)
    return explored.states if explored.complete else None


@pytest.mark.parametrize("family, problem", ALL)
def test_plans_replay_in_unified_planning(family, problem):
    task, oracle = both(family, problem)
    v = task.questions.plan(optimal=False, budget=20)
    if v.answer:
        assert oracle.is_goal(up_states(oracle, v.witness)[-1]), v.witness
    elif v.answer is False:
        assert oracle.search(node_limit=LIMIT).status == "unsolvable"
    if kind(problem) == "solvable":
        assert v.answer, v


@pytest.mark.parametrize("family, problem", SMALL)
def test_h_star_equals_uniform_cost_search(family, problem):
    task, oracle = both(family, problem)
    h = task.questions.h_star(budget=20)
    expected = oracle.search(node_limit=LIMIT)
    assert expected.status != "limit"
    if not h.known:
        assert expected.cost is None or h.lower <= expected.cost <= (h.upper or expected.cost)
        return
    assert h.h_star == expected.cost, (h, expected)
    if h.plan is not None:
        assert oracle.is_goal(up_states(oracle, h.plan)[-1])
        assert (len(h.plan) if h.metric == "length" else oracle.plan_cost(h.plan)) == h.h_star


@pytest.mark.parametrize("family, problem", SMALL)
def test_reach_claims_hold_on_the_whole_state_space(family, problem):
    task, oracle = both(family, problem)
    states = finite(oracle)
    if states is None:
        pytest.skip("the oracle does not enumerate this state space within its limit")
    q = task.questions
    atoms = q.unreachable_atoms(budget=20)
    for item in atoms.items:
        assert not any(oracle.holds(s, item.name) for s in states), item
    for item in atoms.refuted:
        assert any(oracle.holds(s, item.name) for s in states), item
    actions = q.unreachable_actions(budget=20)
    for item in actions.items:
        assert not any(oracle.is_applicable(s, item.name) for s in states), item
    for item in actions.refuted:
        assert any(oracle.is_applicable(s, item.name) for s in states), item
    for item in atoms.refuted[:4]:
        v = q.is_reachable(item.name, budget=10)
        assert v.answer, v
        assert oracle.holds(up_states(oracle, v.witness)[-1], item.name)
    for item in actions.refuted[:4]:
        v = q.is_action_reachable(item.name, budget=10)
        assert v.answer, v
        assert oracle.is_applicable(up_states(oracle, v.witness)[-1], item.name)


@pytest.mark.parametrize("family, problem", SMALL)
def test_landmark_claims_hold_on_the_whole_state_space(family, problem):
    task, oracle = both(family, problem)
    if finite(oracle) is None:
        pytest.skip("the oracle does not enumerate this state space within its limit")
    found = task.questions.landmarks(budget=20)
    for item in found.items:
        assert oracle.is_landmark(item.name, limit=LIMIT), item
    for item in found.refuted:
        trajectory = up_states(oracle, item.witness)
        assert oracle.is_goal(trajectory[-1]) and not any(oracle.holds(s, item.name) for s in trajectory), item
    for item in found.refuted[:3] + found.items[:3]:
        v = task.questions.is_landmark(item.name, budget=10)
        assert v.answer is not None and v.answer == oracle.is_landmark(item.name, limit=LIMIT), (item, v)


@pytest.mark.parametrize("family, problem", SMALL)
def test_optimal_next_actions_are_those_the_oracle_finds(family, problem):
    task, oracle = both(family, problem)
    report = task.questions.optimal_next(budget=8, table=True)
    root = oracle.search(node_limit=LIMIT)
    assert report.known and report.h_star == root.cost, report
    if root.cost is None:
        assert report.optimal_actions == []
        return
    optimal = set()
    for action, after in oracle.transitions(oracle.init):
        rest = oracle.search(after, node_limit=LIMIT).cost
        if rest is not None and oracle.step_cost(oracle.init, action, after) + rest == root.cost:
            optimal.add(action)
    assert set(report.optimal_actions) == optimal
    for value in report.actions:  # a row its search could not settle (an infinite space) stays undecided
        assert value.optimal in (None, value.action in optimal), value
        assert value.optimal is not None or not value.known


def test_plan_rate_on_the_corpus_is_at_least_80_percent():
    """Satisficing plans, each replayed, on the solvable problems (larger ones in the slow run)."""
    wanted = [(f, p) for f, p in CASES if kind(p) == "solvable"]
    solved = 0
    for family, problem in wanted:
        task, oracle = both(family, problem)
        v = task.questions.plan(optimal=False, budget=10)
        if v.answer and oracle.is_goal(up_states(oracle, v.witness)[-1]):
            solved += 1
    assert solved >= 0.8 * len(wanted), (solved, len(wanted))
