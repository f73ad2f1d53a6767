"""Shared fixtures: where the real PDDL and the ACPBench Hard records live.

The records come from the copy bundled with the package (acptools/data/acpbench_hard/), so every
test runs on a fresh clone with nothing beside it; no test needs the network or skips for data."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# `python -m pytest` and pytest's `pythonpath = ["."]` put the checkout first on sys.path, where the
# editable install leaves an `acptools.egg-info` without PEP 610 data; importlib.metadata would find that
# one first, and Inspect AI would then register our tasks without their `acptools/` namespace. The
# checkout goes last instead (it still provides what the tests import from it).
_checkout = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _checkout] + [str(_checkout)]

# every test proves its answers afresh: a proof store left by an earlier run must never answer for
# the code under test (tests of the store itself pass their own file)
os.environ["ACPTOOLS_CACHE"] = "off"

from acptools.dataset import SPLITS, TASKS, acpbench_hard

ROOT = Path(__file__).resolve().parents[1]
PDDL = ROOT / "tests" / "pddl"
__all__ = ["PDDL", "ROOT", "SPLITS", "TASKS", "pddl_texts", "records"]


def records(split: str, task: str) -> list[dict]:
    """The bundled ACPBench Hard records of one split ('dev' or 'test') and task, in the source's order
    (a fresh list each call: tests may change them)."""
    return acpbench_hard(split, task)


def pddl_texts(name: str) -> tuple[str, str]:
    """Domain and problem text of a test task under tests/pddl/NAME/."""
    return (PDDL / name / "domain.pddl").read_text(), (PDDL / name / "problem.pddl").read_text()
