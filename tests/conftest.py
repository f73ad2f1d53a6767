"""Shared fixtures: where the real PDDL lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PDDL = ROOT / "tests" / "pddl"
DATA = Path(os.environ.get("ACPBENCH_HARD_DIR", ROOT.parent / "shared" / "acpbench-hard"))


def data_files(split: str, task: str) -> Path:
    path = DATA / split / f"{task}.json"
    if not path.exists():
        pytest.skip(f"ACPBench Hard data not found at {path} (set ACPBENCH_HARD_DIR)")
    return path


def pddl_texts(name: str) -> tuple[str, str]:
    """Domain and problem text of a test task under tests/pddl/NAME/."""
    return (PDDL / name / "domain.pddl").read_text(), (PDDL / name / "problem.pddl").read_text()
