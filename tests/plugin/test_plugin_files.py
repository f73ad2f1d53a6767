"""The plugin's and bundles' files agree with the package: one version everywhere, every tool a skill
names exists in the server's tools/list, server.json is valid against the MCP registry's published schema
(a copy in plugin/schemas/), the launcher's recorded handshake is the server's own, and both CLIs print
the package's version."""

from __future__ import annotations

import base64
import copy
import json
import re
import subprocess
import sys

import anyio
import pytest
from acptools_server import ServerConfig
from acptools_server.app import build_server
from jsonschema import Draft7Validator, FormatChecker
from mcp import Client

from acptools import __version__
from tests.support.plugin_files import (
    REPO,
    SKILLS,
    TOOL_PREFIX,
    frontmatter,
    read_json,
    tools_named,
    tree_copy,
    venv_script,
)

SCHEMA = REPO / "plugin" / "schemas" / "server.schema.json"


def server_tool_names() -> set[str]:
    async def listed() -> set[str]:
        async with Client(build_server(ServerConfig())) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    return anyio.run(listed)


def test_every_manifest_carries_the_package_version() -> None:
    server_json = read_json("server.json")
    assert read_json(".claude-plugin/plugin.json")["version"] == __version__
    assert read_json("mcpb/manifest.json")["version"] == __version__
    assert server_json["version"] == __version__
    assert [p["version"] for p in server_json["packages"]] == [__version__]


def test_the_manifests_agree_on_name_repository_and_icon() -> None:
    plugin, bundle = read_json(".claude-plugin/plugin.json"), read_json("mcpb/manifest.json")
    market = read_json(".claude-plugin/marketplace.json")
    assert plugin["name"] == bundle["name"] == "acptools"
    assert [p["name"] for p in market["plugins"]] == ["acptools"] and market["plugins"][0]["source"] == "./"
    assert plugin["repository"] == bundle["repository"]["url"] == read_json("server.json")["repository"]["url"]
    # the plugin's icon is where the plugin directory looks without an `icon` field (a field some
    # `claude plugin validate` versions call unknown)
    assert "icon" not in plugin
    assert (REPO / ".claude-plugin" / "icon.png").read_bytes() == (REPO / "mcpb" / bundle["icon"]).read_bytes()
    mcp = read_json(".mcp.json")["mcpServers"]
    assert list(mcp) == ["acptools"] and mcp["acptools"]["args"] == ["${CLAUDE_PLUGIN_ROOT}/plugin/launch.py"]


def test_skills_have_the_frontmatter_claude_code_reads() -> None:
    assert {s.parent.name for s in SKILLS} == {"plan-act-check", "pddl-debugging", "planner-evaluation"}
    for skill in SKILLS:
        fields, body = frontmatter(skill.read_text(encoding="utf-8"))
        assert fields["name"] == skill.parent.name
        assert 40 <= len(str(fields["description"])) <= 400, skill
        assert isinstance(fields["allowed-tools"], list) and fields["allowed-tools"], skill
        assert len(body.split()) < 600, f"{skill}: keep a skill short (it is loaded whole when it fires)"


def test_every_tool_a_skill_names_is_served_and_allowed() -> None:
    served = server_tool_names()
    for skill in SKILLS:
        text = skill.read_text(encoding="utf-8")
        fields, body = frontmatter(text)
        named = tools_named(text)
        assert named, skill
        assert named <= served, f"{skill.parent.name} names tools the server does not have: {named - served}"
        allowed = {t[len(TOOL_PREFIX) :] for t in fields["allowed-tools"] if t.startswith(TOOL_PREFIX)}
        assert tools_named(body) <= allowed, f"{skill.parent.name} calls tools its allowed-tools leaves out"


def test_the_tool_name_check_catches_a_renamed_tool() -> None:
    served = server_tool_names()
    renamed = f"allowed-tools:\n  - {TOOL_PREFIX}validate_plans\n\nthen `check_plan(task_id, plan)`"
    assert tools_named(renamed) - served == {"validate_plans", "check_plan"}


def test_the_launchers_recorded_handshake_is_the_servers() -> None:
    """plugin/handshake.json (what the launcher answers while its venv builds) is what the server says."""
    done = subprocess.run(
        [sys.executable, "scripts/plugin_handshake.py", "--check"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_handshake_check_catches_a_changed_tool(tmp_path) -> None:
    copy = tree_copy(tmp_path / "repo")
    recorded = json.loads((copy / "plugin" / "handshake.json").read_text())
    recorded["lists"]["tools/list"]["tools"][0]["description"] += " (older)"
    (copy / "plugin" / "handshake.json").write_text(json.dumps(recorded))
    done = subprocess.run(
        [sys.executable, str(copy / "scripts" / "plugin_handshake.py"), "--check"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert (
        "plugin/handshake.json differs from the server in tools/list: run python scripts/plugin_handshake.py"
        in done.stderr
    )


def test_the_bundle_lists_exactly_the_served_tools() -> None:
    assert {t["name"] for t in read_json("mcpb/manifest.json")["tools"]} == server_tool_names()


def registry_validator() -> Draft7Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    Draft7Validator.check_schema(schema)
    return Draft7Validator(schema, format_checker=FormatChecker())


def test_server_json_is_valid_against_the_registry_schema() -> None:
    server_json = read_json("server.json")
    validator = registry_validator()
    assert server_json["$schema"] == validator.schema["$id"]
    assert [e.message for e in validator.iter_errors(server_json)] == []


@pytest.mark.parametrize(
    "break_it",
    [
        lambda d: d.update(description="x" * 101),
        lambda d: d.update(name="acptools"),
        lambda d: d["packages"][0].update(version="latest"),
        lambda d: d.pop("version"),
    ],
)
def test_the_schema_copy_rejects_what_the_registry_rejects(break_it) -> None:
    broken = copy.deepcopy(read_json("server.json"))
    break_it(broken)
    assert list(registry_validator().iter_errors(broken)), broken


@pytest.mark.parametrize("script, module", [("acptools", "acptools.cli"), ("acptools-server", "server")])
def test_both_clis_print_the_package_version(script: str, module: str) -> None:
    command = [str(venv_script(script))] if venv_script(script).exists() else [sys.executable, "-m", module]
    done = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [script, __version__]


def test_the_readme_install_lines_start_the_server() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    vscode = json.loads(re.search(r"code --add-mcp '(\{.*?\})'", readme).group(1))
    assert vscode == {"name": "acptools", "command": "acptools-server"}
    link = re.search(
        r"cursor://anysphere\.cursor-deeplink/mcp/install\?name=acptools&config=([A-Za-z0-9+/=]+)", readme
    ).group(1)
    assert json.loads(base64.b64decode(link)) == {"command": "acptools-server"}
    assert "claude mcp add acptools -- acptools-server" in readme
