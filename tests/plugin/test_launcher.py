"""plugin/launch.py, the plugin's and the bundle's start command: with a venv that holds this acptools
version it execs that venv's server at once; it never removes a folder it did not make."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from acptools import __version__
from tests.support.plugin_files import REPO, TEST_VENV, venv_script

LAUNCHER = REPO / "plugin" / "launch.py"


def launch(venv: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACPTOOLS_", "CLAUDE_"))}
    env["ACPTOOLS_PLUGIN_VENV"] = str(venv)
    return subprocess.run([sys.executable, str(LAUNCHER), *args], env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)


def test_a_venv_with_this_version_starts_its_server_with_the_arguments() -> None:
    if not venv_script("acptools-server").exists():
        pytest.skip(f"the tests run outside a virtualenv with acptools installed ({TEST_VENV})")
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
