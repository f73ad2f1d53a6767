"""`acptools rollout --temperature / --max-tokens / --timeout`: what reaches a real loopback model
server (tests/support/scripted_api.py) and what a reply too slow for the timeout does to an episode."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support.data import ROOT
from tests.support.scripted_api import KEYS, ScriptedModel, in_order


def cli(*args, env=None) -> subprocess.CompletedProcess:
    """`acptools rollout ...` in a fresh process, with only the API key given."""
    environ = {k: v for k, v in os.environ.items() if k not in KEYS}
    environ.update(PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "acptools.cli", "rollout", "--quiet", *map(str, args)],
        capture_output=True,
        text=True,
        env=environ,
        timeout=600,
        cwd=ROOT,
    )


def test_temperature_and_max_tokens_reach_both_apis():
    for policy, key, url in (("openai:m", "OPENAI_API_KEY", "openai_url"), ("anthropic:m", "ANTHROPIC_API_KEY", "url")):
        with ScriptedModel(in_order(["(board c0 l0)"] * 2)) as model:
            proc = cli(
                "--tasks",
                "ferry",
                "--policy",
                policy,
                "--base-url",
                getattr(model, url),
                "--max-steps",
                "2",
                "--temperature",
                "0.25",
                "--max-tokens",
                "77",
                env={key: "k"},
            )
        assert proc.returncode == 0, proc.stderr
        assert len(model.requests) == 2
        assert all(body["temperature"] == 0.25 and body["max_tokens"] == 77 for _, body in model.requests), policy
    with ScriptedModel(in_order(["(board c0 l0)"])) as model:  # without the flag, the API's own default
        assert (
            cli(
                "--tasks",
                "ferry",
                "--policy",
                "openai:m",
                "--base-url",
                model.openai_url,
                "--max-steps",
                "1",
                env={"OPENAI_API_KEY": "k"},
            ).returncode
            == 0
        )
    assert "temperature" not in model.requests[0][1]


def test_a_reply_slower_than_the_timeout_ends_the_episode(tmp_path):
    slow = f"cmd:{sys.executable} -c 'import time; time.sleep(60)'"
    proc = cli("--tasks", "ferry", "--policy", slow, "--timeout", "1", "--out", tmp_path / "t.jsonl")
    rows = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    episode = rows[-1]
    assert proc.returncode == 1 and episode["ended"] == "policy-error", proc.stdout + proc.stderr
    assert "no reply within 1 s" in episode["error"]
    with ScriptedModel(in_order(["(board c0 l0)"]), latency=5) as model:
        proc = cli(
            "--tasks",
            "ferry",
            "--policy",
            "openai:m",
            "--base-url",
            model.openai_url,
            "--timeout",
            "0.5",
            "--out",
            tmp_path / "u.jsonl",
            env={"OPENAI_API_KEY": "k"},
        )
    episode = [json.loads(line) for line in (tmp_path / "u.jsonl").read_text().splitlines()][-1]
    assert proc.returncode == 1 and episode["ended"] == "policy-error" and "Timeout" in episode["error"], episode


def test_a_timeout_must_be_positive():
    proc = cli("--tasks", "ferry", "--policy", "random", "--timeout", "0")
    assert proc.returncode == 2 and "--timeout must be positive, got 0" in proc.stderr
