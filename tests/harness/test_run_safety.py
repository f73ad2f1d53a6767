"""Runs that never mix or lose work, for eval, score, rollout and generate, as real processes: an
existing --out is never overwritten without --resume or --force; --resume refuses a changed
setting with one line naming it; Ctrl-C (SIGINT) stops at once, leaves a valid partial --out and
prints the exact command that resumes; that command completes the run to the same items as a run
that was never interrupted."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time

import pytest

from acptools.evaluation import messages_for
from acptools.scoring import gold_response
from tests.support.data import ROOT, records
from tests.support.load import load_factor, slack
from tests.support.scripted_api import KEYS, ScriptedModel

FERRY = ROOT / "acptools" / "examples" / "ferry"
TIMING = {
    "seconds",
    "reply_seconds",
    "policy_seconds",
    "grading_seconds",
    "harness_seconds",
    "start_seconds",
    "input_tokens",
    "output_tokens",
}


def command(*args) -> list[str]:
    return [sys.executable, "-m", "acptools.cli", *map(str, args)]


def environ() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env["PYTHONPATH"] = str(ROOT)
    return env


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(command(*args), capture_output=True, text=True, env=environ(), cwd=ROOT, timeout=600)


def rows_of(path) -> list[dict]:
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def untimed(rows) -> list[dict]:
    """Rows without what differs between any two runs: timings, and which racing planner proved h* first."""
    return [{k: v for k, v in r.items() if k not in TIMING and k != "h_star_how"} for r in rows]


def exit_bound() -> float:
    """1 s on a quiet machine, more on a busy one: the point is no long wait, not a benchmark."""
    return 1.0 + load_factor()


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """Two app records (cheap to grade), a python: policy answering them right, and its file."""
    folder = tmp_path_factory.mktemp("small")
    recs = records("test", "app")[:2]
    data = folder / "app.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in recs))
    fn = folder / "answer.py"
    answers = {messages_for(r)[-1]["content"]: gold_response(r) for r in recs}
    fn.write_text(f"ANSWERS = {json.dumps(answers)}\n\ndef answer(q):\n    return ANSWERS[q.prompt]\n")
    responses = folder / "r.jsonl"
    responses.write_text(
        "".join(json.dumps({"id": r["id"], "group": r["group"], "response": gold_response(r)}) + "\n" for r in recs)
    )
    return {"data": data, "policy": f"python:{fn}:answer", "responses": responses}


def runs(small) -> dict[str, list]:
    """One small run of each command (without --out)."""
    return {
        "eval": ["eval", "--quiet", "--data", small["data"], "--policy", small["policy"]],
        "score": ["score", "--quiet", "--data", small["data"], "--responses", small["responses"]],
        "rollout": ["rollout", "--quiet", "--tasks", "ferry", "--policy", "random", "--max-steps", "3"],
        "generate": [
            "generate",
            "--quiet",
            "--domain",
            FERRY / "domain.pddl",
            "--problem",
            FERRY / "problem.pddl",
            "--form",
            "bool",
            "--tasks",
            "app",
            "-n",
            "2",
        ],
    }


CHANGED = {
    "eval": ("--with-pddl",),
    "score": ("--semantics", "reference"),
    "rollout": ("--max-steps", "4"),
    "generate": ("--seed", "7"),
}


@pytest.mark.parametrize("cmd", ["eval", "score", "rollout"])
def test_report_and_html_are_protected_like_out(tmp_path, small, cmd):
    """An existing --report or --html is refused before any work (one line, the file untouched);
    --force overwrites it, and so does --resume (the run it reports goes on)."""
    for flag, name in (("--report", "report.json"), ("--html", "report.html")):
        path = tmp_path / name
        path.write_text("mine")
        refused = cli(*runs(small)[cmd], flag, path)
        assert refused.returncode == 2 and f"{flag} {path}: exists (pass --resume" in refused.stderr, refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1 and path.read_text() == "mine"
        forced = cli(*runs(small)[cmd], flag, path, "--force")
        assert forced.returncode == 0, forced.stderr
        assert path.read_text() != "mine"
    out = tmp_path / "out.jsonl"
    assert cli(*runs(small)[cmd], "--out", out).returncode == 0
    resumed = cli(*runs(small)[cmd], "--out", out, "--resume", "--report", tmp_path / "report.json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads((tmp_path / "report.json").read_text())


def test_report_command_overwrites_its_page_only_with_force(tmp_path, small):
    out = tmp_path / "items.jsonl"
    assert cli(*runs(small)["score"], "--out", out).returncode == 0
    page = tmp_path / "page.html"
    page.write_text("mine")
    refused = cli("report", "--html", page, out)
    assert refused.returncode == 2 and f"--html {page}: exists" in refused.stderr and page.read_text() == "mine"
    assert cli("report", "--html", page, out, "--force").returncode == 0 and "<html" in page.read_text()


@pytest.mark.parametrize("cmd", ["eval", "score", "rollout", "generate"])
def test_an_existing_out_is_never_overwritten_and_a_changed_setting_is_never_resumed(tmp_path, small, cmd):
    out = tmp_path / "out.jsonl"
    first = cli(*runs(small)[cmd], "--out", out)
    assert first.returncode == 0, first.stderr
    before = out.read_bytes()
    assert before and json.loads((tmp_path / "out.jsonl.run.json").read_text())["command"] == cmd
    again = cli(*runs(small)[cmd], "--out", out)
    assert again.returncode == 2 and f"--out {out}: exists (pass --resume" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1 and out.read_bytes() == before
    changed = cli(*runs(small)[cmd], *CHANGED[cmd], "--out", out, "--resume")
    flag = CHANGED[cmd][0]
    assert changed.returncode == 2 and f"cannot resume: it was made with {flag} " in changed.stderr, changed.stderr
    assert len(changed.stderr.strip().splitlines()) == 1 and out.read_bytes() == before
    same = cli(*runs(small)[cmd], "--out", out, "--resume")
    assert same.returncode == 0, same.stderr
    if cmd != "rollout":  # a finished run resumed: nothing is done again, the file is the same
        assert untimed(rows_of(out)) == untimed(json.loads(line) for line in before.decode().splitlines())
    forced = cli(*runs(small)[cmd], *CHANGED[cmd], "--out", out, "--force")
    assert forced.returncode in (0, 1), forced.stderr


def test_score_refuses_to_resume_with_other_responses(tmp_path, small):
    out = tmp_path / "items.jsonl"
    assert cli(*runs(small)["score"], "--out", out).returncode == 0
    other = tmp_path / "other.jsonl"
    other.write_text(small["responses"].read_text().replace('"response": "', '"response": "x '))
    proc = cli("score", "--data", small["data"], "--responses", other, "--out", out, "--resume")
    assert proc.returncode == 2 and "it was made with --responses" in proc.stderr


def sigint_default() -> None:
    """In the child before it starts: SIGINT back to its default. A test run started in the background
    of a script (as `scripts/busy_test_run.sh &` is) inherits SIGINT ignored, as shells set it for
    background jobs, and a Python started so never sees a KeyboardInterrupt: these tests send one."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(args, out, rows_needed: int):
    """Start a run, SIGINT it once `out` holds rows_needed rows; (process result, seconds to exit)."""
    proc = subprocess.Popen(
        command(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environ(),
        cwd=ROOT,
        preexec_fn=sigint_default,
    )
    deadline = time.monotonic() + slack(300)
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and len([line for line in out.read_text().splitlines() if line.strip()]) >= rows_needed:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run finished before it could be interrupted"
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=slack(120))
    return subprocess.CompletedProcess(args, proc.returncode, stdout, stderr), time.monotonic() - t0


def _resume_line(stdout: str) -> list[str]:
    (line,) = [x for x in stdout.splitlines() if x.startswith("resume with: acptools ")]
    return shlex.split(line.removeprefix("resume with: acptools "))


class _Gate:
    """Lets a scripted model's replies through; once closed after n more, later replies wait until it opens."""

    def __init__(self):
        self.left, self.opened, self.lock = None, threading.Event(), threading.Lock()

    def close_after(self, n: int) -> None:
        self.left = n

    def open(self) -> None:
        self.opened.set()

    def pass_(self, reply):
        with self.lock:
            wait = self.left is not None and self.left <= 0
            if self.left is not None:
                self.left -= 1
        if wait:
            self.opened.wait(slack(300))
        return reply


def _check_interrupted(proc, seconds, out):
    assert proc.returncode == 130, proc.stdout + proc.stderr
    assert seconds < exit_bound(), f"{seconds:.2f} s from SIGINT to exit"
    assert "interrupted after" in proc.stdout and "Traceback" not in proc.stderr
    return rows_of(out)  # every line of the partial file is valid JSON


def test_ctrl_c_of_eval_stops_at_once_and_resume_completes_it(tmp_path):
    answers = {messages_for(r)[-1]["content"]: gold_response(r) for r in records("test", "app")}
    gate = _Gate()
    with ScriptedModel(lambda api, body: gate.pass_(answers[body["messages"][-1]["content"]]), latency=0.25) as model:
        args = [
            "eval",
            "--quiet",
            "--data",
            "acpbench-hard:test:app",
            "--limit",
            8,
            "--jobs",
            1,
            "--policy",
            "openai:m",
            "--base-url",
            model.openai_url,
        ]
        whole = cli(*args, "--out", tmp_path / "whole.jsonl")
        assert whole.returncode == 0, whole.stderr
        out = tmp_path / "items.jsonl"
        gate.close_after(2)  # the third question waits, so the SIGINT comes mid-run however busy the machine is
        proc, seconds = _interrupt([*args, "--out", out], out, 2)
        gate.open()
        partial = _check_interrupted(proc, seconds, out)
        assert 2 <= len(partial) < 8 and "of 8 questions graded" in proc.stdout
        with open(out, "a", encoding="utf-8") as fh:  # and a line cut short, as a crash mid-write leaves it
            fh.write('{"id": 12, "task": "ap')
        resumed = cli(*_resume_line(proc.stdout))
        assert resumed.returncode == 0, resumed.stderr
    key = lambda it: (it["task"], str(it["id"]))  # noqa: E731
    assert sorted(untimed(rows_of(out)), key=key) == sorted(untimed(rows_of(tmp_path / "whole.jsonl")), key=key)
    assert untimed(rows_of(out))[: len(partial)] == untimed(partial)  # kept, not asked again


def test_ctrl_c_of_score_stops_at_once_and_resume_completes_it(tmp_path):
    recs = records("test", "reach")[:12]
    data = tmp_path / "reach.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in recs))
    args = ["score", "--quiet", "--data", data, "--gold", "--budget", 5]
    whole = cli(*args, "--out", tmp_path / "whole.jsonl")
    assert whole.returncode in (0, 1), whole.stderr
    out = tmp_path / "items.jsonl"
    proc, seconds = _interrupt([*args, "--out", out], out, 1)
    partial = _check_interrupted(proc, seconds, out)
    assert 1 <= len(partial) < 12
    resumed = cli(*_resume_line(proc.stdout))
    assert resumed.returncode in (0, 1), resumed.stderr
    assert untimed(rows_of(out)) == untimed(rows_of(tmp_path / "whole.jsonl"))  # the same items, same order


def test_ctrl_c_of_rollout_stops_at_once_and_resume_completes_it(tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text("import time\n\ndef act(obs):\n    time.sleep(0.1)\n    return '(no such action)'\n")
    args = [
        "rollout",
        "--quiet",
        "--tasks",
        "ferry",
        "grid",
        "gripper-strips",
        "blocksworld-4ops",
        "--policy",
        f"python:{slow}:act",
        "--max-invalid",
        4,
    ]
    whole = cli(*args, "--out", tmp_path / "whole.jsonl")
    assert whole.returncode == 0, whole.stderr
    out = tmp_path / "traces.jsonl"
    proc, seconds = _interrupt([*args, "--out", out], out, 6)
    _check_interrupted(proc, seconds, out)
    resumed = cli(*_resume_line(proc.stdout))
    assert resumed.returncode == 0, resumed.stderr
    episodes = lambda rows: sorted((r for r in untimed(rows) if r["kind"] == "episode"), key=lambda r: r["episode"])  # noqa: E731
    assert episodes(rows_of(out)) == episodes(rows_of(tmp_path / "whole.jsonl")) and len(episodes(rows_of(out))) == 4


def test_ctrl_c_of_generate_keeps_the_finished_tasks_and_resume_gives_the_same_bytes(tmp_path):
    grid = ROOT / "acptools" / "examples" / "grid"
    # just (about 0.7 s here) follows reach: the interrupt lands before the run ends
    per_task = 16
    args = [
        "generate",
        "--quiet",
        "--domain",
        grid / "domain.pddl",
        "--problem",
        grid / "problem.pddl",
        "--form",
        "bool",
        "--tasks",
        "reach,just,areach,app",
        "-n",
        per_task,
    ]
    whole = cli(*args, "--out", tmp_path / "whole.jsonl")
    assert whole.returncode == 0, whole.stderr
    out = tmp_path / "records.jsonl"
    proc = subprocess.Popen(
        command(*args, "--out", out),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environ(),
        cwd=ROOT,
        preexec_fn=sigint_default,
    )
    side = tmp_path / "records.jsonl.run.json"
    deadline = time.monotonic() + slack(300)
    while proc.poll() is None and time.monotonic() < deadline:  # reach (the first unit) finished
        if side.exists() and "reach" in json.loads(side.read_text()).get("progress", {}).get("finished", {}):
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run finished before it could be interrupted"
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=slack(120))
    seconds = time.monotonic() - t0
    assert proc.returncode == 130 and seconds < exit_bound(), (seconds, stderr)
    kept, whole_rows = rows_of(out), rows_of(tmp_path / "whole.jsonl")
    # the finished tasks' records, whole: reach's at least, never a task cut in the middle
    assert kept and len(kept) % per_task == 0 and len(kept) < len(whole_rows)
    assert kept == whole_rows[: len(kept)] and kept[0]["group"] == "reachable_atom_bool"
    (line,) = [x for x in stderr.splitlines() if x.startswith("resume with: acptools ")]
    resumed = cli(*shlex.split(line.removeprefix("resume with: acptools ")))
    assert resumed.returncode == 0, resumed.stderr
    assert out.read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
