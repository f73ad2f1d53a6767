"""Every command of the CLI on a task with more than 20,000 ground atoms and 50,000 ground actions,
each process started with Python's int-to-text limit at its lowest (tests/support/big_tasks.py):
`generate` in all four forms, `score`, `eval` (a scripted model over a real HTTP server), `rollout`,
`cache verify` and `report`. Every command ends with its documented exit code and no traceback; the
answers pyperplan can check cheaply score 1. The commands share one proof store, so the grounded
task is kept once and read by the later processes, as a user's runs would."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading

import pytest

from acptools import load_task
from acptools.scoring import gold_response
from tests.support.big_tasks import (
    applicable,
    big_ferry,
    first_inapplicable,
    low_digit_env,
    reaches_goal,
    write_big_files,
)
from tests.support.data import ROOT
from tests.support.load import slack
from tests.support.scripted_api import KEYS, ScriptedModel

BUDGET = "1"  # CPU seconds per proof: most answers are bounds at this size, which is the point
CHECKED = {"app": 1, "prog": 1, "val": 1, "just": 1}  # tasks whose records' answers pyperplan found
CHEAP_TASKS = {"hard": "app,prog", "bool": "app,prog", "mcq": "app,prog", "arb": "state_tracking,action_executability"}


class Runs:
    """The big task's files, one proof store, and each command's run (made once, on first need)."""

    def __init__(self, folder) -> None:
        self.folder = folder
        self.files = write_big_files(folder / "task")
        self.store = folder / "proofs.sqlite"
        self._done: dict[str, subprocess.CompletedProcess] = {}
        self._lock = threading.Lock()

    def cli(self, *args) -> subprocess.CompletedProcess:
        env = {
            k: v
            for k, v in low_digit_env(ACPTOOLS_CACHE=str(self.store), PYTHONPATH=str(ROOT)).items()
            if k not in KEYS
        }
        proc = subprocess.run(
            [sys.executable, "-m", "acptools.cli", *map(str, args)],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=slack(900),
        )
        assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
        return proc

    def once(self, name: str, make) -> subprocess.CompletedProcess:
        with self._lock:
            if name not in self._done:
                self._done[name] = make()
            return self._done[name]

    def out(self, name: str):
        return self.folder / name

    def score(self) -> subprocess.CompletedProcess:
        return self.once(
            "score",
            lambda: self.cli(
                "score",
                "--data",
                self.files["records"],
                "--gold",
                "--out",
                self.out("items.jsonl"),
                "--budget",
                BUDGET,
                "--quiet",
                "--report",
                self.out("score.json"),
            ),
        )

    def rollout(self) -> subprocess.CompletedProcess:
        return self.once(
            "rollout",
            lambda: self.cli(
                "rollout",
                "--tasks",
                self.files["folder"],
                "--policy",
                "random",
                "--max-steps",
                2,
                "--budget",
                BUDGET,
                "--out",
                self.out("traces.jsonl"),
                "--quiet",
            ),
        )


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Runs:
    return Runs(tmp_path_factory.mktemp("big-cli"))


def rows(path) -> list[dict]:
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def _checked_items(items: list[dict]) -> None:
    """What pyperplan found scores 1; the rest is decided or unknown, never an error."""
    assert len(items) == 8
    for it in items:
        assert it["verdict"] != "error", it
        if it["task"] in CHECKED:
            assert it["score"] == CHECKED[it["task"]], it


def test_score_grades_every_task(runs):
    proc = runs.score()
    assert proc.returncode in (0, 1), proc.stderr  # 1: some item unknown within the budget
    _checked_items(rows(runs.out("items.jsonl")))


def test_eval_asks_a_scripted_model_and_grades_its_replies(runs):
    records = rows(runs.files["records"])
    gold = {r["question"]: gold_response(r) for r in records}

    def script(api, body):
        return next(answer for question, answer in gold.items() if question in body["messages"][-1]["content"])

    with ScriptedModel(script) as model:
        proc = runs.cli(
            "eval",
            "--data",
            runs.files["records"],
            "--policy",
            "openai:gold",
            "--base-url",
            model.openai_url,
            "--out",
            runs.out("eval.jsonl"),
            "--budget",
            BUDGET,
            "--quiet",
        )
        assert len(model.requests) == len(records)
    assert proc.returncode in (0, 1), proc.stderr  # 1: some item unknown within the budget
    _checked_items(rows(runs.out("eval.jsonl")))


def test_rollout_grades_every_step(runs):
    proc = runs.rollout()
    assert proc.returncode == 0, proc.stderr
    steps = [r for r in rows(runs.out("traces.jsonl")) if r.get("kind") == "step"]
    assert [s["step"] for s in steps] == [1, 2] and all(s["verdict"] == "applied" for s in steps)
    for s in steps:  # graded, or bounded: h* after an action is never below h* before minus one
        assert s["known"] or s["h_star_after_lower"] is not None
    start = load_task(*big_ferry()[:2])  # the rollout starts in the problem's init; pyperplan replays its actions
    init = start.names(start.init)
    assert first_inapplicable([s["action"] for s in steps], init) is None
    assert not reaches_goal([s["action"] for s in steps], init)


def test_cache_verify_checks_what_the_runs_kept(runs):
    """Every kept row checked again from scratch: nothing is refuted or unauthenticated, and the kept
    grounded task loads again the same; an h* the small budget cannot prove again is reported as such."""
    runs.score()
    proc = runs.cli("cache", "verify", "--cache", runs.store, "--budget", BUDGET)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    failed = [line for line in proc.stdout.splitlines() if line.strip().startswith("FAILED")]
    assert all("not proven again within" in line for line in failed), proc.stdout
    assert re.search(r"loaded again all [1-9]\d* grounded tasks: 0 failed", proc.stdout), proc.stdout


@pytest.mark.slow
def test_cache_verify_proves_every_kept_row_again(runs):
    runs.score()
    proc = runs.cli("cache", "verify", "--cache", runs.store, "--budget", 10)
    assert proc.returncode == 0 and " failed" in proc.stdout, proc.stdout + proc.stderr


def test_report_shows_the_runs(runs):
    runs.score()
    runs.rollout()
    proc = runs.cli("report", "--html", runs.out("all.html"), runs.out("items.jsonl"), runs.out("traces.jsonl"))
    assert proc.returncode == 0, proc.stderr
    page = runs.out("all.html").read_text()
    assert "ferry" in page and "nexta" in page


@pytest.mark.parametrize("form", ["hard", "bool", "mcq", "arb"])
def test_generate_in_every_form(runs, form):
    out = runs.out(f"{form}.jsonl")
    proc = runs.cli(
        "generate",
        "--domain",
        runs.files["domain"],
        "--problem",
        runs.files["problem"],
        "--form",
        form,
        "--tasks",
        CHEAP_TASKS[form],
        "-n",
        1,
        "--budget",
        BUDGET,
        "--walk",
        "1:3",
        "--out",
        out,
        "--quiet",
    )
    assert proc.returncode in (0, 1), proc.stderr  # 1: some task got fewer records (an item left unproven)
    made = rows(out)
    assert made and all(r["PDDL_domain"] == runs.files["domain"].read_text() for r in made)
    if form == "hard":
        _app_answers_agree_with_pyperplan(made)


def _app_answers_agree_with_pyperplan(made: list[dict]) -> None:
    """A hard app record's answer is every action applicable in its problem's init (a sampled state)."""
    for r in made:
        if r["group"] == "applicable_actions_gen":
            task = load_task(r["PDDL_domain"], r["PDDL_problem"])
            assert sorted(r["answer"]) == applicable(task.names(task.init))


@pytest.mark.slow
@pytest.mark.timeout(3600)  # each of a form's tasks may drop every attempt when its proofs run out
@pytest.mark.parametrize("form", ["hard", "bool", "mcq", "arb"])
def test_generate_every_task_of_every_form(runs, form):
    out = runs.out(f"{form}-all.jsonl")
    proc = runs.cli(
        "generate",
        "--domain",
        runs.files["domain"],
        "--problem",
        runs.files["problem"],
        "--form",
        form,
        "-n",
        1,
        "--budget",
        "0.5",
        "--out",
        out,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert os.path.exists(out)
