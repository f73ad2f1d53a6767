"""Where the real PDDL and the ACPBench Hard records live.

The records come from the copy bundled with the package (acptools/data/acpbench_hard/), so every
test runs on a fresh clone with nothing beside it; no test needs the network or skips for data."""

from __future__ import annotations

from pathlib import Path

from acptools.dataset import SPLITS, TASKS, acpbench_hard

ROOT = Path(__file__).resolve().parents[2]
PDDL = ROOT / "tests" / "pddl"
SUITE = ROOT / "benchmarks" / "suite"
__all__ = ["PDDL", "ROOT", "SPLITS", "SUITE", "TASKS", "pddl_texts", "records"]


def records(split: str, task: str) -> list[dict]:
    """The bundled ACPBench Hard records of one split ('dev' or 'test') and task, in the source's order
    (a fresh list each call: tests may change them)."""
    return acpbench_hard(split, task)


def pddl_texts(name: str, problem: str = "problem.pddl") -> tuple[str, str]:
    """Domain and problem text of a test task under tests/pddl/NAME/ (`problem`: another problem file there)."""
    return (PDDL / name / "domain.pddl").read_text(), (PDDL / name / problem).read_text()
