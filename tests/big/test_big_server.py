"""Every MCP tool of a real `acptools-server` process (stdio) on a task with more than 20,000 ground
atoms and 50,000 ground actions, the server started with Python's int-to-text limit at its lowest
(tests/support/big_tasks.py): every call answers (unknown with proven bounds is an answer), answers
that can be checked cheaply agree with pyperplan, every witness is replayed by it, and the server logs
no unexpected failure. One server and one loaded task serve the module."""

from __future__ import annotations

import pytest

from tests.support.big_tasks import (
    MIN_ACTIONS,
    MIN_ATOMS,
    acpbench_records,
    applicable,
    big_ferry,
    first_inapplicable,
    near_goal,
    reaches_goal,
)
from tests.support.mcp_client import Replayer
from tests.support.server_procs import StdioServer

BUDGET = 1.0  # seconds per call: most answers are bounds at this size, which is the point


class Big:
    """The server, the big task's id, and pyperplan's replayer of its plans."""

    def __init__(self, server: StdioServer, task_id: str, summary: dict) -> None:
        self.server, self.task_id, self.summary = server, task_id, summary
        self.replayer = Replayer(*big_ferry()[:2])

    def ok(self, tool: str, **args) -> dict:
        """A call that must succeed, on the big task unless it names an episode."""
        if "episode_id" not in args:
            args["task_id"] = self.task_id
        return self.server.ok(tool, timeout=300, **args)

    def replays(self, plan: list[str], state: list[str] | None) -> frozenset[str]:
        """The last state of a witness replayed by pyperplan (fails the test if an action does not apply)."""
        return self.replayer.trajectory(plan, state)[-1]


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    domain, problem, _ = big_ferry()
    with StdioServer(
        tmp_path_factory.mktemp("big-server"), PYTHONINTMAXSTRDIGITS="640", ACPTOOLS_CACHE="off"
    ) as server:
        summary = server.ok("load_task", timeout=300, domain=domain, problem=problem)
        yield Big(server, summary["task_id"], summary)
        log = server.log_text()
    assert "Traceback" not in log and "unexpectedly" not in log, log[-3000:]


def test_the_task_loads_at_the_sizes_users_bring(big):
    assert big.summary["num_propositions"] > MIN_ATOMS and big.summary["num_ground_actions"] > MIN_ACTIONS


def test_app_prog_val_just_agree_with_pyperplan(big):
    atoms, rest = near_goal()
    listed = big.ok("list_applicable", state=atoms, limit=100_000)
    assert sorted(listed["actions"]) == applicable(atoms) and listed["total"] == len(applicable(atoms))
    p = big.ok("progress", action=rest[0], state=atoms)
    assert p["applicable"] and set(p["state"]) == big.replays(rest[:1], atoms) - big.replayer.statics
    records = {r["group"]: r for r in acpbench_records()}
    sequence = _plan(records["validation_gen"]["question"])
    v = big.ok("validate_plan", plan=sequence, state=atoms)
    assert v["first_inapplicable"] == first_inapplicable(sequence, atoms)
    whole = big.ok("validate_plan", plan=list(big_ferry()[2]))
    assert whole["valid"] and whole["goal_reached"]
    detour = _plan(records["action_justification_gen"]["question"])
    s = big.ok("simplify_plan", plan=detour, state=atoms, with_plans=True, budget=BUDGET)
    assert s["plan_is_valid"] and s["removable"]
    for removal in s["removable"]:
        assert removal["plan"] == [a for i, a in enumerate(detour) if i not in removal["indices"]]
        assert reaches_goal(removal["plan"], atoms)


def _plan(question: str) -> list[str]:
    return ["(" + a.strip("() ") + ")" for a in question.split('"')[1].split(")") if a.strip()]


def test_reach_areach_land_answer_with_proofs_or_bounds(big):
    atoms, rest = near_goal()
    here, target = rest[0].strip("()").split()[1:]
    for tool, query, state in (
        ("is_reachable", "(at-ferry l5)", None),
        ("is_reachable", f"(at-ferry {target})", atoms),
        ("is_action_reachable", f"(debark c0 {target})", atoms),
    ):
        key = "atom" if tool == "is_reachable" else "action"
        v = big.ok(tool, **{key: query}, budget=BUDGET, **({"state": state} if state else {}))
        assert v["answer"] in (True, None) and (v["answer"] is None) == (v["how"] == "unknown"), v
        if v["witness"] is not None:
            last = big.replays(v["witness"], state)
            assert query in last if tool == "is_reachable" else big.replayer.applies(last, query)
    loop = big.ok("is_action_reachable", action=f"(sail {here} {here})", state=atoms, budget=BUDGET)
    assert (loop["answer"], loop["how"]) == (False, "static-facts")
    for tool in ("unreachable_atoms", "unreachable_actions", "landmarks"):
        listed = big.ok(tool, state=atoms, budget=BUDGET, **({} if tool == "landmarks" else {"limit": 50}))
        assert listed["complete"] or listed["unknown_total"] > 0, (tool, listed)
    land = big.ok("is_landmark", atom=f"(at-ferry {target})", state=atoms, budget=BUDGET)
    assert land["answer"] in (True, None) and land["witness"] is None


def test_nexta_and_plan_answer_or_bound_h_star(big):
    atoms, rest = near_goal()
    for state in (None, atoms):  # the call the issue saw fail at this size, from the init and near the goal
        args = {"state": state} if state else {}
        r = big.ok("optimal_next_action", actions=[rest[0]] if state else [], budget=BUDGET, **args)
        if r["known"]:
            assert big.replayer.is_goal(big.replays(r["plan"], state)) and len(r["plan"]) == r["h_star"]
        else:
            assert r["bounds"]["h_star_lower"] is not None and "budget ran out" in r["detail"]
        for optimal in (True, False):
            found = big.ok("plan", optimal=optimal, budget=BUDGET, **args)
            if found["plan"] is not None:
                assert big.replayer.is_goal(big.replays(found["plan"], state))


@pytest.mark.slow
def test_nexta_table_answers_or_bounds_every_action(big):
    atoms, _ = near_goal()
    r = big.ok("optimal_next_action", state=atoms, table=True, budget=BUDGET)
    assert sorted(v["action"] for v in r["actions"]) == applicable(atoms)


def test_score_answer_and_an_episode_to_the_goal(big):
    atoms, rest = near_goal()
    app = big.ok("score_answer", task="app", response=" ".join(applicable(atoms)), state=atoms, budget=BUDGET)
    assert (app["score"], app["verdict"]) == (1, "correct"), app
    nexta = big.ok("score_answer", task="nexta", response=rest[0], state=atoms, budget=BUDGET)
    assert nexta["verdict"] in ("correct", "unknown"), nexta
    start = big.ok("start_episode", state=atoms, budget=BUDGET)
    episode = start["episode_id"]
    assert sorted(start["applicable_actions"]) == applicable(atoms)
    wrong = big.ok("step_episode", episode_id=episode, action=rest[1], budget=BUDGET)
    assert not wrong["applied"] and wrong["verdict"] == "inapplicable"
    for action in rest[:2]:  # sail to the last car's goal and debark it there: solved (the rest sails out and back)
        step = big.ok("step_episode", episode_id=episode, action=action, budget=BUDGET)
        assert step["applied"], step
    assert step["goal_reached"]
    summary = big.ok("episode_summary", episode_id=episode)
    assert summary["plan"] == rest[:2] and summary["solved"] and summary["invalid_actions"] == 1
    final = big.replays(summary["plan"], summary["start_state"])
    assert big.replayer.is_goal(final) and final - big.replayer.statics == frozenset(summary["state"])
