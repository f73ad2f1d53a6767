"""Tests of the MCP server infrastructure (server/): config, transports, auth, path guard, cache.

All tests are real: in-process MCP client, real subprocesses over stdio and streamable HTTP,
and (where Node.js is present) the official MCP Inspector CLI from tools/node.  Every wait is bounded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from acptools_server import ConfigError, PathAccessError, ServerConfig, build_server, resolve_under_root
from acptools_server.app import parse_args
from acptools_server.config import Limits, is_loopback_host
from acptools_server.holdings import ToolCache, ToolCacheMiss
from acptools_server.tools.common import tool
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver.exceptions import ToolError

from tests.support.load import slack
from tests.support.node_tools import NO_NODE, NODE_MISSING, node_bin
from tests.support.server_procs import clean_env, free_port, stop_process, wait_for_port

REPO = Path(__file__).resolve().parents[2]
CALL_TIMEOUT = 60  # seconds, for any whole client interaction


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# ---------------------------------------------------------------------------
# (a) in-process client
# ---------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_inprocess_server_info_and_tool_listing(mode: str, tmp_path: Path) -> None:
    config = ServerConfig(
        root=tmp_path, limits=Limits(max_tasks=3, max_episodes=4, max_pddl_bytes=5, max_plan_length=6)
    )
    with anyio.fail_after(CALL_TIMEOUT):
        async with Client(build_server(config), mode=mode) as client:
            assert client.server_info is not None and client.server_info.name == "acptools"
            listed = await client.list_tools()
            tools = {t.name: t for t in listed.tools}
            assert "server_info" in tools
            info_tool = tools["server_info"]
            assert info_tool.description and "limits" in info_tool.description
            assert info_tool.annotations is not None
            assert info_tool.annotations.read_only_hint is True
            assert info_tool.annotations.idempotent_hint is True
            assert info_tool.annotations.destructive_hint is False
            assert info_tool.output_schema is not None and "limits" in info_tool.output_schema["properties"]
            # wire format uses camelCase hints
            wire = info_tool.model_dump(by_alias=True, exclude_none=True)
            assert wire["annotations"]["readOnlyHint"] is True and wire["annotations"]["idempotentHint"] is True

            result = await client.call_tool("server_info", {})
    assert not result.is_error
    info = result.structured_content
    assert info is not None
    assert info["name"] == "acptools"
    assert info["transport"] == "stdio"
    assert info["filesystem_access"] is True
    assert info["root"] == str(tmp_path.resolve())
    assert {k: info["limits"][k] for k in ("max_tasks", "max_episodes", "max_pddl_bytes", "max_plan_length")} == {
        "max_tasks": 3,
        "max_episodes": 4,
        "max_pddl_bytes": 5,
        "max_plan_length": 6,
    }
    assert info["limits"] == config.limits.model_dump()
    assert info["version"]
    # unstructured content mirrors the structured result as JSON text
    assert json.loads(result.content[0].text) == info


@pytest.mark.anyio
async def test_tool_errors_reach_client_as_is_error_without_traceback(tmp_path: Path) -> None:
    """PathAccessError / ToolCacheMiss raised inside a tool -> isError + message; crashes are masked."""
    config = ServerConfig(root=tmp_path)
    mcp = build_server(config)
    cache: ToolCache[str, int] = ToolCache(1, kind="task")

    @mcp.tool()
    def read_under_root(path: str) -> str:
        return str(config.resolve_under_root(path))

    @mcp.tool()
    def get_task(task_id: str) -> int:
        return cache.get(task_id)

    @mcp.tool()
    @tool("Crash")  # acptools' own tool wrapper, which every server tool wears, masks the bug (mcp 2.0 would not)
    def crash() -> str:
        raise RuntimeError("internal detail that must not leak")

    @mcp.tool()
    @tool("Writes a state")  # a state (an int bit set) written in decimal: Python refuses, and that is a bug
    def writes_a_state() -> str:
        return str(1 << 20_000)

    with anyio.fail_after(CALL_TIMEOUT):
        async with Client(mcp) as client:
            ok = await client.call_tool("read_under_root", {"path": "sub/x.pddl"})
            escape = await client.call_tool("read_under_root", {"path": "../outside.pddl"})
            unknown = await client.call_tool("get_task", {"task_id": "t1"})
            crashed = await client.call_tool("crash", {})
            wrote = await client.call_tool("writes_a_state", {})
            bad_args = await client.call_tool("get_task", {})

    assert not ok.is_error and ok.structured_content == {"result": str(tmp_path.resolve() / "sub" / "x.pddl")}
    assert escape.is_error
    assert "outside the allowed root" in escape.content[0].text
    assert "Traceback" not in escape.content[0].text
    assert unknown.is_error and "unknown task 't1'" in unknown.content[0].text
    assert crashed.is_error and "internal error in crash (RuntimeError)" in crashed.content[0].text
    assert "must not leak" not in crashed.content[0].text
    assert wrote.is_error and "internal error in writes_a_state (ValueError)" in wrote.content[0].text
    assert "digits" not in wrote.content[0].text
    assert bad_args.is_error and "task_id" in bad_args.content[0].text


# ---------------------------------------------------------------------------
# (b) stdio subprocess
# ---------------------------------------------------------------------------


def _stdio_params(*args: str) -> StdioServerParameters:
    # The SDK passes only a safe subset of the environment; cwd=REPO makes `-m acptools_server` importable.
    return StdioServerParameters(
        command=sys.executable, args=["-m", "acptools_server", "--log-level", "WARNING", *args], cwd=str(REPO)
    )


@pytest.mark.anyio
async def test_stdio_subprocess_with_client() -> None:
    with anyio.fail_after(CALL_TIMEOUT):
        async with Client(stdio_client(_stdio_params("--max-plan-length", "77"))) as client:  # mcp 2.0 and 2.3
            names = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("server_info", {})
    assert "server_info" in names
    assert not result.is_error
    assert result.structured_content is not None
    assert result.structured_content["transport"] == "stdio"
    assert result.structured_content["filesystem_access"] is False
    assert result.structured_content["limits"]["max_plan_length"] == 77


@pytest.mark.anyio
async def test_stdio_subprocess_with_client_session() -> None:
    """The lower-level stdio_client + ClientSession API (explicit initialize handshake)."""
    with anyio.fail_after(CALL_TIMEOUT):
        async with stdio_client(_stdio_params("--max-episodes", "9")) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                result = await session.call_tool("server_info", {})
    assert init.server_info.name == "acptools"
    assert not result.is_error
    assert result.structured_content is not None
    assert result.structured_content["limits"]["max_episodes"] == 9


# ---------------------------------------------------------------------------
# (c) streamable HTTP with bearer token
# ---------------------------------------------------------------------------


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """`python -m acptools_server --transport streamable-http` on a free loopback port, token from ACPTOOLS_TOKEN."""
    token = "test-token-0123456789abcdef"
    port = free_port()
    log = tmp_path / "server.log"
    with open(log, "wb") as log_file:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "acptools_server",
                "--transport",
                "streamable-http",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--log-level",
                "WARNING",
                "--max-tasks",
                "11",
            ],
            cwd=REPO,
            env=clean_env(ACPTOOLS_TOKEN=token),
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(proc, port, log)
        yield f"http://127.0.0.1:{port}/mcp", token
    finally:
        stop_process(proc)


def test_http_requires_bearer_token(http_server: tuple[str, str]) -> None:
    url, token = http_server
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    missing = httpx2.post(url, json=body, headers=headers, timeout=slack(10))
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert "missing bearer token" in missing.json()["message"]

    wrong = httpx2.post(url, json=body, headers={**headers, "Authorization": "Bearer nope"}, timeout=slack(10))
    assert wrong.status_code == 401
    assert 'error="invalid_token"' in wrong.headers["www-authenticate"]

    # any other path is behind the same check
    assert httpx2.get(url.replace("/mcp", "/anything"), timeout=slack(10)).status_code == 401
    authed_404 = httpx2.get(
        url.replace("/mcp", "/anything"), headers={"Authorization": f"Bearer {token}"}, timeout=slack(10)
    )
    assert authed_404.status_code == 404
    # the auth scheme is case-insensitive (RFC 7235); other schemes are rejected
    lower = httpx2.get(
        url.replace("/mcp", "/anything"), headers={"Authorization": f"bearer {token}"}, timeout=slack(10)
    )
    assert lower.status_code == 404
    basic = httpx2.get(url, headers={"Authorization": f"Basic {token}"}, timeout=slack(10))
    assert basic.status_code == 401


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_http_sdk_client_with_token(http_server: tuple[str, str], mode: str) -> None:
    url, token = http_server
    with anyio.fail_after(CALL_TIMEOUT):
        async with httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=60)
        ) as http:
            async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
                tools = [t.name for t in (await client.list_tools()).tools]
                result = await client.call_tool("server_info", {})
    assert "server_info" in tools
    assert not result.is_error
    assert result.structured_content is not None
    assert result.structured_content["transport"] == "streamable-http"
    assert result.structured_content["limits"]["max_tasks"] == 11


@pytest.mark.anyio
async def test_http_sdk_client_without_token_fails(http_server: tuple[str, str]) -> None:
    url, _ = http_server
    with anyio.fail_after(CALL_TIMEOUT):
        with pytest.raises(Exception):  # MCPError("Server returned an error response") inside ExceptionGroups
            async with Client(url):
                pass


# ---------------------------------------------------------------------------
# (d) refuse non-loopback bind without token
# ---------------------------------------------------------------------------


def test_refuses_non_loopback_bind_without_token_subprocess() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "acptools_server", "--transport", "streamable-http", "--host", "0.0.0.0", "--port", "0"],
        cwd=REPO,
        env=clean_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=slack(30),
    )
    assert proc.returncode == 2
    assert "refusing to serve streamable-http on non-loopback host '0.0.0.0' without a bearer token" in proc.stderr
    assert "--token" in proc.stderr and "ACPTOOLS_TOKEN" in proc.stderr


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "example.com", ""])
def test_non_loopback_hosts_need_token(host: str) -> None:
    with pytest.raises(ConfigError, match="refusing"):
        parse_args(["--transport", "streamable-http", "--host", host], environ={})
    cfg = parse_args(["--transport", "streamable-http", "--host", host], environ={"ACPTOOLS_TOKEN": "abc123"})
    assert cfg.token_value() == "abc123"
    # --token wins over the environment
    cfg = parse_args(
        ["--transport", "streamable-http", "--host", host, "--token", "cli"], environ={"ACPTOOLS_TOKEN": "env"}
    )
    assert cfg.token_value() == "cli"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"])
def test_loopback_hosts_allowed_without_token(host: str) -> None:
    assert is_loopback_host(host)
    cfg = parse_args(["--transport", "streamable-http", "--host", host], environ={})
    assert cfg.token is None


def test_config_defaults_and_validation(tmp_path: Path) -> None:
    cfg = parse_args([], environ={})
    assert cfg.transport == "stdio" and cfg.host == "127.0.0.1" and cfg.root is None
    assert not cfg.filesystem_access
    assert "abc" not in repr(parse_args([], environ={"ACPTOOLS_TOKEN": "abc"}))  # token is a SecretStr
    with pytest.raises(ConfigError, match="--max-tasks"):
        parse_args(["--max-tasks", "0"], environ={})
    with pytest.raises(ConfigError, match="not an existing directory"):
        parse_args(["--root", str(tmp_path / "missing")], environ={})
    with pytest.raises(ConfigError, match="--token"):
        parse_args(["--token", "has space"], environ={})
    assert parse_args(["--log-level", "debug"], environ={}).log_level == "DEBUG"
    assert parse_args([], environ={"ACPTOOLS_LOG_LEVEL": "warning"}).log_level == "WARNING"
    assert parse_args(["--root", str(tmp_path)], environ={}).root == tmp_path.resolve()


# ---------------------------------------------------------------------------
# (e) resolve_under_root
# ---------------------------------------------------------------------------


def test_resolve_under_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "d.pddl").write_text("(define)")
    outside = tmp_path / "outside.pddl"
    outside.write_text("secret")
    (root / "link_out").symlink_to(outside)
    (root / "link_in").symlink_to(root / "sub" / "d.pddl")
    r = root.resolve()

    assert resolve_under_root("sub/d.pddl", root) == r / "sub" / "d.pddl"
    assert resolve_under_root(str(r / "sub" / "d.pddl"), root) == r / "sub" / "d.pddl"
    assert resolve_under_root("sub/../sub/d.pddl", root) == r / "sub" / "d.pddl"
    assert resolve_under_root("new/file.pddl", root) == r / "new" / "file.pddl"  # need not exist
    assert resolve_under_root("link_in", root) == r / "sub" / "d.pddl"
    assert resolve_under_root(".", root) == r

    for bad in [
        "../outside.pddl",
        "sub/../../outside.pddl",
        "../root_sibling",
        str(outside),
        "/etc/passwd",
        "link_out",
        "~/x",
    ]:
        with pytest.raises(PathAccessError, match="outside the allowed root"):
            resolve_under_root(bad, root)
    with pytest.raises(PathAccessError, match="NUL"):
        resolve_under_root("a\x00b", root)
    with pytest.raises(PathAccessError, match="filesystem access is disabled"):
        resolve_under_root("sub/d.pddl", None)
    with pytest.raises(PathAccessError, match="filesystem access is disabled"):
        ServerConfig().resolve_under_root("x")
    # PathAccessError is a ValueError and a ToolError
    assert issubclass(PathAccessError, ValueError) and issubclass(PathAccessError, ToolError)


# ---------------------------------------------------------------------------
# (f) cache
# ---------------------------------------------------------------------------


def test_bounded_cache_evicts_lru() -> None:
    cache: ToolCache[str, int] = ToolCache(2, kind="episode")
    assert cache.put("a", 1) == []
    assert cache.put("b", 2) == []
    assert cache.get("a") == 1  # "a" becomes most recently used
    assert cache.put("c", 3) == ["b"]
    assert "b" not in cache and len(cache) == 2 and cache.keys() == ["a", "c"]

    with pytest.raises(ToolCacheMiss) as evicted:
        cache.get("b")
    assert evicted.value.evicted is True and evicted.value.key == "b"
    assert "evicted" in str(evicted.value) and "at most 2 episodes" in str(evicted.value)
    assert isinstance(evicted.value, KeyError) and isinstance(evicted.value, ToolError)

    with pytest.raises(ToolCacheMiss) as unknown:
        cache.get("zzz")
    assert unknown.value.evicted is False and str(unknown.value) == "unknown episode 'zzz'"

    # replacing an existing key does not evict; re-adding an evicted key makes it known again
    assert cache.put("a", 10) == []
    assert cache.put("b", 20) == ["c"]
    assert cache.get("b") == 20 and cache.get("a") == 10
    assert cache.pop("a") == 10 and "a" not in cache
    with pytest.raises(ToolCacheMiss):
        cache.pop("a")
    with pytest.raises(ValueError):
        ToolCache(0)


def test_bounded_cache_thread_safety() -> None:
    cache: ToolCache[int, int] = ToolCache(50)
    errors: list[BaseException] = []

    def worker(offset: int) -> None:
        try:
            for i in range(2000):
                key = offset * 10_000 + i
                cache.put(key, i)
                try:
                    assert cache.get(key) == i
                except ToolCacheMiss:
                    pass  # evicted by another thread in between: allowed
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=slack(60))
    assert not errors
    assert len(cache) == 50


# ---------------------------------------------------------------------------
# MCP Inspector CLI (official Node tool) against the stdio server
# ---------------------------------------------------------------------------


def _inspector(*args: str) -> dict:
    cmd = [node_bin("mcp-inspector"), "--cli", sys.executable, "-m", "acptools_server", *args]
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
def test_mcp_inspector_cli() -> None:
    listed = _inspector("--method", "tools/list")
    tool = next(t for t in listed["tools"] if t["name"] == "server_info")
    assert tool["annotations"]["readOnlyHint"] is True
    assert tool["annotations"]["idempotentHint"] is True

    # server flags that do not collide with inspector flags pass through to the server
    called = _inspector("--max-tasks", "5", "--method", "tools/call", "--tool-name", "server_info")
    assert called["isError"] is False
    assert called["structuredContent"]["limits"]["max_tasks"] == 5
