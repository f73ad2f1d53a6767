"""The search tools on a numeric task over stdio (`acptools-server` as a subprocess): reach, areach,
land, nexta, plan and the episode tools give real answers (no refusal, no traceback), and what they
claim agrees with the independent oracle (tests/support/numeric_oracle.py)."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client, StdioServerParameters, stdio_client

from tests.numeric.test_server_numeric import call
from tests.server.test_server_transports import REPO, server_command
from tests.support.load import slack
from tests.support.numeric_corpus import CORPUS
from tests.support.numeric_oracle import load_task as load_oracle
from tests.support.server_procs import clean_env

FAMILY, PROBLEM = "zenotravel", "p01.pddl"  # metric "cost": nexta and plan under action costs


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def ask_everything(client: Client) -> None:
    domain, problem = CORPUS / FAMILY / "domain.pddl", CORPUS / FAMILY / PROBLEM
    oracle = load_oracle(domain, problem)
    ok, loaded = await call(client, "load_task", domain=domain.read_text(), problem=problem.read_text())
    assert ok, loaded
    tid = loaded["task_id"]
    ok, atoms = await call(client, "unreachable_atoms", task_id=tid, budget=10)
    assert ok and atoms["complete"], atoms
    ok, actions = await call(client, "unreachable_actions", task_id=tid, budget=10)
    assert ok and actions["complete"], actions
    ok, lands = await call(client, "landmarks", task_id=tid, budget=10)
    assert ok and lands["complete"], lands
    for name in [item["name"] for item in lands["items"]]:
        assert oracle.is_landmark(name), name
        ok, one = await call(client, "is_landmark", task_id=tid, atom=name, budget=10)
        assert ok and one["answer"] is True, one
    ok, plan = await call(client, "plan", task_id=tid, budget=20)
    assert ok and plan["answer"] is True, plan
    assert oracle.validate(plan["plan"]).goal_reached
    assert oracle.plan_cost(plan["plan"]) == oracle.h_star()
    ok, quick = await call(client, "plan", task_id=tid, optimal=False, budget=20)
    assert ok and quick["answer"] is True and oracle.validate(quick["plan"]).goal_reached, quick
    ok, nexta = await call(client, "optimal_next_action", task_id=tid, budget=20)
    assert ok and nexta["known"] and nexta["h_star"] == oracle.h_star(), nexta
    first = plan["plan"][0]
    after = oracle.apply(oracle.init, first)
    atom = sorted(a for a in after.atoms if a not in oracle.init.atoms and a.startswith("("))[0]
    ok, reach = await call(client, "is_reachable", task_id=tid, atom=atom, budget=10)
    assert ok and reach["answer"] is True and oracle.holds(oracle.trajectory(reach["witness"])[-1], atom), reach
    ok, areach = await call(client, "is_action_reachable", task_id=tid, action=first, budget=10)
    assert ok and areach["answer"] is True, areach
    ok, episode = await call(client, "start_episode", task_id=tid, budget=20)
    assert ok and episode["h_star"] == oracle.h_star(), episode
    ok, step = await call(client, "step_episode", episode_id=episode["episode_id"], action=first, budget=20)
    assert ok and step["applied"], step


@pytest.mark.anyio
async def test_the_search_tools_answer_a_numeric_task_over_stdio() -> None:
    cmd = server_command()
    params = StdioServerParameters(
        command=cmd[0], args=[*cmd[1:], "--log-level", "WARNING"], cwd=str(REPO), env=clean_env(ACPTOOLS_CACHE="off")
    )
    with anyio.fail_after(slack(240)):
        async with Client(stdio_client(params)) as client:
            await ask_everything(client)
