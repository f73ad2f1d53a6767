"""SymK (symbolic bidirectional search, from the `up-symk` wheel) for h* on the hardest states.

Binary-atom SAS+ makes BDDs large, so here we go through the planner's own translator, which
finds mutex groups and builds multi-valued variables: on one 14-step state of the bundled records
that is 1.3 s instead of 14 s. We write the state as a PDDL problem for it.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .fd import package_dir, plan_lines, run_search

_FOUND, _UNSOLVABLE, _UNSOLVED = 0, 11, 12
_TRANSLATE_UNSOLVABLE = 10


@functools.cache
def _root() -> Path | None:
    package = package_dir("up_symk")
    root = package and package / "symk" / "builds" / "release" / "bin"
    return root if root and (root / "downward").exists() else None


def available() -> bool:
    return _root() is not None


@dataclass
class SymkResult:
    plan: list[str] | None     # action names of an optimal plan
    proven_none: bool          # the goal is unreachable
    detail: str = ""


def optimal_plan(domain_text: str, problem_text: str, seconds: float, memory_mb: int = 8192,
                 cancelled=None) -> SymkResult:
    """An optimal (unit-cost) plan, or a proof that none exists, or neither within `seconds`."""
    root = _root()
    if root is None:
        return SymkResult(None, False, "SymK is not installed (pip install up-symk)")
    import time
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="acptools-symk-") as tmp:
        d, p, out = Path(tmp, "domain.pddl"), Path(tmp, "problem.pddl"), Path(tmp, "output.sas")
        d.write_text(domain_text)
        p.write_text(problem_text)
        try:
            env = dict(os.environ, PYTHONPATH=str(root))  # the planner's own translator package
            tr = subprocess.run([sys.executable, "-m", "translate", str(d), str(p), "--sas-file", str(out)],
                                capture_output=True, text=True, cwd=tmp, env=env, timeout=max(seconds, 0.05))
        except subprocess.TimeoutExpired:
            return SymkResult(None, False, "the translator ran out of time")
        if tr.returncode == _TRANSLATE_UNSOLVABLE:
            return SymkResult(None, True)
        if tr.returncode != 0 or not out.exists():
            return SymkResult(None, False, f"translator exit code {tr.returncode}: {tr.stdout[-300:]}")
        sas = out.read_text()
    left = seconds - (time.perf_counter() - started)
    if cancelled is not None and cancelled():
        return SymkResult(None, False, "cancelled")
    code, plan_text, tail = run_search(str(root / "downward"), "sym_bd()", sas, left, memory_mb, cancelled)
    if code == _FOUND and plan_text is not None:
        return SymkResult(plan_lines(plan_text), False)
    if code in (_UNSOLVABLE, _UNSOLVED):
        return SymkResult(None, True)
    return SymkResult(None, False, f"SymK {tail}" if code is None else f"SymK exit code {code}: {tail}")
