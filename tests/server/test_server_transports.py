"""The planning tools over real transports: `acptools-server` as a stdio subprocess, streamable HTTP on
loopback (with and without a bearer token), and the official MCP Inspector CLI.  Every wait is bounded."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from acptools import examples, load_task
from tests.support.data import records
from tests.support.load import slack
from tests.support.mcp_client import EXPECTED_TOOLS, Tools
from tests.support.node_tools import NO_NODE, NODE_MISSING, node_bin
from tests.support.server_procs import clean_env, free_port, stop_process, wait_for_port

REPO = Path(__file__).resolve().parents[2]
CALL_TIMEOUT = 90


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def server_command() -> list[str]:
    """The installed console script (CI installs the package); otherwise the same entry point by hand."""
    script = shutil.which("acptools-server")
    if script is not None:
        return [script]
    return [sys.executable, "-c", "import sys; from acptools_server.app import main; sys.exit(main())"]


async def _exercise(t: Tools) -> None:
    """A short agent session: load, inspect, act, plan, replay the plan, hit an error, keep going."""
    tid = await t.load_example("ferry")
    assert (await t.ok("list_applicable", task_id=tid))["actions"] == ["(board c0 l0)", "(sail l0 l1)", "(sail l0 l2)"]
    p = await t.ok("progress", task_id=tid, action="(board c0 l0)")
    assert p["positive_effects"] == ["(on c0)"]
    nxt = await t.ok("optimal_next_action", task_id=tid, budget=30)
    assert nxt["h_star"] == 4
    await t.replay_to_goal(tid, nxt["plan"])
    typo = await t.err("progress", task_id=tid, action="(bord c0 l0)")
    assert "did you mean 'board'" in typo
    assert (await t.ok("server_info"))["tasks_loaded"] == 1


@pytest.mark.anyio
async def test_stdio_console_script_serves_the_tools() -> None:
    cmd = server_command()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "--log-level", "WARNING"], cwd=str(REPO))
    record = next(r for r in records("test", "nexta") if str(r["answer"]["opt"]) == "65")
    with anyio.fail_after(slack(CALL_TIMEOUT)):
        async with Client(stdio_client(params)) as client:  # a transport: mcp 2.0 and 2.3 both take it
            t = Tools(client)
            assert EXPECTED_TOOLS <= {x.name for x in (await client.list_tools()).tools}
            await _exercise(t)
            # a client-side timeout cancels the search inside the server process
            hard = await t.load_record(record)
            with pytest.raises(MCPError, match="timed out"):
                await client.call_tool(
                    "optimal_next_action", {"task_id": hard, "budget": 120}, read_timeout_seconds=1.0
                )
            start = time.perf_counter()
            with anyio.fail_after(slack(30)):
                while (info := await t.ok("server_info"))["searches_running"]:
                    await anyio.sleep(0.1)
            assert info["searches_cancelled"] == 1 and time.perf_counter() - start < slack(25)
            assert (await t.ok("list_applicable", task_id=hard))["total"] > 0


@pytest.fixture
def http_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str | None]]:
    token: str | None = request.param
    port = free_port()
    log = tmp_path / "server.log"
    env = clean_env(**({"ACPTOOLS_TOKEN": token} if token else {}))
    with open(log, "wb") as log_file:
        proc = subprocess.Popen(
            [
                *server_command(),
                "--transport",
                "streamable-http",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--log-level",
                "WARNING",
            ],
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(proc, port, log)
        yield f"http://127.0.0.1:{port}/mcp", token
    finally:
        stop_process(proc)


@pytest.mark.anyio
@pytest.mark.parametrize("http_server", ["tools-token-0123456789", None], indirect=True, ids=["token", "no-token"])
async def test_streamable_http_on_loopback(http_server: tuple[str, str | None]) -> None:
    url, token = http_server
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if token:  # every request must carry the token, tool calls included
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "load_task", "arguments": {"example": "ferry"}},
        }
        denied = httpx2.post(
            url, json=body, headers={"Accept": "application/json, text/event-stream"}, timeout=slack(10)
        )
        assert denied.status_code == 401
    with anyio.fail_after(slack(CALL_TIMEOUT)):
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120)) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                t = Tools(client)
                await _exercise(t)
                domain, problem = examples.texts("rover")
                loaded = await t.ok("load_task", domain=domain, problem=problem)
                assert loaded["task_id"] == load_task(domain, problem).id
                info = await t.ok("server_info")
    assert info["transport"] == "streamable-http"


def _inspector(*args: str) -> dict:
    cmd = [node_bin("mcp-inspector"), "--cli", *server_command(), *args]
    proc = subprocess.run(
        cmd,
        cwd=REPO,
        env=clean_env(ACPTOOLS_LOG_LEVEL="WARNING"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return json.loads(proc.stdout)


@pytest.mark.skipif(NODE_MISSING, reason=NO_NODE)
def test_mcp_inspector_cli_lists_and_calls_planning_tools() -> None:
    listed = {t["name"]: t for t in _inspector("--method", "tools/list")["tools"]}
    assert EXPECTED_TOOLS <= set(listed)
    assert listed["list_applicable"]["annotations"]["readOnlyHint"] is True
    assert listed["step_episode"]["annotations"]["readOnlyHint"] is False
    assert "task_id" in listed["validate_plan"]["inputSchema"]["required"]
    called = _inspector("--method", "tools/call", "--tool-name", "load_task", "--tool-arg", "example=ferry")
    assert called["isError"] is False
    assert called["structuredContent"]["task_id"] == load_task(*examples.texts("ferry")).id
    assert called["structuredContent"]["init"] == ["(at c0 l0)", "(at c1 l1)", "(at-ferry l0)", "(empty-ferry)"]
