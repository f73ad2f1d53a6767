"""Generation on an alfred-size task (tests/pddl/household: 2,283 atoms, 2,719 ground actions) and its
progress output: the cheap-proofs-first builders of bool/mcq reach, areach and land fill their quota
there, every record grades 1 with its own answer, and `acptools generate` says what it is doing while
it works (a real process, stderr not a terminal)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from acptools.generate import Options, generate
from acptools.scoring import score_response
from tests.support.data import ROOT
from tests.support.oracle import Oracle

HOUSEHOLD = ROOT / "tests" / "pddl" / "household"
FERRY = ROOT / "acptools" / "examples" / "ferry"


def test_generate_shows_progress_while_working(tmp_path):
    out = tmp_path / "records.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "acptools.cli",
            "generate",
            "--domain",
            str(FERRY / "domain.pddl"),
            "--problem",
            str(FERRY / "problem.pddl"),
            "--form",
            "bool",
            "--tasks",
            "app,land",
            "-n",
            "2",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith("drawing the states of 1 problem(s), then 2 bool records for each of 2 task(s)")
    assert "states of problem 1/1: 8 drawn" in lines
    assert any(line.startswith("  land: 2 records in") for line in lines), lines
    assert any(line.startswith("  app: 2 records in") for line in lines), lines
    bars = [line for line in lines if line.startswith("[") and " records " in line]
    assert bars and bars[-1].split("] ")[1].startswith("4/4 records"), bars
    assert len(out.read_text().splitlines()) == 4


@pytest.mark.slow
@pytest.mark.parametrize("form", ("bool", "mcq"))
def test_alfred_size_list_tasks_fill_their_quota(form):
    tasks = ("reach", "areach", "land")
    out = generate(HOUSEHOLD / "domain.pddl", [HOUSEHOLD / "problem.pddl"], Options(form=form, tasks=tasks, n=2))
    assert out.made == {t: 2 for t in tasks}, out.dropped
    oracle = Oracle((HOUSEHOLD / "domain.pddl").read_text(), (HOUSEHOLD / "problem.pddl").read_text())
    for r in out.records:
        assert score_response(r, r["answer"]).score == 1, r["question"]
        state = Oracle(r["PDDL_domain"], r["PDDL_problem"]).init_atoms()
        assert state <= oracle.fluent_atoms() | oracle.init_atoms(), "the record's state is a state of the task"
    if form == "bool":
        answers = [r["answer"] for r in out.records]
        assert answers.count("yes") == answers.count("no") == 3  # balanced, the no's proven too
