"""The repository's structure checks (tools/check_structure.py): the tree passes them, and each check
catches what it is for on a small tree made to break it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "check_structure.py"


def run(repo: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(repo)], capture_output=True, text=True, timeout=120)


def test_the_repository_passes_the_structure_checks() -> None:
    proc = run(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("0 finding(s)")


def test_each_check_catches_what_it_is_for(tmp_path: Path) -> None:
    (tmp_path / "acptools").mkdir()
    (tmp_path / "server").mkdir()
    (tmp_path / "acptools" / "__init__.py").write_text(
        '__all__ = ["load_task"]\nPUBLIC_MODULES = ("acptools.episode",)\n')
    body = "".join(f"    v{i} = {i}\n" for i in range(7))
    (tmp_path / "acptools" / "a.py").write_text(f"from acptools.b import x\n\n\ndef f():\n{body}")
    (tmp_path / "acptools" / "b.py").write_text(f"from . import a\n\nx = 1\n\n\ndef g():\n{body}")
    (tmp_path / "acptools" / "episode.py").write_text("")
    (tmp_path / "server" / "tools.py").write_text(
        "from acptools import load_task, Task\nfrom acptools.grounded import split_atoms\n"
        "from acptools.episode import Episode\n")
    (tmp_path / "server" / "big.py").write_text("def big():\n" + "".join(f"    y = {i}\n" for i in range(125)))
    proc = run(tmp_path)
    out = proc.stdout
    assert proc.returncode == 1
    assert "import circle: acptools.a <-> acptools.b" in out
    assert "long function: server/big.py:1 big (126 lines > 120)" in out
    assert "private import: server/tools.py:1 from acptools import Task" in out
    assert "private import: server/tools.py:2 acptools.grounded is not in acptools.PUBLIC_MODULES" in out
    assert "Episode" not in out and "load_task" not in out  # public names pass
    assert "repeated block: 7 lines at acptools/a.py:5 and acptools/b.py:7" in out
    assert out.strip().endswith("5 finding(s)")
