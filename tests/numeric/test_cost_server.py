"""The MCP server on :action-costs tasks over stdio (a real `acptools-server` process): h*, regrets, the
plan's cost and episodes are measured in cost (`metric: "cost"`), equal to the independent oracle's
uniform-cost search and replay (tests/support/numeric_oracle.py); decimal costs travel exactly (an int
when whole, else the exact decimal text); every state-taking tool answers on a cost task."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.support.numeric_corpus import CORPUS, COST_FAMILIES
from tests.support.numeric_oracle import NumericTask, task_from_text
from tests.support.server_procs import StdioServer

# decimal costs: walking 0.5, a teleport 1.25, climbing a static decimal cost
DECIMAL_DOMAIN = """(define (domain decimal-visit)
  (:requirements :typing :action-costs)
  (:types cell)
  (:predicates (at ?c - cell) (visited ?c - cell) (adjacent ?a ?b - cell) (pad ?c - cell))
  (:functions (climb-cost ?a ?b - cell) (total-cost))
  (:action walk :parameters (?from ?to - cell)
    :precondition (and (at ?from) (adjacent ?from ?to))
    :effect (and (not (at ?from)) (at ?to) (visited ?to) (increase (total-cost) 0.5)))
  (:action climb :parameters (?from ?to - cell)
    :precondition (and (at ?from) (adjacent ?to ?from))
    :effect (and (not (at ?from)) (at ?to) (visited ?to) (increase (total-cost) (climb-cost ?from ?to))))
  (:action teleport :parameters (?from ?to - cell)
    :precondition (and (at ?from) (pad ?from) (pad ?to))
    :effect (and (not (at ?from)) (at ?to) (visited ?to) (increase (total-cost) 1.25))))
"""
DECIMAL_PROBLEM = """(define (problem decimal-p1) (:domain decimal-visit)
  (:objects a b c d e - cell)
  (:init (at a) (adjacent a b) (adjacent b c) (adjacent c d) (adjacent d e) (pad a) (pad e)
         (= (climb-cost b a) 0.3) (= (climb-cost c b) 0.3) (= (climb-cost d c) 0.3) (= (climb-cost e d) 0.3)
         (= (climb-cost a b) 0.3) (= (climb-cost b c) 0.3) (= (climb-cost c d) 0.3) (= (climb-cost d e) 0.3)
         (= (total-cost) 0))
  (:goal (and (visited e) (visited c)))
  (:metric minimize (total-cost)))
"""


def tasks() -> list[tuple[str, str, str]]:
    corpus = [
        (f, (CORPUS / f / "domain.pddl").read_text(), (CORPUS / f / "p01.pddl").read_text()) for f in COST_FAMILIES
    ]
    return [*corpus, ("decimal", DECIMAL_DOMAIN, DECIMAL_PROBLEM)]


def number(wire) -> Fraction | None:
    """A cost as the server sends it: an int, or an exact decimal / n/d string; never a float."""
    assert wire is None or isinstance(wire, int | str), wire
    return None if wire is None else Fraction(str(wire))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with StdioServer(tmp_path_factory.mktemp("cost-server"), ACPTOOLS_CACHE="off") as s:
        yield s


def load(server: StdioServer, domain: str, problem: str) -> str:
    return server.ok("load_task", domain=domain, problem=problem)["task_id"]


def state_args(state: list[str] | None) -> dict:
    return {} if state is None else {"state": state}


def check_nexta(server: StdioServer, oracle: NumericTask, tid: str, state: list[str] | None, ostate) -> None:
    """h* and every action's regret equal the oracle's; the optimal actions are those of regret 0."""
    r = server.ok("optimal_next_action", task_id=tid, table=True, **state_args(state))
    h = oracle.h_star(ostate)
    assert r["metric"] == "cost" and r["known"] and number(r["h_star"]) == h, (r, h)
    assert {v["action"] for v in r["actions"]} == oracle.applicable(ostate)
    for v in r["actions"]:
        after = oracle.apply(ostate, v["action"])
        h_after = oracle.h_star(after)
        assert number(v["h_star_after"]) == h_after, (v, h_after)
        if h_after is not None:
            assert number(v["regret"]) == oracle.step_cost(ostate, v["action"]) + h_after - h, v
    assert set(r["optimal_actions"]) == {v["action"] for v in r["actions"] if number(v["regret"]) == 0}
    assert oracle.validate(r["plan"], ostate).goal_reached and oracle.plan_cost(r["plan"], ostate) == h


def check_plans(server: StdioServer, oracle: NumericTask, tid: str, state: list[str] | None, ostate) -> None:
    """An optimal plan costs h*; a greedy plan's reported cost is its replayed cost."""
    best = server.ok("plan", task_id=tid, **state_args(state))
    assert best["metric"] == "cost" and best["answer"] and best["optimal"]
    assert oracle.validate(best["plan"], ostate).goal_reached
    assert number(best["cost"]) == number(best["h_star"]) == oracle.plan_cost(best["plan"], ostate)
    assert number(best["h_star"]) == oracle.h_star(ostate)
    assert best["length"] == len(best["plan"])
    greedy = server.ok("plan", task_id=tid, optimal=False, **state_args(state))
    assert oracle.validate(greedy["plan"], ostate).goal_reached
    assert number(greedy["cost"]) == oracle.plan_cost(greedy["plan"], ostate) >= oracle.h_star(ostate)


def check_other_tools(server: StdioServer, oracle: NumericTask, tid: str, state: list[str], ostate) -> None:
    """The remaining state-taking tools answer on a cost task (costs do not change their answers)."""
    app = server.ok("list_applicable", task_id=tid, state=state)
    assert set(app["actions"]) == oracle.applicable(ostate)
    action = sorted(app["actions"])[0]
    step = server.ok("progress", task_id=tid, action=action, state=state)
    before, after, listed = ostate.strings(), oracle.apply(ostate, action).strings(), set(step["state"])
    assert step["applicable"] and listed <= after and after - before <= listed and not (before - after) & listed
    plan = server.ok("plan", task_id=tid, state=state)["plan"]
    val = server.ok("validate_plan", task_id=tid, plan=plan, state=state)
    assert val["first_inapplicable"] is None and val["goal_reached"]
    assert server.ok("simplify_plan", task_id=tid, plan=plan, state=state)["removable"] == []  # optimal: no waste
    reach = server.ok("is_reachable", task_id=tid, atom=step["state"][0], state=state)
    assert reach["answer"] is True
    for tool in ("unreachable_atoms", "unreachable_actions", "landmarks"):
        server.ok(tool, task_id=tid, state=state)
    assert server.ok("is_action_reachable", task_id=tid, action=action, state=state)["answer"] is True
    assert server.ok("is_landmark", task_id=tid, atom=step["state"][0], state=state)["answer"] in (True, False)


@pytest.mark.parametrize(("name", "domain", "problem"), tasks(), ids=[t[0] for t in tasks()])
def test_state_tools_measure_cost(server, name, domain, problem):
    oracle = task_from_text(domain, problem)
    assert oracle.metric == "action-costs"
    tid = load(server, domain, problem)
    check_nexta(server, oracle, tid, None, oracle.init)
    check_plans(server, oracle, tid, None, oracle.init)
    first = sorted(oracle.applicable(oracle.init))[0]
    after = oracle.apply(oracle.init, first)
    state = server.ok("progress", task_id=tid, action=first)["state"]
    check_nexta(server, oracle, tid, state, after)
    check_plans(server, oracle, tid, state, after)
    check_other_tools(server, oracle, tid, state, after)


def test_decimal_costs_travel_exactly(server):
    """Sums of 1.25, 0.5 and 0.3 arrive as exact decimal text (a float would add round-off), whole
    values as ints."""
    oracle = task_from_text(DECIMAL_DOMAIN, DECIMAL_PROBLEM)
    tid = load(server, DECIMAL_DOMAIN, DECIMAL_PROBLEM)
    r = server.ok("optimal_next_action", task_id=tid, table=True)
    h = oracle.h_star()
    assert h.denominator != 1 and r["h_star"] == str(float(h)) and Fraction(r["h_star"]) == h
    for v in r["actions"]:
        regret = number(v["regret"])
        assert v["regret"] == (int(regret) if regret.denominator == 1 else str(float(regret))), v


def test_episode_regrets_in_cost(server):
    """An optimal step has regret 0; a detour's regret is its cost difference, computed by the oracle;
    the summary's plan cost is the replayed cost and the excess is plan cost - h*."""
    oracle = task_from_text(DECIMAL_DOMAIN, DECIMAL_PROBLEM)
    tid = load(server, DECIMAL_DOMAIN, DECIMAL_PROBLEM)
    start = server.ok("start_episode", task_id=tid)
    h0 = oracle.h_star()
    assert start["metric"] == "cost" and number(start["h_star"]) == h0
    first = oracle.search().plan[0]
    good = server.ok("step_episode", episode_id=start["episode_id"], action=first)
    s1 = oracle.apply(oracle.init, first)
    assert (
        good["optimal"] and number(good["regret"]) == 0 == oracle.step_cost(oracle.init, first) + oracle.h_star(s1) - h0
    )

    def regret(action: str):
        after = oracle.apply(s1, action)
        return oracle.step_cost(s1, action) + oracle.h_star(after) - oracle.h_star(s1)

    detour = max(sorted(oracle.applicable(s1)), key=regret)
    bad = server.ok("step_episode", episode_id=start["episode_id"], action=detour)
    s2 = oracle.apply(s1, detour)
    expected = regret(detour)
    assert expected > 0 and not bad["optimal"] and number(bad["regret"]) == expected
    assert number(bad["h_star_before"]) == oracle.h_star(s1) and number(bad["h_star_after"]) == oracle.h_star(s2)
    rest = oracle.search(s2).plan
    for action in rest:
        step = server.ok("step_episode", episode_id=start["episode_id"], action=action)
        assert step["optimal"] and number(step["regret"]) == 0
    summary = server.ok("episode_summary", episode_id=start["episode_id"])
    plan = [first, detour, *rest]
    assert summary["metric"] == "cost" and summary["solved"] and summary["plan"] == plan
    assert number(summary["plan_cost"]) == oracle.plan_cost(plan) and summary["plan_length"] == len(plan)
    assert number(summary["excess_length"]) == oracle.plan_cost(plan) - h0 == expected


def test_unit_cost_results_stay_integers(server):
    """A task without costs keeps metric "length" and integer h*, regrets and plan cost = length."""
    tid = server.ok("list_examples")["examples"][0]["task_id"]
    r = server.ok("optimal_next_action", task_id=tid, table=True)
    assert r["metric"] == "length" and isinstance(r["h_star"], int)
    assert all(isinstance(v["regret"], int) for v in r["actions"] if v["regret"] is not None)
    p = server.ok("plan", task_id=tid)
    assert p["metric"] == "length" and p["cost"] == p["length"] == p["h_star"]
