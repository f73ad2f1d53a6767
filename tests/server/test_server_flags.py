"""`acptools-server --http-path` and `--default-budget` on a real streamable-HTTP server process."""

from __future__ import annotations

import subprocess
import sys

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.support.load import slack
from tests.support.mcp_client import Tools
from tests.support.server_procs import clean_env, start_http, stop_process

CALL_TIMEOUT = 90


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_http_path_and_default_budget(tmp_path) -> None:
    (tmp_path / "tmp").mkdir()
    proc, url = start_http(tmp_path, "--http-path", "/planning/v1", "--default-budget", "7.5")
    base = url.removesuffix("/mcp")
    try:
        old = httpx2.post(
            base + "/mcp", json={}, headers={"Accept": "application/json, text/event-stream"}, timeout=slack(10)
        )
        assert old.status_code == 404  # the default path is no longer served
        with anyio.fail_after(CALL_TIMEOUT):
            async with httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=120)) as http:
                async with Client(streamable_http_client(base + "/planning/v1", http_client=http)) as client:
                    t = Tools(client)
                    info = await t.ok("server_info")
                    instructions = client.instructions
                    tid = await t.load_example("ferry")
                    assert (await t.ok("optimal_next_action", task_id=tid))["h_star"] == 4  # no budget given
    finally:
        stop_process(proc)
    assert info["limits"]["default_budget"] == 7.5
    assert "`budget` is search seconds (default 7.5," in instructions


@pytest.mark.parametrize(
    "args,message",
    [
        (["--default-budget", "0"], "--default-budget: Input should be greater than 0"),
        (["--default-budget", "5000", "--max-budget", "60"], "must not exceed the maximum budget"),
        (["--http-path", "planning"], "http_path must start with '/'"),
    ],
)
def test_bad_flags_are_refused_clearly(args, message):
    proc = subprocess.run(
        [sys.executable, "-m", "acptools_server", "--transport", "streamable-http", *args],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode != 0 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
