"""The MCP server on numeric tasks over stdio (`acptools-server` as a subprocess): list_applicable,
progress (with its numeric effects), validate_plan and simplify_plan agree with the independent numeric
oracle along a walk, states go in and out as `(= (f o) v)`, and areach answers (test_numeric_search_server.py
checks every search tool)."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import anyio
import pytest
from mcp import Client, StdioServerParameters, stdio_client

from acptools import load_task
from tests.server.test_server_transports import REPO, server_command
from tests.support.load import slack
from tests.support.numeric_corpus import CORPUS, numeric_families, problems
from tests.support.numeric_oracle import load_task as load_oracle
from tests.support.server_procs import clean_env

FAMILIES = numeric_families()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def call(client: Client, name: str, **args) -> tuple[bool, dict | str]:
    result = await client.call_tool(name, args)
    text = result.content[0].text
    if result.is_error:
        assert "Traceback" not in text and "internal error" not in text, text
        return False, text
    return True, json.loads(text)


def oracle_strings(ostate, oracle, shown: set[str]) -> set[str]:
    """The oracle's atoms that a state of ours lists (fluent and derived ones)."""
    return {a for a in ostate.atoms | oracle.derived_atoms(ostate) if a in shown}


async def check_family(client: Client, family: str) -> None:
    domain, problem = CORPUS / family / "domain.pddl", problems(family)[0]
    oracle = load_oracle(domain, problem)
    task = load_task(domain, problem).grounded
    # the atoms a state lists (not the comparison atoms, which the values decide)
    fluent = {n for i, n in enumerate(task.atom_names) if not task.numeric.comparison_mask >> i & 1}
    ok, loaded = await call(client, "load_task", domain=domain.read_text(), problem=problem.read_text())
    assert ok, loaded
    tid = loaded["task_id"]
    rng = random.Random(7)
    state, theirs, plan = None, oracle.init, []
    for _ in range(6):
        ok, app = await call(client, "list_applicable", task_id=tid, **({"state": state} if state else {}))
        assert ok and set(app["actions"]) == oracle.applicable(theirs), (family, app)
        if not app["actions"]:
            break
        action = rng.choice(sorted(app["actions"]))
        ok, step = await call(client, "progress", task_id=tid, action=action, **({"state": state} if state else {}))
        after = oracle.apply(theirs, action)
        assert ok and step["applicable"], step
        changed = {k for k in set(theirs.values) | set(after.values) if theirs.value(k) != after.value(k)}
        reported = {e.split(":")[0] for e in step["numeric_effects"]}
        listed = {
            e[3:-1].rsplit(" ", 1)[0]: Fraction(e[3:-1].rsplit(" ", 1)[1]) for e in step["state"] if e[:3] == "(= "
        }
        assert reported <= changed and {k for k in changed if k in listed} <= reported, (step, changed)
        assert all(after.value(k) == v for k, v in listed.items()), (listed, after)
        assert {e for e in step["state"] if e[:3] != "(= "} == oracle_strings(after, oracle, fluent)
        state, theirs, plan = step["state"], after, plan + [action]
    ok, val = await call(client, "validate_plan", task_id=tid, plan=plan)
    check = oracle.validate(plan)
    assert ok and val["first_inapplicable"] == check.failed_at and val["goal_reached"] == check.goal_reached
    ok, just = await call(client, "simplify_plan", task_id=tid, plan=plan)
    assert ok
    for removal in just["removable"]:
        shortened = [a for i, a in enumerate(plan) if i not in removal["indices"]]
        assert oracle.validate(shortened).goal_reached
    ok, areach = await call(client, "is_action_reachable", task_id=tid, action=sorted(task.possible_actions())[0])
    assert ok, areach


@pytest.mark.anyio
async def test_the_exact_tools_answer_numeric_tasks_over_stdio(tmp_path) -> None:
    cmd = server_command()
    params = StdioServerParameters(
        command=cmd[0], args=[*cmd[1:], "--log-level", "WARNING"], cwd=str(REPO), env=clean_env(ACPTOOLS_CACHE="off")
    )
    with anyio.fail_after(slack(240)):
        async with Client(stdio_client(params)) as client:
            for family in FAMILIES:
                await check_family(client, family)
