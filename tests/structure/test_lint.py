"""The tree passes the linter and the formatter the project pins (ruff, configured in pyproject.toml), with
the version .pre-commit-config.yaml pins, so a contributor's hook, CI and this test agree."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _pin(text: str) -> str:
    found = re.findall(r"ruff==([0-9.]+)", text)
    assert found, "no ruff==VERSION pin found"
    assert len(set(found)) == 1, f"ruff pinned to several versions: {sorted(set(found))}"
    return found[0]


PIN = _pin((ROOT / ".pre-commit-config.yaml").read_text())


def _ruff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def _installed_ruff() -> str | None:
    try:
        proc = _ruff("--version")
    except OSError:
        return None
    return proc.stdout.split()[-1] if proc.returncode == 0 and proc.stdout.strip() else None


needs_ruff = pytest.mark.skipif(
    _installed_ruff() != PIN, reason=f"ruff {PIN} is not installed (pip install -e '.[lint]')"
)


def test_pyproject_pins_the_ruff_of_the_pre_commit_hooks() -> None:
    assert _pin((ROOT / "pyproject.toml").read_text()) == PIN


@needs_ruff
def test_the_tree_passes_ruff_check() -> None:
    proc = _ruff("check", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


@needs_ruff
def test_the_tree_is_formatted() -> None:
    proc = _ruff("format", "--check", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


@needs_ruff
def test_the_configuration_catches_a_closure_over_a_loop_variable(tmp_path: Path) -> None:
    """The project's rules (bugbear among them) apply to a file put in a tree with its pyproject.toml."""
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    (tmp_path / "late.py").write_text("calls = []\nfor i in range(3):\n    calls.append(lambda: i)\n")
    proc = _ruff("check", "--no-cache", "late.py", cwd=tmp_path)
    assert proc.returncode == 1 and "B023" in proc.stdout, proc.stdout + proc.stderr
