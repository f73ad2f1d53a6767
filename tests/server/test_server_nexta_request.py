"""optimal_next_action over MCP asks for what it needs: h*, every optimal action and a plan by default;
the regret of the actions named (checked: unknown and inapplicable names are clear errors); the whole
table with table=true. Out of budget it, plan and the episode tools give proven bounds (plans replayed)."""

from __future__ import annotations

import anyio
import pytest
from acptools_server import ServerConfig, build_server
from mcp import Client

from tests.support.data import records
from tests.support.load import slack
from tests.support.mcp_client import Tools

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_default_named_actions_table_and_errors():
    with anyio.fail_after(slack(300)):
        async with Client(build_server(ServerConfig())) as client:
            t = Tools(client)
            tid = await t.load_example("ferry")
            applicable = (await t.ok("list_applicable", task_id=tid))["actions"]
            plain = await t.ok("optimal_next_action", task_id=tid, budget=30)
            assert plain["known"] and plain["h_star"] == 4 and plain["actions"] == []
            assert plain["optimal_actions"] == ["(sail l0 l1)"] and plain["bounds"] == {}
            named = await t.ok("optimal_next_action", task_id=tid, actions=["(BOARD c0, l0)"], budget=30)
            [v] = named["actions"]
            assert v["action"] == "(board c0 l0)" and v["optimal"] is False and v["regret"] >= 1
            table = await t.ok("optimal_next_action", task_id=tid, table=True, budget=30)
            assert sorted(a["action"] for a in table["actions"]) == applicable
            assert {a["action"]: a["regret"] for a in table["actions"]}["(board c0 l0)"] == v["regret"]
            assert "not applicable in the state" in await t.err(
                "optimal_next_action", task_id=tid, actions=["(sail l1 l0)"]
            )
            assert "did you mean 'sail'" in await t.err("optimal_next_action", task_id=tid, actions=["(sial l0 l1)"])


async def check_bounds(t: Tools, tid: str, bounds: dict, opt: int) -> None:
    """The interval holds the record's h*; a plan as long as the upper bound replays to the goal."""
    assert bounds["h_star_lower"] is not None and bounds["h_star_lower"] <= opt
    assert bounds["h_star_upper"] is None or opt <= bounds["h_star_upper"]
    if bounds["upper_plan"] is not None:
        await t.replay_to_goal(tid, bounds["upper_plan"])
        assert len(bounds["upper_plan"]) == bounds["h_star_upper"]


async def test_out_of_budget_calls_give_proven_bounds():
    """optimal_next_action, plan, start_episode and step_episode on the record farthest from its goal
    with a budget far too small for the exact search: each gives the interval it proved (containing
    the record's h*), its plan replayed by the simulator."""
    rec = max(records("test", "nexta"), key=lambda r: int(r["answer"]["opt"]))
    opt = int(rec["answer"]["opt"])
    with anyio.fail_after(slack(300)):
        async with Client(build_server(ServerConfig())) as client:
            t = Tools(client)
            tid = await t.load_record(rec)
            out = await t.ok("optimal_next_action", task_id=tid, budget=0.001)
            if out["known"]:
                pytest.skip("the exact search finished within 1 ms")
            assert out["h_star"] is None and out["how"] == "unknown" and "h* >=" in out["detail"]
            await check_bounds(t, tid, out["bounds"], opt)
            out = await t.ok("plan", task_id=tid, budget=0.001)
            if out["answer"] is not None:
                pytest.skip("the exact search finished within 1 ms")
            assert out["plan"] is None and "h* >=" in out["detail"], out
            await check_bounds(t, tid, out["bounds"], opt)
            started = await t.ok("start_episode", task_id=tid, budget=0.001)
            assert not started["h_star_known"] and started["h_star"] is None
            lo, hi = started["bounds"]["h_star_lower"], started["bounds"]["h_star_upper"]
            assert lo <= opt and (hi is None or opt <= hi)
            action = (await t.ok("list_applicable", task_id=tid))["actions"][0]
            step = await t.ok("step_episode", episode_id=started["episode_id"], action=action, budget=0.001)
            assert step["applied"] and not step["h_star_known"], step
            b = step["bounds"]
            assert b["h_star_before_lower"] <= opt and (
                b["h_star_before_upper"] is None or opt <= b["h_star_before_upper"]
            )
            assert b["h_star_after_lower"] >= b["h_star_before_lower"] - 1  # one step gains at most one
            assert b["regret_lower"] is not None and b["regret_lower"] >= 0
            assert b["regret_upper"] is None or b["regret_lower"] <= b["regret_upper"]
            # what the bounds decide, and nothing more
            decided = True if b["regret_upper"] == 0 else False if b["regret_lower"] > 0 else None
            assert step["optimal"] is decided
