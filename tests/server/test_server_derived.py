"""The MCP tools on a domain with derived predicates (axioms), through an in-process client: answers
compared with the independent oracle (tests/support/oracle.py evaluates the axioms itself), every
witness replayed by it, and a state that lists a derived atom which does not follow is a clean error."""

from __future__ import annotations

import anyio
import pytest
from acptools_server import ServerConfig, build_server
from mcp import Client

from tests.support.data import pddl_texts
from tests.support.mcp_client import CALL_TIMEOUT, Tools
from tests.support.oracle import Oracle


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_every_question_on_a_derived_goal_matches_the_oracle() -> None:
    domain, problem = pddl_texts("rooms-derived")
    oracle = Oracle(domain, problem)
    init = oracle.init_atoms()
    dist = oracle.distances(init)
    graph = oracle.graph(init)
    seen = set().union(*graph)
    with anyio.fail_after(CALL_TIMEOUT):
        async with Client(build_server(ServerConfig())) as client:
            t = Tools(client)
            tid = (await t.ok("load_task", domain=domain, problem=problem))["task_id"]
            app = await t.ok("list_applicable", task_id=tid)
            assert sorted(app["actions"]) == oracle.applicable(init)
            step = await t.ok("progress", task_id=tid, action="(switch-on s1 hall)")
            after = oracle.successor(init, "(switch-on s1 hall)")
            assert {"(lit hall)", "(lit kitchen)"} <= set(step["positive_effects"])
            assert set(step["negative_effects"]) == (init - after) & oracle.fluent_atoms()
            bad = await t.ok("validate_plan", task_id=tid, plan=["(walk hall kitchen)"])
            assert bad["first_inapplicable"] == 0 and "(not (dark kitchen))" in bad["unsatisfied_preconditions"]
            nexta = await t.ok("optimal_next_action", task_id=tid)
            assert nexta["h_star"] == dist[init]
            plan = await t.ok("plan", task_id=tid, optimal=True)
            assert len(plan["plan"]) == dist[init]
            for atom in ("(lit attic)", "(all-lit)", "(dark hall)"):
                v = await t.ok("is_reachable", task_id=tid, atom=atom)
                assert v["answer"] == (atom in seen)
            never = await t.ok("unreachable_atoms", task_id=tid)
            assert (
                never["complete"]
                and set(never["items"][i]["name"] for i in range(len(never["items"]))) == oracle.fluent_atoms() - seen
            )
            goals = {s for s, d in dist.items() if d == 0}
            lms = await t.ok("landmarks", task_id=tid)
            expected = {
                p
                for p in oracle.fluent_atoms() - init - {"(all-lit)"}
                if not Oracle.goal_reachable_avoiding(graph, goals, init, p)
            }
            assert lms["complete"] and {it["name"] for it in lms["items"]} == expected
            v = await t.ok("is_landmark", task_id=tid, atom="(lit kitchen)")
            assert v["answer"] == ("(lit kitchen)" in expected)
            longer = ["(switch-on s1 hall)", "(switch-off s1 hall)"] + plan["plan"]
            simple = await t.ok("simplify_plan", task_id=tid, plan=longer)
            cuts = [[i] for i in range(len(longer))] + [[i, i + 1] for i in range(len(longer) - 1)]
            valid = [c for c in cuts if _is_plan(oracle, init, [a for i, a in enumerate(longer) if i not in c])]
            assert sorted(r["indices"] for r in simple["removable"]) == sorted(valid) and [0, 1] in valid
            text = await t.err("list_applicable", task_id=tid, state=["(at hall)", "(lit study)"])
            assert "(lit study)" in text and "derived" in text
            assert t.witnesses_checked >= 3


def _is_plan(oracle: Oracle, init, plan: list[str]) -> bool:
    end = oracle.run(init, plan)
    return end is not None and oracle.is_goal(end)
