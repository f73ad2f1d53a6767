"""Tool profiles and allow-lists, bundled example ids for stateless clients, the size of tools/list, and the
tool functions called directly (no client): everything over real processes where a client would see it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from acptools_server import ConfigError, ServerConfig
from acptools_server.app import parse_args
from acptools_server.config import ANSWERS, POLICY_HIDDEN, TOOL_NAMES, hidden_by_profile
from acptools_server.state import ServerState, local_context
from acptools_server.tools import episodes, questions, scoring, tasks
from mcp import Client, StdioServerParameters, stdio_client
from mcp.server.mcpserver.exceptions import ToolError

from acptools import examples, load_task
from tests.support.load import slack
from tests.support.mcp_client import EXPECTED_TOOLS
from tests.support.node_tools import NO_NODE, NODE_MISSING, node_bin
from tests.support.server_procs import clean_env

REPO = Path(__file__).resolve().parents[2]
CALL_TIMEOUT = 90
# 19 tools with their input and output schemas (partial lists, nexta bounds and named actions included);
# descriptions are held short one by one below, so this grows only with what the tools return
MAX_TOOLS_LIST_BYTES = 22_000
FERRY_ID = load_task(*examples.texts("ferry")).id
# tools that hand an agent an optimal action, a plan, or a grade of its own step
ANSWER_GIVING = {
    "optimal_next_action",
    "plan",
    "is_reachable",
    "is_action_reachable",
    "is_landmark",
    "simplify_plan",
    "score_answer",
    "start_episode",
    "step_episode",
    "episode_summary",
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def stdio(*args: str):
    """A stdio transport to a fresh server (mcp's Client takes a transport in 2.0 as in 2.3)."""
    return stdio_client(
        StdioServerParameters(
            command=sys.executable, args=["-m", "acptools_server", "--log-level", "WARNING", *args], cwd=str(REPO)
        )
    )


# ---------------------------------------------------------------------------
# profiles and allow-lists over stdio, with the official client
# ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_policy_profile_lists_no_answer_giving_tool() -> None:
    with anyio.fail_after(CALL_TIMEOUT):
        async with Client(stdio("--profile", "policy")) as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            info = (await client.call_tool("server_info", {})).structured_content
            hidden = await client.call_tool("optimal_next_action", {"task_id": FERRY_ID})
            applicable = await client.call_tool("list_applicable", {"task_id": FERRY_ID})
            instructions = client.instructions
    assert listed and not listed & ANSWER_GIVING, listed & ANSWER_GIVING
    assert {"load_task", "list_applicable", "progress", "validate_plan"} <= listed
    assert info["profile"] == "policy" and set(info["hidden_tools"]) == ANSWER_GIVING
    assert hidden.is_error and "Unknown tool" in hidden.content[0].text
    assert not applicable.is_error and applicable.structured_content["total"] == 3
    assert "profile 'policy'" in instructions


@pytest.mark.anyio
async def test_tools_allow_list_and_qa_profile_over_stdio() -> None:
    with anyio.fail_after(CALL_TIMEOUT):
        async with Client(stdio("--tools", "server_info,progress,list_applicable")) as client:
            allowed = {t.name for t in (await client.list_tools()).tools}
            info = (await client.call_tool("server_info", {})).structured_content
        async with Client(stdio("--profile", "qa:reach+land")) as client:
            qa_kind = {t.name for t in (await client.list_tools()).tools}
        async with Client(stdio("--profile", "qa")) as client:
            qa = {t.name for t in (await client.list_tools()).tools}
    assert allowed == {"server_info", "progress", "list_applicable"}
    assert info["profile"] is None and set(info["hidden_tools"]) == set(TOOL_NAMES) - allowed
    assert not qa_kind & {"is_reachable", "unreachable_atoms", "is_landmark", "landmarks", "score_answer"}
    assert {"list_applicable", "progress", "optimal_next_action"} <= qa_kind
    assert qa == {"server_info", "list_examples", "load_task"}


def test_profile_and_allow_list_configuration() -> None:
    assert set(ANSWERS) == EXPECTED_TOOLS  # the profile table knows every tool
    assert POLICY_HIDDEN <= set(TOOL_NAMES) and hidden_by_profile("policy") == ANSWER_GIVING
    # a tool that answers a kind (outright or by probing) is hidden for it
    assert {"list_applicable", "progress", "validate_plan", "optimal_next_action"} <= hidden_by_profile("qa:app")
    assert hidden_by_profile("qa:applicable_actions_gen") == hidden_by_profile("qa:app")  # group names work
    assert "progress" not in hidden_by_profile("qa:nexta")
    config = parse_args(["--profile", "policy", "--tools", "load_task,plan,progress"], environ={})
    assert config.visible_tools() == ("load_task", "progress")  # the profile still hides plan
    for argv, message in (
        (["--profile", "cheat"], "--profile: unknown profile 'cheat'"),
        (["--profile", "qa:nextaction"], "unknown task 'nextaction'"),
        (["--tools", "list_aplicable"], "--tools: unknown tool(s) 'list_aplicable' (did you mean 'list_applicable'?)"),
    ):
        with pytest.raises(ConfigError, match=re.escape(message)):
            parse_args(argv, environ={})


# ---------------------------------------------------------------------------
# stateless clients: a bundled example id is a task_id without load_task
# ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_stateless_call_on_a_bundled_example_id() -> None:
    """Each call on a fresh server process, as the Inspector CLI does: no load_task before it."""
    with anyio.fail_after(CALL_TIMEOUT):
        async with Client(stdio()) as client:
            examples_listed = (await client.call_tool("list_examples", {})).structured_content["examples"]
        async with Client(stdio()) as client:
            by_id = await client.call_tool("list_applicable", {"task_id": FERRY_ID})
        async with Client(stdio()) as client:
            by_name = await client.call_tool("progress", {"task_id": "example:ferry", "action": "(board c0 l0)"})
            unknown = await client.call_tool("progress", {"task_id": "example:ferri", "action": "(board c0 l0)"})
    assert {e["name"]: e["task_id"] for e in examples_listed}["ferry"] == FERRY_ID
    for e in examples_listed:  # the ids are the library's content hashes of the bundled PDDL
        assert e["task_id"] == load_task(*examples.texts(e["name"])).id
    assert not by_id.is_error and by_id.structured_content["actions"] == [
        "(board c0 l0)",
        "(sail l0 l1)",
        "(sail l0 l2)",
    ]
    assert not by_name.is_error and by_name.structured_content["positive_effects"] == ["(on c0)"]
    assert unknown.is_error and "no bundled example 'ferri'" in unknown.content[0].text


@pytest.mark.skipif(NODE_MISSING, reason=NO_NODE)
def test_inspector_cli_calls_a_tool_on_an_example_id_directly() -> None:
    cmd = [
        node_bin("mcp-inspector"),
        "--cli",
        sys.executable,
        "-m",
        "acptools_server",
        "--method",
        "tools/call",
        "--tool-name",
        "list_applicable",
        "--tool-arg",
        f"task_id={FERRY_ID}",
    ]
    proc = subprocess.run(
        cmd,
        cwd=REPO,
        env=clean_env(ACPTOOLS_LOG_LEVEL="WARNING"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    called = json.loads(proc.stdout)
    assert called["isError"] is False and called["structuredContent"]["total"] == 3


# ---------------------------------------------------------------------------
# the size of tools/list, as the bytes a stdio client receives
# ---------------------------------------------------------------------------


def _tools_list_bytes(*args: str) -> bytes:
    """The raw JSON-RPC response line to tools/list from a real server process."""
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "size-test", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    ]
    env = {**os.environ, "ACPTOOLS_LOG_LEVEL": "WARNING"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "acptools_server", *args],
        cwd=REPO,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        proc.stdin.write(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
        proc.stdin.flush()
        for line in proc.stdout:
            if json.loads(line).get("id") == 2:
                return line.rstrip(b"\n")
        raise AssertionError("no answer to tools/list")
    finally:
        proc.stdin.close()
        proc.terminate()
        proc.wait(timeout=slack(30))


@pytest.mark.anyio
async def test_tools_list_is_at_most_22_kb() -> None:
    wire = _tools_list_bytes()
    listed = json.loads(wire)["result"]["tools"]
    with anyio.fail_after(CALL_TIMEOUT):
        async with Client(stdio()) as client:
            result = await client.list_tools()
    as_client_sees_it = result.model_dump_json(by_alias=True, exclude_none=True).encode()
    print(f"\ntools/list: {len(wire)} bytes on the wire, {len(as_client_sees_it)} as the client's model")
    assert {t["name"] for t in listed} == EXPECTED_TOOLS
    assert len(wire) <= MAX_TOOLS_LIST_BYTES and len(as_client_sees_it) <= MAX_TOOLS_LIST_BYTES
    for tool in listed:  # short descriptions: what it does and its inputs, in at most 3 sentences
        assert 80 < len(tool["description"]) <= 200 and tool["description"].count(". ") <= 2, tool["description"]
    # the schemas stay usable: required arguments, types, nullable results
    by_name = {t["name"]: t for t in listed}
    assert by_name["progress"]["inputSchema"]["required"] == ["task_id", "action"]
    assert by_name["is_reachable"]["outputSchema"]["properties"]["answer"]["type"] == ["boolean", "null"]


# ---------------------------------------------------------------------------
# tool functions called directly, without a client
# ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_tool_functions_called_directly() -> None:
    state = ServerState.create(ServerConfig())
    ctx = local_context(state)
    loaded = await tasks.load_task(ctx, example="ferry")
    assert loaded.task_id == FERRY_ID and loaded.source == "example:ferry" and not loaded.cached
    assert tasks.server_info(ctx).tasks_loaded == 1
    library = load_task(*examples.texts("ferry")).questions

    applicable = questions.list_applicable(ctx, FERRY_ID, state=None)
    assert applicable.actions == library.applicable()
    reach = await questions.is_reachable(ctx, FERRY_ID, "(AT c0, l1)")
    assert reach.answer is True and reach.query == "(at c0 l1)"
    assert "(at c0 l1)" in library.validate(reach.witness).final_state  # the witness replays
    nexta = await questions.optimal_next_action(ctx, "example:ferry", budget=30)
    assert nexta.h_star == 4 and library.validate(nexta.plan).goal_reached
    graded = await scoring.score_answer(ctx, "val", "1", task_id=FERRY_ID, plan=["(sail l0 l1)", "(sail l0 l1)"])
    assert graded.score == 1

    with pytest.raises(ToolError, match=r"plan\[1\] '\(sial l0 l1\)': unknown action 'sial'"):
        questions.validate_plan(ctx, FERRY_ID, ["(board c0 l0)", "(sial l0 l1)"])
    with pytest.raises(ToolError, match=r"budget: 601 s is more than the server allows \(600 s\)"):
        await questions.plan(ctx, FERRY_ID, budget=601)

    # an episode through the library's Episode: steps graded, the summary counts what was decided
    start = await episodes.start_episode(ctx, FERRY_ID)
    eid = start.episode_id
    assert start.h_star == 4 and start.applicable_actions == library.applicable()
    bad = await episodes.step_episode(ctx, eid, "(fly c0)")
    assert bad.verdict == "hallucinated" and not bad.applied and bad.h_star_before == bad.h_star_after == 4
    for action in nexta.plan:
        step = await episodes.step_episode(ctx, eid, f"I move: {action}")
        assert step.applied and step.optimal and step.regret == 0
    summary = await episodes.episode_summary(ctx, eid)
    assert (
        summary.solved
        and summary.optimal_step_rate == 1.0
        and summary.invalid == {"inapplicable": 0, "unparsed": 0, "hallucinated": 1}
    )
    assert [h.verdict for h in summary.history] == ["hallucinated"] + ["applied"] * 4


@pytest.mark.anyio
async def test_episode_steps_of_unknown_optimality_are_counted_apart() -> None:
    """With no budget to speak of, h* is unknown: such steps are neither optimal nor non-optimal."""
    ctx = local_context(ServerState.create(ServerConfig()))
    grid = tasks.list_examples().examples
    grid_id = next(e.task_id for e in grid if e.name == "grid")
    start = await episodes.start_episode(ctx, grid_id, budget=1e-9)
    assert start.h_star is None and not start.h_star_known and start.how == "unknown"
    step = await episodes.step_episode(ctx, start.episode_id, start.applicable_actions[0], budget=1e-9)
    assert step.applied and step.optimal is None and step.regret is None and not step.h_star_known
    summary = await episodes.episode_summary(ctx, start.episode_id)
    assert summary.unknown_optimality_steps == 1 and summary.optimal_steps == 0
    assert summary.optimal_step_rate is None  # not 0.0: nothing was decided
