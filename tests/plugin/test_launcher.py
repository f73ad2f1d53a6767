"""plugin/launch.py, the plugin's and the bundle's start command. With a venv that holds this acptools
version it execs that venv's server at once; it never removes a folder it did not make. On a first start
it answers the MCP handshake and the lists at once from plugin/handshake.json while the venv builds, holds
every other request until the real server is up (a cancelled one is dropped), relays both ways after, and
answers with the build's own error when the build fails.

The build is held back by holding its lock (the builder waits for it, as a second client's build does),
and "finished" by laying out a venv that holds this version and whose server is this test run's own, so
the launcher's code runs unchanged and no test waits for a real build except the one that checks pip's
error reaches the client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from acptools import __version__
from tests.support.load import slack
from tests.support.plugin_files import REPO, TEST_VENV, build_held, lay_out_ready_venv, tree_copy, venv_script
from tests.support.stdio_peer import StdioPeer

LAUNCHER = REPO / "plugin" / "launch.py"
HANDSHAKE = json.loads((REPO / "plugin" / "handshake.json").read_text(encoding="utf-8"))
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}

needs_test_venv = pytest.mark.skipif(
    not venv_script("acptools-server").exists(),
    reason=f"the tests run outside a virtualenv with acptools installed ({TEST_VENV})",
)


def launcher_env(venv: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACPTOOLS_", "CLAUDE_"))}
    env.update(ACPTOOLS_PLUGIN_VENV=str(venv), ACPTOOLS_CACHE="off", **extra)
    return env


def launch(venv: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(LAUNCHER), *args],
        env=launcher_env(venv),
        capture_output=True,
        text=True,
        timeout=slack(120),
        stdin=subprocess.DEVNULL,
    )


def first_start(venv: Path, launcher: Path = LAUNCHER, **env: str) -> StdioPeer:
    return StdioPeer([sys.executable, str(launcher)], env=launcher_env(venv, **env))


def handshake(peer: StdioPeer) -> dict:
    """discover (refused, so the client falls back), initialize, initialized: the initialize result."""
    refused = peer.call("probe", "server/discover", {})
    assert refused["error"]["code"] == -32601, refused
    result = peer.call(0, "initialize", INIT)["result"]
    peer.notify("notifications/initialized")
    return result


def text_of(answer: dict) -> str:
    assert "result" in answer, answer
    return "".join(block.get("text", "") for block in answer["result"]["content"])


@needs_test_venv
def test_a_venv_with_this_version_starts_its_server_with_the_arguments() -> None:
    done = launch(TEST_VENV, "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["acptools-server", __version__]
    assert "building" not in done.stderr


def test_a_folder_it_did_not_make_is_left_alone(tmp_path: Path) -> None:
    foreign = tmp_path / "venv"
    (foreign / "bin").mkdir(parents=True)
    (foreign / "keep.txt").write_text("mine")
    done = launch(foreign, "--version")
    assert done.returncode != 0
    assert "this launcher did not make it" in done.stderr and str(foreign) in done.stderr
    assert (foreign / "keep.txt").read_text() == "mine"
    assert "Traceback" not in done.stderr


@needs_test_venv
def test_first_start_answers_at_once_and_serves_the_tools_once_the_venv_is_ready(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    with build_held(venv):
        peer = first_start(venv)
        result = handshake(peer)
        assert result["serverInfo"] == {"name": "acptools", "title": "acptools planning server", "version": __version__}
        assert result["instructions"] == HANDSHAKE["initialize"]["instructions"]
        assert result["protocolVersion"] == INIT["protocolVersion"]
        assert result["capabilities"]["tools"]["listChanged"] is True
        assert peer.call(1, "tools/list")["result"] == HANDSHAKE["lists"]["tools/list"]
        peer.request(2, "tools/call", {"name": "list_examples", "arguments": {}})
        peer.request(3, "tools/call", {"name": "server_info", "arguments": {}})
        peer.notify("notifications/cancelled", {"requestId": 3, "reason": "the user pressed Esc"})
        assert peer.call(4, "ping")["result"] == {}
        assert [m.get("id") for m in peer.seen] == ["probe", 0, 1, 4]  # 2 waits: no server runs yet
        lay_out_ready_venv(venv, __version__)
    assert "ferry" in text_of(peer.answer(2))
    assert peer.call(5, "tools/list")["result"] == HANDSHAKE["lists"]["tools/list"]  # the server's own now
    served = text_of(peer.call(6, "tools/call", {"name": "server_info", "arguments": {}}))
    assert __version__ in served
    assert peer.close() == 0
    assert [m.get("id") for m in peer.seen] == ["probe", 0, 1, 4, 2, 5, 6]  # none for the cancelled 3
    assert not [m for m in peer.seen if m.get("method")], "no list changed: the recorded lists are the server's"


@needs_test_venv
def test_a_list_that_differs_from_the_recorded_one_is_announced(tmp_path: Path) -> None:
    plugin = tree_copy(tmp_path / "plugin")
    recorded = json.loads((plugin / "plugin" / "handshake.json").read_text())
    recorded["lists"]["tools/list"]["tools"][0]["description"] = "an older description"
    (plugin / "plugin" / "handshake.json").write_text(json.dumps(recorded))
    venv = tmp_path / "venv"
    with build_held(venv):
        peer = first_start(venv, plugin / "plugin" / "launch.py")
        handshake(peer)
        assert peer.call(1, "tools/list")["result"]["tools"][0]["description"] == "an older description"
        peer.request(2, "tools/call", {"name": "list_examples", "arguments": {}})
        lay_out_ready_venv(venv, __version__)
    peer.answer(2)
    assert {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"} in peer.seen
    assert peer.call(3, "tools/list")["result"] == HANDSHAKE["lists"]["tools/list"]
    assert peer.close() == 0


def test_a_failed_build_answers_every_request_with_its_error(tmp_path: Path) -> None:
    foreign = tmp_path / "venv"
    (foreign / "bin").mkdir(parents=True)
    (foreign / "keep.txt").write_text("mine")
    peer = first_start(foreign)
    handshake(peer)
    for request_id, method in [(1, "tools/call"), (2, "tools/list"), (3, "resources/read")]:
        error = peer.call(request_id, method, {"name": "list_examples", "arguments": {}, "uri": "acptools://examples"})
        assert error["error"]["code"] == -32603, error
        message = error["error"]["message"]
        assert "building its private Python environment" in message and "this launcher did not make it" in message
        assert str(foreign) in message
    assert peer.close() == 0
    assert (foreign / "keep.txt").read_text() == "mine"
    assert b"Traceback" not in peer.stderr


def test_a_server_that_cannot_start_answers_the_waiting_calls_with_why(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    with build_held(venv):
        peer = first_start(venv)
        handshake(peer)
        peer.request(1, "tools/call", {"name": "list_examples", "arguments": {}})
        lay_out_ready_venv(venv, __version__)
        broken = venv / "bin" / "acptools-server"
        broken.unlink()
        broken.write_text("#!/bin/sh\necho 'acptools-server: cannot import numpy' >&2\nexit 3\n")
        broken.chmod(0o755)
    error = peer.answer(1)["error"]
    assert error["code"] == -32603 and "its server exited with code 3 during the handshake" in error["message"]
    assert "during the handshake" in peer.call(2, "tools/list")["error"]["message"]
    assert peer.close() == 3  # the launcher ends as its server did
    assert b"cannot import numpy" in peer.stderr  # the server's own words reach the client's log


def test_pips_own_error_reaches_the_client(tmp_path: Path) -> None:
    """A real build that pip cannot finish (no package index): the held call gets pip's words."""
    venv = tmp_path / "venv"
    peer = first_start(
        venv,
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS="",
        PATH=os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin",
    )  # no uv
    handshake(peer)
    error = peer.call(1, "tools/call", {"name": "list_examples", "arguments": {}}, seconds=300)
    message = error["error"]["message"]
    assert "exit code" in message and "pip" in message and "No matching distribution" in message, message
    assert peer.close() == 0


@needs_test_venv
def test_a_client_that_leaves_during_the_build_does_not_stop_it(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    log = tmp_path / "venv-build.log"
    with build_held(venv):
        peer = first_start(venv)
        handshake(peer)
        peer.request(1, "tools/call", {"name": "list_examples", "arguments": {}})
        assert peer.close(seconds=30) == 0  # the launcher ends at once; the builder waits for the lock
        assert [m.get("id") for m in peer.seen] == ["probe", 0]
        lay_out_ready_venv(venv, __version__)
    deadline = time.monotonic() + slack(60)
    while "=== build of acptools" not in (log.read_text() if log.exists() else ""):
        assert time.monotonic() < deadline, "the builder did not go on after its client left"
        time.sleep(0.2)
    done = launch(venv, "--version")  # the next start finds the venv ready
    assert done.stdout.split() == ["acptools-server", __version__], done.stderr
