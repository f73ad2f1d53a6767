"""Grounding reads as named steps (acptools.ground.pipeline): parse -> footprint -> axioms -> ground ->
explore, each timed at DEBUG on `acptools.ground`, where `--log-level DEBUG` shows them."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys

from acptools import examples, load_task
from acptools.ground.pipeline import STEPS
from tests.support.data import ROOT, pddl_texts
from tests.support.load import slack

STEP_LINE = re.compile(r"grounding step (\w+): (\d+\.\d+) s")


def _steps(text: str) -> list[str]:
    return [m.group(1) for m in STEP_LINE.finditer(text)]


def test_loading_a_task_logs_each_step_once_in_order_with_its_time(caplog) -> None:
    with caplog.at_level(logging.DEBUG, logger="acptools.ground"):
        task = load_task(*examples.texts("rover"))
    assert STEPS == ("parse", "footprint", "axioms", "ground", "explore")
    assert _steps(caplog.text) == list(STEPS)
    assert all(
        r.name == "acptools.ground" and r.levelno == logging.DEBUG
        for r in caplog.records
        if "grounding step" in r.getMessage()
    )
    assert task.grounded.operators and task.questions.applicable()  # the steps made a working task


def test_a_task_with_axioms_grounds_every_action_in_the_ground_step(caplog) -> None:
    """Lazy exploration does not follow axioms: such a task is grounded whole, and explore has nothing
    left to do (the step is still named and timed)."""
    with caplog.at_level(logging.DEBUG, logger="acptools.ground"):
        task = load_task(*pddl_texts("blocks-derived"))
    assert task.axioms is not None and _steps(caplog.text) == list(STEPS)
    assert task.grounded.reached == (1 << len(task.atoms)) - 1


def test_the_command_line_shows_the_steps_at_debug_and_not_by_default() -> None:
    env = {k: v for k, v in os.environ.items() if k != "ACPTOOLS_CACHE"} | {"ACPTOOLS_CACHE": "off"}
    run = lambda *a: subprocess.run(
        [sys.executable, "-m", "acptools.cli", *a, "demo"],  # noqa: E731
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=slack(300),
    )
    debug, quiet = run("--log-level", "DEBUG"), run()
    assert debug.returncode == 0 and quiet.returncode == 0
    assert _steps(debug.stderr) == list(STEPS), debug.stderr[-2000:]
    assert "grounding step" not in quiet.stderr
