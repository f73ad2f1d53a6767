"""SymK (symbolic bidirectional search, from the `up-symk` wheel) for h* on the hardest states.

Binary-atom SAS+ makes BDDs large, so here we go through the planner's own translator, which
finds mutex groups and builds multi-valued variables: on one 14-step state of the bundled records
that is 1.3 s instead of 14 s. We write the state as a PDDL problem for it.
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ..budget import Budget
from . import process as planner
from .fd import package_dir, plan_lines, run_search

_FOUND, _UNSOLVABLE, _UNSOLVED = 0, 11, 12
_TRANSLATE_UNSOLVABLE = 10


@functools.cache
def _root() -> Path | None:
    package = package_dir("up_symk")
    root = package and package / "symk" / "builds" / "release" / "bin"
    return root if root and (root / "downward").exists() else None


def available() -> bool:
    """Is SymK's binary installed (the up-symk wheel)?"""
    return _root() is not None


@dataclass
class SymkResult:
    """What one SymK run found: an optimal plan, or a proof that none exists (`proven_none`), or neither."""

    plan: list[str] | None  # action names of an optimal plan
    proven_none: bool  # the goal is unreachable
    detail: str = ""


def optimal_plan(
    domain_text: str, problem_text: str, budget: Budget | float, memory_mb: int = 8192, bound: int | None = None
) -> SymkResult:
    """An optimal (unit-cost) plan, or a proof that none exists, or neither within `budget` (a
    Budget, or wall seconds). The translator and the search both run under the budget. With
    `bound`, only plans shorter than it count: `proven_none` then says there is none (the search
    stops once its frontiers show it, sparing the last layers)."""
    if not isinstance(budget, Budget):
        budget = Budget(budget)
    root = _root()
    if root is None:
        return SymkResult(None, False, "SymK is not installed (pip install up-symk)")

    def work(folder: str) -> SymkResult:
        d, p, out = Path(folder, "domain.pddl"), Path(folder, "problem.pddl"), Path(folder, "output.sas")
        d.write_text(domain_text)
        p.write_text(problem_text)
        env = dict(os.environ, PYTHONPATH=str(root))  # the planner's own translator package
        log = str(Path(folder, "translate.log"))
        code, why = planner.run(
            [sys.executable, "-m", "translate", str(d), str(p), "--sas-file", str(out)],
            budget,
            folder,
            stdout_path=log,
            env=env,
        )
        if code is None:
            return SymkResult(None, False, f"the translator {why}")
        if code == _TRANSLATE_UNSOLVABLE:
            return SymkResult(None, True)
        if code != 0 or not out.exists():
            return SymkResult(None, False, f"translator exit code {code}: {Path(log).read_text()[-300:]}")
        config = "sym_bd()" if bound is None else f"sym_bd(bound={bound})"
        code, plan_text, tail = run_search(str(root / "downward"), config, out.read_text(), budget, memory_mb)
        if code == _FOUND and plan_text is not None:
            return SymkResult(plan_lines(plan_text), False)
        if code in (_UNSOLVABLE, _UNSOLVED):
            return SymkResult(None, True)
        return SymkResult(
            None, False, f"SymK {tail}" if code is None else planner.exit_detail("SymK", code, tail, memory_mb)
        )

    return planner.in_folder("symk", work)
