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
        '__all__ = ["load_task"]\nPUBLIC_MODULES = ("acptools.episode", "acptools.a", "acptools.b", "acptools.task", '
        '"acptools.scoring")\nENGINE_PACKAGES = ("acptools.engine",)\nENGINE_GATES = ("acptools.task",)\n'
    )
    body = "".join(f"    v{i} = {i}\n" for i in range(7))
    (tmp_path / "acptools" / "a.py").write_text(f"from acptools.b import x\n\n\ndef f():\n{body}")
    (tmp_path / "acptools" / "b.py").write_text(f"from . import a\n\nx = 1\n\n\ndef g():\n{body}")
    (tmp_path / "acptools" / "episode.py").write_text("")
    (tmp_path / "acptools" / "stray.py").write_text("")  # in neither list
    (tmp_path / "acptools" / "engine").mkdir()
    (tmp_path / "acptools" / "engine" / "__init__.py").write_text("")
    (tmp_path / "acptools" / "engine" / "search.py").write_text("from acptools.scoring import grade\n")  # upward
    (tmp_path / "acptools" / "task.py").write_text("from acptools.engine.search import astar\n")  # a gate: allowed
    (tmp_path / "acptools" / "scoring.py").write_text("from acptools.engine.search import astar\n\ngrade = 1\n")
    (tmp_path / "server" / "tools.py").write_text(
        "from acptools import load_task, Task\nfrom acptools.grounded import split_atoms\n"
        "from acptools.episode import Episode\n"
    )
    (tmp_path / "server" / "big.py").write_text("def big():\n" + "".join(f"    y = {i}\n" for i in range(85)))
    spread = "def spread():\n    return dict(\n" + "".join(f"        k{i}={i},\n" for i in range(120)) + "    )\n"
    (tmp_path / "server" / "spread.py").write_text(spread)  # one statement the formatter spreads: not long
    proc = run(tmp_path)
    out = proc.stdout
    assert proc.returncode == 1
    assert "import circle: acptools.a <-> acptools.b" in out
    assert "long function: server/big.py:1 big (86 logical lines > 80)" in out
    assert "spread" not in out
    assert "private import: server/tools.py:1 from acptools import Task" in out
    assert (
        "private import: server/tools.py:2 acptools.grounded is in neither acptools.PUBLIC_MODULES nor PLUMBING" in out
    )
    assert "Episode" not in out and "load_task" not in out  # public names pass
    assert "repeated block: 7 lines at acptools/a.py:5 and acptools/b.py:7" in out
    assert "unlisted top-level module: acptools/stray.py" in out
    assert "engine import: acptools/scoring.py:1 imports acptools.engine.search" in out
    assert "acptools/task.py" not in out  # the gate may import the engine
    assert "upward import: acptools/engine/search.py (acptools.engine.search, layer 4) imports acptools.scoring" in out
    assert "import circle: acptools.engine.search <-> acptools.scoring" in out
    assert all(f"no layer: acptools/{m}.py" in out for m in ("a", "b", "stray"))
    assert out.strip().endswith("12 finding(s)"), out


def test_the_top_level_stays_small_and_names_stay_apart(tmp_path: Path) -> None:
    """Past 18 top-level modules, two modules of one file name, or a name of the standard library (or
    of inspect_ai, the package acptools.inspect_eval adapts): each is a finding."""
    package = tmp_path / "acptools"
    package.mkdir()
    names = [f"m{i}" for i in range(19)]
    (package / "__init__.py").write_text(
        f"PUBLIC_MODULES = {tuple(f'acptools.{n}' for n in names + ['x', 'y', 'inspect'])!r}\n"
    )
    for name in names:
        (package / f"{name}.py").write_text("")
    for sub in ("x", "y", "inspect"):
        (package / sub).mkdir()
        (package / sub / "__init__.py").write_text("")
    (package / "x" / "report.py").write_text("")
    (package / "y" / "report.py").write_text("")
    (package / "y" / "inspect_ai.py").write_text("")
    out = run(tmp_path).stdout
    assert "too many top-level modules: acptools/ holds 19 modules, more than 18" in out
    assert "shared file name: acptools/x/report.py, acptools/y/report.py are all report.py" in out
    assert "shadowing name: acptools/inspect/__init__.py is named like the module 'inspect'" in out
    assert "shadowing name: acptools/y/inspect_ai.py is named like the module 'inspect_ai'" in out
