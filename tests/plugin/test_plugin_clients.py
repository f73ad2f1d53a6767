"""The plugin and the bundle checked by the MCP clients' own tools (tools/node: Claude Code, the MCPB CLI),
each in a throwaway HOME: `claude plugin validate`, marketplace add + install + `claude mcp list`
(`✔ Connected`), `claude mcp add`, `mcpb validate` / `pack`, and the packed bundle's server started as its
manifest says. A first start connects before its venv exists (the build held back by its lock); the real
first start, which builds the venv from PyPI while a `claude -p` session waits for its tool call, is
`-m slow`; the other starts reuse this test run's own venv (ACPTOOLS_PLUGIN_VENV), the launcher's fast
path."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from acptools import __version__
from tests.support.load import slack
from tests.support.node_tools import NO_NODE, NODE_MISSING, node_bin
from tests.support.plugin_files import (
    REPO,
    TEST_VENV,
    TOOL_PREFIX,
    build_held,
    lay_out_ready_venv,
    read_json,
    tree_copy,
    venv_script,
)
from tests.support.scripted_api import ScriptedModel

pytestmark = pytest.mark.skipif(NODE_MISSING, reason=NO_NODE)
CONNECTED = "✔ Connected"
HANDSHAKE_TOOLS = read_json("plugin/handshake.json")["lists"]["tools/list"]["tools"]


def client_env(home: Path, **extra: str) -> dict[str, str]:
    """A fresh user for the client: its own HOME, none of the caller's Claude or acptools settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CLAUDE", "ANTHROPIC", "ACPTOOLS_", "MCP_")) and k != "XDG_CACHE_HOME"
    }
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        ACPTOOLS_CACHE="off",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        **extra,
    )
    return env


def claude(env: dict[str, str], *args: str, cwd: Path, timeout: float = 300) -> str:
    done = subprocess.run(
        [node_bin("claude"), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"claude {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


def server_line(listing: str, name: str) -> str:
    lines = [line for line in listing.splitlines() if line.startswith(f"{name}:")]
    assert len(lines) == 1, listing
    return lines[0]


def needs_test_venv() -> None:
    if not venv_script("acptools-server").exists():
        pytest.skip(f"the tests run outside a virtualenv with acptools installed ({TEST_VENV})")


def test_claude_plugin_validate_finds_no_problem(tmp_path: Path) -> None:
    out = claude(
        client_env(tmp_path / "home"),
        "plugin",
        "validate",
        str(REPO),
        "--json",
        "--profile",
        "directory",
        "--strict",
        cwd=REPO,
    )
    report = json.loads(out)
    assert report["success"] is True
    assert report["manifest"]["errors"] == [] and report["manifest"]["warnings"] == []
    directory = report["directory"]
    assert directory["findings"] == [] and directory["undecided"] == [] and directory["failure"] is None
    assert report["provides"]["mcpServers"][0]["name"] == "acptools"
    assert sorted(report["provides"]["skills"]) == [
        "acptools:pddl-debugging",
        "acptools:plan-act-check",
        "acptools:planner-evaluation",
    ]
    manifest = json.loads(
        claude(
            client_env(tmp_path / "home"),
            "plugin",
            "validate",
            str(REPO / ".claude-plugin" / "plugin.json"),
            "--json",
            "--strict",
            cwd=REPO,
        )
    )
    assert manifest["manifest"]["type"] == "plugin" and manifest["success"] is True
    assert manifest["manifest"]["errors"] == [] and manifest["manifest"]["warnings"] == []
    assert [h["host"] for h in manifest["hosts"]["named"]] == ["files.pythonhosted.org", "pypi.org"]


def install_plugin(tmp_path: Path, **env: str) -> tuple[dict[str, str], Path]:
    """A user who adds this repository as a marketplace and installs the plugin from it."""
    source = tree_copy(tmp_path / "acptools")
    user = client_env(tmp_path / "home", **env)
    work = tmp_path / "work"
    work.mkdir()
    added = claude(user, "plugin", "marketplace", "add", str(source), cwd=work)
    assert "Successfully added marketplace: acptools" in added, added
    installed = claude(user, "plugin", "install", "acptools@acptools", cwd=work)
    assert "Successfully installed plugin: acptools@acptools" in installed, installed
    return user, work


def timed_mcp_list(user: dict[str, str], work: Path) -> tuple[str, float]:
    started = time.monotonic()
    listing = claude(user, "mcp", "list", cwd=work, timeout=1800)
    return server_line(listing, "plugin:acptools:acptools"), time.monotonic() - started


def test_marketplace_install_then_the_plugin_server_connects(tmp_path: Path) -> None:
    needs_test_venv()
    user, work = install_plugin(tmp_path, ACPTOOLS_PLUGIN_VENV=str(TEST_VENV))
    line, seconds = timed_mcp_list(user, work)
    assert CONNECTED in line and "plugin/launch.py" in line, line
    print(f"plugin server, a start with its venv ready: `claude mcp list` {seconds:.1f} s")
    details = claude(user, "plugin", "details", "acptools@acptools", cwd=work)
    assert re.search(r"Skills \(3\)\s+pddl-debugging, plan-act-check, planner-evaluation", details), details
    always_on = int(re.search(r"Always-on:\s+~(\d+) tok", details).group(1))
    assert always_on < 500, f"the plugin adds ~{always_on} tokens to every session:\n{details}"


def test_the_first_mcp_list_connects_while_the_venv_is_not_built(tmp_path: Path) -> None:
    """Claude Code's own defaults (30 s to connect, 5 s for the tools): the launcher answers from its
    recorded handshake while the build waits (its lock held here), then execs the server once it is ready."""
    needs_test_venv()
    venv = tmp_path / "venv"
    with build_held(venv):
        user, work = install_plugin(tmp_path, ACPTOOLS_PLUGIN_VENV=str(venv))
        line, first = timed_mcp_list(user, work)
        assert CONNECTED in line, line
        assert not venv.exists()
        lay_out_ready_venv(venv, __version__)
    line, second = timed_mcp_list(user, work)
    assert CONNECTED in line, line
    print(
        f"plugin server: first `claude mcp list` before the venv exists {first:.1f} s, "
        f"with the venv ready {second:.1f} s (load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
    )


def session_calls_list_examples(user: dict[str, str], work: Path) -> tuple[list[str], str]:
    """A `claude -p` session whose model (scripted, on a local HTTP server) calls the plugin's
    list_examples once: the plugin's tools it was shown, and the tool result it got."""
    tool = f"{TOOL_PREFIX}list_examples"

    def script(api: str, body: dict):
        results = [
            b
            for m in body["messages"]
            if isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "tool_result"
        ]
        return "done" if results else [{"type": "tool_use", "name": tool, "input": {}}]

    with ScriptedModel(script) as model:
        env = dict(user, ANTHROPIC_BASE_URL=model.url, ANTHROPIC_API_KEY="sk-test", ENABLE_TOOL_SEARCH="false")
        claude(env, "-p", "list the examples", "--allowedTools", tool, cwd=work, timeout=1800)
    shown = [t["name"] for t in model.requests[0][1]["tools"] if t["name"].startswith(TOOL_PREFIX)]
    results = [
        b
        for m in model.requests[-1][1]["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert len(results) == 1, results
    content = results[0]["content"]
    return shown, content if isinstance(content, str) else json.dumps(content)


@pytest.mark.slow
def test_first_start_connects_at_once_and_serves_tool_calls_once_built(tmp_path: Path) -> None:
    """A fresh HOME, Claude Code's default wait: the first `claude mcp list` says Connected while the venv
    builds from PyPI; a session started then sees the tools and its tool call is answered once the build
    is done; the next start uses the venv without building it again."""
    user, work = install_plugin(tmp_path)
    load = os.getloadavg()[0]
    first_line, first = timed_mcp_list(user, work)
    assert CONNECTED in first_line, first_line
    started = time.monotonic()
    shown, result = session_calls_list_examples(user, work)
    session = time.monotonic() - started
    assert sorted(shown) == sorted(TOOL_PREFIX + t["name"] for t in HANDSHAKE_TOOLS), shown
    assert '"examples"' in result and "ferry" in result, result
    venvs = list((tmp_path / "home" / ".claude" / "plugins" / "data").glob("*/venv"))
    assert len(venvs) == 1, venvs  # in Claude Code's data folder for the plugin
    installed = list(venvs[0].glob(f"lib/python3*/site-packages/acptools-{__version__}.dist-info"))
    assert len(installed) == 1, list(venvs[0].glob("lib/python3*/site-packages/acptools*"))
    built = installed[0].stat().st_mtime_ns
    second_line, second = timed_mcp_list(user, work)
    print(
        f"plugin server, first start: `claude mcp list` {first:.1f} s; a session's first tool call "
        f"answered after {session:.0f} s (the build); second start {second:.1f} s "
        f"(load {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
    )
    assert CONNECTED in second_line, second_line
    assert installed[0].stat().st_mtime_ns == built, "the second start rebuilt the venv"


def strings_in(value: object):
    """Every string inside a JSON value (an API request's messages)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (dict, list)):
        for item in value.values() if isinstance(value, dict) else value:
            yield from strings_in(item)


def test_a_skills_allowed_tools_let_its_own_commands_run(tmp_path: Path) -> None:
    """A `claude -p` session whose scripted model invokes planner-evaluation, then runs the skill's first
    rollout command exactly as the loaded skill spells it (Claude Code fills in ${CLAUDE_PLUGIN_DATA}):
    it runs without asking; an acptools command the skill does not teach still needs approval."""
    needs_test_venv()
    user, work = install_plugin(tmp_path, ACPTOOLS_PLUGIN_VENV=str(TEST_VENV))
    data = tmp_path / "home" / ".claude" / "plugins" / "data" / "acptools-acptools"
    data.mkdir(parents=True, exist_ok=True)
    (data / "venv").symlink_to(TEST_VENV)  # where the plugin's first start puts its venv
    taught = re.compile(r"^(\S+/venv/bin/acptools) (rollout --tasks acpbench-hard:dev:nexta --policy optimal)$", re.M)

    def script(api: str, body: dict):
        done = sum(
            b.get("type") == "tool_result"
            for m in body["messages"]
            if isinstance(m["content"], list)
            for b in m["content"]
        )
        found = [m.groups() for text in strings_in(body["messages"]) for m in taught.finditer(text)]
        if done == 0:
            return [{"type": "tool_use", "name": "Skill", "input": {"skill": "acptools:planner-evaluation"}}]
        if done > 2 or not found:
            return "done"
        command = " ".join(found[0]) if done == 1 else f"{found[0][0]} examples"
        return [{"type": "tool_use", "name": "Bash", "input": {"command": command, "description": "run"}}]

    with ScriptedModel(script) as model:
        env = dict(user, ANTHROPIC_BASE_URL=model.url, ANTHROPIC_API_KEY="sk-test", ENABLE_TOOL_SEARCH="false")
        report = json.loads(
            claude(
                env,
                "-p",
                "evaluate the optimal policy",
                "--output-format",
                "json",
                "--allowedTools",
                "Skill",
                cwd=work,
                timeout=600,
            )
        )
    calls = {
        b["id"]: b["input"].get("command")
        for m in model.requests[-1][1]["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_use"
    }
    results = {
        b["tool_use_id"]: b
        for m in model.requests[-1][1]["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    }
    ran = {calls[i]: json.dumps(results[i]["content"]) for i in calls if calls[i]}
    rollout = f"{data / 'venv' / 'bin' / 'acptools'} rollout --tasks acpbench-hard:dev:nexta --policy optimal"
    assert "40 episodes of optimal" in ran[rollout], ran
    assert [d["tool_input"]["command"] for d in report["permission_denials"]] == [
        f"{data / 'venv' / 'bin' / 'acptools'} examples"
    ], report["permission_denials"]


def test_claude_mcp_add_then_the_server_connects(tmp_path: Path) -> None:
    needs_test_venv()
    user = client_env(tmp_path / "home")
    user["PATH"] = f"{venv_script('acptools-server').parent}{os.pathsep}{user['PATH']}"
    claude(user, "mcp", "add", "acptools", "--", "acptools-server", cwd=tmp_path)
    assert CONNECTED in server_line(claude(user, "mcp", "list", cwd=tmp_path), "acptools")


def test_mcpb_validate_and_pack_then_the_bundle_serves(tmp_path: Path) -> None:
    needs_test_venv()
    bundle = tmp_path / "acptools.mcpb"
    built = subprocess.run(
        [sys.executable, "scripts/build_mcpb.py", "--out", str(bundle)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    assert "Manifest schema validation passes!" in built.stdout and "ERROR" not in built.stdout
    unpacked = tmp_path / "unpacked"
    zipfile.ZipFile(bundle).extractall(unpacked)
    validated = subprocess.run(
        [node_bin("mcpb"), "validate", str(unpacked / "manifest.json")], capture_output=True, text=True, timeout=120
    )
    assert validated.returncode == 0 and "ERROR" not in validated.stdout, validated.stdout + validated.stderr
    manifest = json.loads((unpacked / "manifest.json").read_text())
    listed = anyio.run(list_bundle_tools, manifest, unpacked)
    assert listed == {t["name"] for t in manifest["tools"]}


async def list_bundle_tools(manifest: dict, unpacked: Path) -> set[str]:
    """Start the server as Claude Desktop would from the manifest (${__dirname} is the unpacked folder);
    initialize and list the tools."""
    config = manifest["server"]["mcp_config"]
    args = [a.replace("${__dirname}", str(unpacked)) for a in config["args"]]
    env = client_env(unpacked.parent / "home", ACPTOOLS_PLUGIN_VENV=str(TEST_VENV), **config.get("env", {}))
    params = StdioServerParameters(command=config["command"], args=args, env=env, cwd=str(unpacked.parent))
    with anyio.fail_after(slack(120)):
        async with Client(params) as client:
            assert client.server_info.name == "acptools"
            assert client.server_info.version == __version__
            return {tool.name for tool in (await client.list_tools()).tools}
