"""Rollouts on a task with decimal action costs: each step's regret, the episode's plan cost and the
report's figures are in cost (metric "cost", plan_cost_ratio), recomputed by the independent oracle's
uniform-cost search and replay (tests/support/numeric_oracle.py)."""

from __future__ import annotations

import json
from fractions import Fraction

from acptools import rollout
from tests.numeric.test_cost_server import DECIMAL_DOMAIN, DECIMAL_PROBLEM
from tests.support.numeric_oracle import task_from_text


def scripted_detour() -> tuple[list[str], list[Fraction]]:
    """An optimal first action, the costliest detour after it, then an optimal rest; each step's regret."""
    oracle = task_from_text(DECIMAL_DOMAIN, DECIMAL_PROBLEM)

    def regret(state, action: str) -> Fraction:
        return oracle.step_cost(state, action) + oracle.h_star(oracle.apply(state, action)) - oracle.h_star(state)

    first = oracle.search().plan[0]
    middle = oracle.apply(oracle.init, first)
    detour = max(sorted(oracle.applicable(middle)), key=lambda a: regret(middle, a))
    rest = oracle.search(oracle.apply(middle, detour)).plan
    regrets = [regret(oracle.init, first), regret(middle, detour)]
    assert regrets[0] == 0 < regrets[1]
    return [first, detour, *rest], regrets + [Fraction(0)] * len(rest)


def task_folder(tmp_path):
    """A folder of the decimal-cost task, as `acptools rollout --tasks` reads one."""
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "domain.pddl").write_text(DECIMAL_DOMAIN)
    (folder / "p1.pddl").write_text(DECIMAL_PROBLEM)
    return folder


def test_rollout_reports_cost(tmp_path):
    oracle = task_from_text(DECIMAL_DOMAIN, DECIMAL_PROBLEM)
    folder = task_folder(tmp_path)
    plan, regrets = scripted_detour()
    policy = tmp_path / "script.py"
    policy.write_text(f"PLAN = {json.dumps(plan)}\n\ndef act(obs):\n    return PLAN[obs.step - 1]\n")
    out = tmp_path / "t.jsonl"
    result = rollout.run([str(folder)], f"python:{policy}:act", out=out)
    (end,) = result.episodes
    h0, cost = oracle.h_star(), oracle.plan_cost(plan)
    assert end["metric"] == "cost" and end["solved"] and end["plan"] == plan
    assert Fraction(str(end["plan_cost"])) == cost and Fraction(str(end["h_star_start"])) == h0
    rows = [json.loads(line) for line in out.read_text().splitlines()]  # as written: costs as exact text
    steps = [r for r in rows if r["kind"] == "step"]
    assert [Fraction(str(s["regret"])) for s in steps] == regrets
    assert [s["optimal"] for s in steps] == [r == 0 for r in regrets]
    overall = rollout.summarize(rows)["overall"]
    assert overall["metric"] == "cost" and overall["plan_length_ratio"] is None
    assert overall["plan_cost_ratio"] == round(float(cost / h0), 6)
    assert overall["mean_regret"] == round(float(sum(regrets) / len(regrets)), 6)
    assert "in cost" in rollout.table(rollout.summarize(rows))


def test_optimal_policy_pays_h_star(tmp_path):
    oracle = task_from_text(DECIMAL_DOMAIN, DECIMAL_PROBLEM)
    folder = task_folder(tmp_path)
    result = rollout.run([str(folder)], "optimal")
    (end,) = result.episodes
    assert end["solved"] and Fraction(str(end["plan_cost"])) == oracle.h_star() == oracle.plan_cost(end["plan"])
    overall = rollout.summarize(result.rows)["overall"]
    assert overall["plan_cost_ratio"] == 1.0 and overall["mean_regret"] == 0 and overall["optimal_step_rate"] == 1.0
