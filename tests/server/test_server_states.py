"""Every MCP tool that takes a `state`, asked about a state that is not the problem's init (through an
in-process client): each answer is the independent oracle's for that state (tests/support/oracle.py),
and each witness is replayed from that state (Tools.ok replays plans from the `state` it was given).
The state is chosen so that an answer about the init differs from the answer about it: a tool that
read the init instead fails here."""

from __future__ import annotations

import anyio
import pytest
from acptools_server import ServerConfig, build_server
from mcp import Client

from tests.support.data import pddl_texts
from tests.support.mcp_client import CALL_TIMEOUT, Tools
from tests.support.oracle import Oracle

# doors: the robot starts in r1; after these steps it holds k1 in r2 (h* 3, from the init 5)
ON_THE_WAY = ["(walk r1 r2)", "(pick k1 r2)"]
SLAMMED = ["(slam r1 r2)"]  # shut in r1 for good: the goal is out of reach


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Doors:
    """The doors task in the oracle: its graph from a state, h*, landmarks and what never happens."""

    def __init__(self):
        self.domain, self.problem = pddl_texts("doors")
        self.oracle = Oracle(self.domain, self.problem)
        self.init = self.oracle.init_atoms()
        self.fluent = self.oracle.fluent_atoms()

    def at(self, plan: list[str]) -> frozenset[str]:
        return self.oracle.run(self.init, plan)

    def names(self, atoms) -> list[str]:
        return sorted(atoms & self.fluent)

    def landmarks(self, state, graph, dist) -> set[str]:
        goals = {s for s, d in dist.items() if d == 0}
        goal_atoms = set.intersection(*map(set, goals)) & self.fluent
        return {
            p for p in self.fluent - state - goal_atoms if not Oracle.goal_reachable_avoiding(graph, goals, state, p)
        }


def _names(items: list[dict]) -> set[str]:
    return {i["name"] for i in items}


@pytest.mark.anyio
async def test_every_tool_that_takes_a_state_answers_for_that_state() -> None:
    d = Doors()
    o, state = d.oracle, d.at(ON_THE_WAY)
    graph, dist = o.graph(state), o.distances(state)
    seen_atoms, seen_actions = set().union(*graph), {a for out in graph.values() for a, _ in out}
    s = d.names(state)
    with anyio.fail_after(CALL_TIMEOUT):
        async with Client(build_server(ServerConfig())) as client:
            t = Tools(client)
            tid = (await t.ok("load_task", domain=d.domain, problem=d.problem))["task_id"]
            asked = set()

            async def ask(name: str, **args):
                asked.add(name)
                return await t.ok(name, task_id=tid, state=s, **args)

            assert (await ask("list_applicable"))["actions"] == o.applicable(state) != o.applicable(d.init)
            step = await ask("progress", action="(unlock k1 r2 r3)")
            after = o.successor(state, "(unlock k1 r2 r3)")
            assert step["applicable"] and step["state"] == d.names(after)
            assert set(step["positive_effects"]) == (after - state) & d.fluent
            best = await ask("plan")
            assert best["answer"] is True and best["length"] == best["h_star"] == dist[state] == 3
            assert len((await t.ok("plan", task_id=tid))["plan"]) == o.distances(d.init)[d.init] == 5
            checked = await ask("validate_plan", plan=best["plan"])
            assert checked["valid"] and checked["steps"] == 3
            detour = ["(walk r2 r1)", "(walk r1 r2)"] + best["plan"]
            shorter = await ask("simplify_plan", plan=detour, with_plans=True)
            assert shorter["plan_is_valid"] and [0, 1] in [r["indices"] for r in shorter["removable"]]
            nxt = await ask("optimal_next_action", table=True)
            assert nxt["h_star"] == 3 and set(nxt["optimal_actions"]) == {"(unlock k1 r2 r3)"}
            assert {v["action"]: v["h_star_after"] for v in nxt["actions"]} == {
                a: dist.get(o.successor(state, a)) for a in o.applicable(state)
            }
            # picked up, never dropped: true in the init, never true again from here
            assert (await ask("is_reachable", atom="(key-at k1 r2)"))["answer"] is False
            assert (await ask("is_reachable", atom="(robot-at r3)"))["answer"] is True  # witness replayed
            assert (await ask("is_action_reachable", action="(pick k1 r2)"))["answer"] is False
            assert (await ask("is_action_reachable", action="(pick k2 r3)"))["answer"] is True
            never = await ask("unreachable_atoms")
            assert never["complete"] and _names(never["items"]) == d.fluent - seen_atoms
            dead = await ask("unreachable_actions", limit=100_000)
            assert dead["complete"] and _names(dead["items"]) == o.ground_actions() - seen_actions
            expected = d.landmarks(state, graph, dist)
            found = await ask("landmarks")
            assert found["complete"] and _names(found["items"]) == expected
            assert "(door-open r2 r3)" in expected and "(robot-at r1)" not in expected
            assert (await ask("is_landmark", atom="(door-open r2 r3)"))["answer"] is True
            assert (await ask("is_landmark", atom="(robot-at r1)"))["answer"] is False  # in the init
            right = await ask("score_answer", task="nexta", response="(unlock k1 r2 r3)")
            wrong = await ask("score_answer", task="nexta", response="(walk r2 r1)")
            assert (right["score"], wrong["score"]) == (1, 0)
            episode = await ask("start_episode")
            assert episode["state"] == s and episode["h_star"] == 3
            assert episode["applicable_actions"] == o.applicable(state)
            taking = {
                tool.name for tool in (await client.list_tools()).tools if "state" in tool.input_schema["properties"]
            }
    assert asked == taking, taking ^ asked
    assert t.witnesses_checked >= 6


@pytest.mark.anyio
async def test_from_a_dead_end_no_plan_and_no_optimal_action() -> None:
    """The tools that search for the goal, from a state where it is out of reach (the init has a plan)."""
    d = Doors()
    s = d.names(d.at(SLAMMED))
    assert d.oracle.distances(d.at(SLAMMED)) == {}
    with anyio.fail_after(CALL_TIMEOUT):
        async with Client(build_server(ServerConfig())) as client:
            t = Tools(client)
            tid = (await t.ok("load_task", domain=d.domain, problem=d.problem))["task_id"]
            none = await t.ok("plan", task_id=tid, state=s)
            nxt = await t.ok("optimal_next_action", task_id=tid, state=s, table=True)
            reach = await t.ok("is_reachable", task_id=tid, atom="(robot-at r2)", state=s)
            episode = await t.ok("start_episode", task_id=tid, state=s)
    assert none["answer"] is False and none["plan"] is None and none["how"] != "unknown"
    assert nxt["h_star"] is None and nxt["optimal_actions"] == [] and nxt["known"]
    assert all(v["h_star_after"] is None and v["optimal"] is False for v in nxt["actions"])
    assert reach["answer"] is False
    assert episode["h_star"] is None and episode["h_star_known"]
