"""The Gymnasium policy environment on a task with decimal action costs: rewards and regrets are in
cost (an optimal episode's "progress" returns h*, "cost" returns -h*, "regret" 0), and a detour's regret
is its cost difference, all recomputed by the independent oracle (tests/support/numeric_oracle.py)."""

from __future__ import annotations

from fractions import Fraction

import pytest

pytest.importorskip("gymnasium", reason="the rl extra (gymnasium) is not installed")

from acptools.environments.gymnasium_env import PlanningEnv  # noqa: E402
from tests.numeric.test_cost_rollout import scripted_detour  # noqa: E402
from tests.numeric.test_cost_server import DECIMAL_DOMAIN, DECIMAL_PROBLEM  # noqa: E402
from tests.support.numeric_oracle import task_from_text  # noqa: E402


def run(reward: str, plan: list[str]) -> tuple[float, list[dict]]:
    env = PlanningEnv(source=(DECIMAL_DOMAIN, [DECIMAL_PROBLEM]), reward=reward, max_steps=len(plan) + 2)
    env.reset(options={"index": 0})
    total, infos = 0.0, []
    for action in plan:
        _, r, terminated, _, info = env.step(action)
        total, infos = total + r, infos + [info]
    assert terminated and infos[-1]["solved"]
    return total, infos


def test_optimal_episode_returns_h_star_in_cost():
    oracle = task_from_text(DECIMAL_DOMAIN, DECIMAL_PROBLEM)
    plan, h = oracle.search().plan, oracle.h_star()
    for reward, expected in (("progress", h), ("cost", -h), ("regret", 0)):
        total, infos = run(reward, plan)
        assert total == pytest.approx(float(expected)), reward
        assert all(i["optimal"] and i["regret"] == 0 for i in infos)


def test_a_detour_costs_its_regret():
    plan, regrets = scripted_detour()
    total, infos = run("regret", plan)
    assert [Fraction(str(i["regret"])) for i in infos] == regrets
    assert total == pytest.approx(-float(sum(regrets)))
