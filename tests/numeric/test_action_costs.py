"""Action costs first-class: on the :action-costs families (tests/pddl/numeric) h*, the optimal next
actions, plans and regrets are measured in cost, and agree with the numeric oracle's uniform-cost search
(tests/support/numeric_oracle.py, which shares no code with acptools) on every state it can reach
(on the small problems by default, on those of at most 1,000 states under -m slow); every plan is replayed and
costed by the oracle; Fast Downward's cost-optimal search agrees.
Unit-cost tasks keep the plan-length optimizer and its answers."""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest

from acptools import examples, load_task
from acptools.budget import Budget
from acptools.engine.cost_optimal import CostOptimizer
from acptools.engine.optimal import Optimizer
from acptools.planners import fd
from tests.support.numeric_corpus import CORPUS, COST_FAMILIES, kind, problems
from tests.support.numeric_oracle import load_task as oracle_task
from tests.support.oracle import Oracle

SMALL = [(f, p) for f in COST_FAMILIES for p in problems(f) if kind(p) in ("solvable", "unsolvable")]
SAMPLE = 25  # reachable states of the problems checked state by state by default
SLOW_SAMPLE = 1000  # reachable states of the problems checked under -m slow


def ids(cases):
    return [f"{f}/{p.stem}" for f, p in cases]


def both(family: str, problem: Path):
    domain = CORPUS / family / "domain.pddl"
    return load_task(domain, problem), oracle_task(domain, problem)


def reachable(oracle, limit: int | None) -> list:
    """The oracle's states reachable from its initial state, breadth-first (at most `limit`)."""
    seen, order, todo = {oracle.key(oracle.init)}, [], deque([oracle.init])
    while todo and (limit is None or len(order) < limit):
        s = todo.popleft()
        order.append(s)
        for _, t in oracle.transitions(s):
            if oracle.key(t) not in seen:
                seen.add(oracle.key(t))
                todo.append(t)
    return order


def check_states(family: str, problem: Path, limit: int | None) -> None:
    task, oracle = both(family, problem)
    assert task.questions.metric == "cost" and isinstance(task.questions.optimizer, CostOptimizer)
    for s in reachable(oracle, limit):
        h = oracle.h_star(s)
        r = task.questions.optimal_next(sorted(s.atoms), budget=60)
        assert r.known and r.metric == "cost"
        assert r.h_star == h
        if h is None:
            continue
        want = set()
        for a, t in oracle.transitions(s):
            after = oracle.h_star(t)
            if after is not None and oracle.step_cost(s, a, t) + after == h:
                want.add(a)
        if h:
            assert set(r.optimal_actions) == want, (sorted(s.atoms), r.optimal_actions, want)
        assert oracle.validate(r.plan, s).goal_reached and oracle.plan_cost(r.plan, s) == h


@pytest.mark.parametrize(("family", "problem"), SMALL, ids=ids(SMALL))
def test_h_star_and_optimal_actions_match_uniform_cost_search(family: str, problem: Path) -> None:
    """Every state of the problems with at most SAMPLE reachable states (the others under -m slow:
    the oracle's blind search per successor takes seconds there)."""
    if len(reachable(oracle_task(CORPUS / family / "domain.pddl", problem), SAMPLE + 1)) > SAMPLE:
        pytest.skip("a larger state space: checked under -m slow")
    check_states(family, problem, None)


@pytest.mark.slow
@pytest.mark.parametrize(("family", "problem"), SMALL, ids=ids(SMALL))
def test_the_first_reachable_states_match_uniform_cost_search(family: str, problem: Path) -> None:
    """Problems of at most SLOW_SAMPLE reachable states, every state (the larger ones have thousands,
    and the oracle's blind search per successor would take hours over all of them)."""
    if len(reachable(oracle_task(CORPUS / family / "domain.pddl", problem), SLOW_SAMPLE + 1)) > SLOW_SAMPLE:
        pytest.skip("more than SLOW_SAMPLE reachable states")
    check_states(family, problem, None)


@pytest.mark.parametrize(("family", "problem"), SMALL, ids=ids(SMALL))
def test_plan_tool_answers_in_cost(family: str, problem: Path) -> None:
    task, oracle = both(family, problem)
    v = task.questions.plan(budget=60)
    h = oracle.h_star()
    if h is None:
        assert v.answer is False
        return
    assert v.answer is True and v.extra == {"h_star": h, "metric": "cost"}
    assert oracle.validate(v.witness).goal_reached and oracle.plan_cost(v.witness) == h


@pytest.mark.skipif(fd.downward_binary() is None, reason="Fast Downward is not installed")
@pytest.mark.parametrize(("family", "problem"), SMALL, ids=ids(SMALL))
def test_fast_downward_cost_optimal_search_agrees(family: str, problem: Path) -> None:
    """The SAS+ text carries the operators' costs: Fast Downward's A* finds the oracle's optimal cost."""
    task, oracle = both(family, problem)
    opt = task.questions.optimizer
    found = opt._fd_h(task.grounded.init, Budget(120))
    h = oracle.h_star()
    assert found is not None and found.known
    assert found.cost == h
    if h is not None:
        assert oracle.plan_cost(task.grounded.action_list(found.plan)) == h


def test_a_search_that_runs_out_gives_proven_cost_bounds() -> None:
    """A tiny budget on the larger elevators problem: unknown, lower <= the oracle-checked plan's cost."""
    larger = [p for p in problems("elevators-cost") if kind(p) == "larger"]
    task, oracle = both("elevators-cost", larger[0])
    r = task.questions.h_star(budget=Budget(None, cpu=0.05))
    if r.known:
        pytest.skip("the machine settled it within the tiny budget")
    assert r.metric == "cost" and r.lower is not None
    if r.upper_plan is not None:
        assert oracle.validate(r.upper_plan).goal_reached and oracle.plan_cost(r.upper_plan) == r.upper >= r.lower


@pytest.mark.parametrize("name", ["ferry", "blocksworld-4ops", "grid-visit-all"])
def test_unit_cost_tasks_keep_the_plan_length_optimizer(name: str) -> None:
    """A task without action costs: the plan-length optimizer, metric "length", h* the oracle's
    breadth-first distance, regrets h*(after) + 1 - h*(before)."""
    domain, problem = examples.texts(name)
    task = load_task(domain, problem)
    assert task.questions.metric == "length" and type(task.questions.optimizer) is Optimizer
    oracle = Oracle(domain, problem)
    init = oracle.init_atoms()
    dist = oracle.distances(init)
    r = task.questions.optimal_next(budget=60, table=True)
    assert r.metric == "length" and r.h_star == dist[oracle.close(init)]
    for v in r.actions:
        after = dist.get(oracle.successor(init, v.action))
        assert v.h_star_after == after and v.regret == after + 1 - r.h_star
