"""A dead or misconfigured model endpoint is named in one line within seconds, before any output is
written (one probe request, no retries), and a run whose endpoint dies part way stops after
--max-errors requests in a row could not reach it, with the command that resumes it. Real processes
against a real loopback server (tests/support/scripted_api.py) or a port nobody listens on."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest

from acptools.evaluation import messages_for
from acptools.scoring import gold_response
from tests.support.data import ROOT, records
from tests.support.load import slack
from tests.support.scripted_api import KEYS, ScriptedModel, Status


def cli(command: str, *args, env=None) -> tuple[subprocess.CompletedProcess, float]:
    environ = {k: v for k, v in os.environ.items() if k not in KEYS}
    environ.update(PYTHONPATH=str(ROOT), **(env or {}))
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "acptools.cli", command, "--quiet", *map(str, args)],
        capture_output=True,
        text=True,
        env=environ,
        timeout=600,
        cwd=ROOT,
    )
    return proc, time.perf_counter() - t0


def closed_port() -> int:
    """A loopback port nobody listens on (bound and released: connecting to it is refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    return proc.stderr


@pytest.mark.parametrize("command, source", [("eval", "--data"), ("rollout", "--tasks")])
def test_a_refused_connection_fails_in_seconds_before_any_output(tmp_path, command, source):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    out = tmp_path / "out.jsonl"
    proc, seconds = cli(
        command, source, "acpbench-hard:test", "--limit", 3, "--policy", "openai:m", "--base-url", url, "--out", out
    )
    err = one_line_error(proc)
    assert f"cannot reach the model API at {url}/: [Errno 111] Connection refused" in err, err
    assert not out.exists() and not (tmp_path / "out.jsonl.run.json").exists()
    assert seconds < slack(5.0), seconds


@pytest.mark.parametrize(
    "status, needle",
    [
        (Status(401, "invalid api key"), "AuthenticationError (HTTP 401)"),
        (Status(404, "model 'm' not found"), "NotFoundError (HTTP 404)"),
    ],
)
def test_a_rejected_key_or_unknown_model_costs_one_probe_request(tmp_path, status, needle):
    with ScriptedModel(lambda api, body: "(never asked)", probe=status) as model:
        proc, _ = cli(
            "eval",
            "--data",
            "acpbench-hard:test",
            "--policy",
            "openai:m",
            "--base-url",
            model.openai_url,
            "--out",
            tmp_path / "items.jsonl",
        )
    err = one_line_error(proc)
    assert needle in err and status.message in err
    assert len(model.probes) == 1 and model.requests == []
    assert model.probes[0][1]["max_tokens"] == 1
    assert not (tmp_path / "items.jsonl").exists()


def test_an_endpoint_that_stops_answering_stops_the_run_with_the_resume_command(tmp_path):
    """Every request times out (the probe too, which is not fatal: slow is not dead): after
    --max-errors 2 such questions in a row the run stops; --resume against a live endpoint asks only
    what has no reply and finishes."""
    answers = {messages_for(r)[-1]["content"]: gold_response(r) for r in records("test", "app")}
    out = tmp_path / "items.jsonl"
    args = ("--data", "acpbench-hard:test:app", "--limit", 3, "--policy", "openai:m", "--jobs", 1, "--out", out)
    with ScriptedModel(lambda api, body: answers[body["messages"][-1]["content"]], latency=2.0) as model:
        args += ("--base-url", model.openai_url, "--timeout", 0.2, "--max-errors", 2)
        proc, _ = cli("eval", *args)
        err = one_line_error(proc)
        assert "2 requests in a row did not reach the model API" in err and "APITimeoutError" in err, err
        assert f"what finished is in {out}: resume with acptools eval" in err and err.rstrip().endswith("--resume)")
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert len(rows) == 1 and rows[0]["verdict"] == "error" and rows[0]["reply_error"]
        model.latency, asked = 0.0, len(model.requests)  # the endpoint answers again
        proc, _ = cli("eval", *args, "--resume")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert len(model.requests) == asked + 3
    assert sorted(json.loads(line)["score"] for line in out.read_text().splitlines()) == [1, 1, 1]


def test_max_errors_must_not_be_negative():
    proc, _ = cli("eval", "--data", "acpbench-hard:test", "--policy", "openai:m", "--max-errors", -1)
    assert "--max-errors must be 0 (never stop) or more, got -1" in one_line_error(proc)
