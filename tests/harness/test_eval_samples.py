"""Fair samples (`eval --limit N`, `rollout --limit N`, acptools.dataset.sample): N per task spread over
the domains, seeded, recorded in the run's settings, and the report saying how many domains each
number covers; and joins of records on (task, id), never on the id alone (ACPBench Hard's ids repeat
across tasks)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

from acptools.dataset import TASKS, acpbench_hard, domain_name, record_key, sample, task_of
from tests.support.data import ROOT
from tests.support.scripted_api import KEYS

GOLD_ANSWERER = """
from acptools.dataset import acpbench_hard, record_key
from acptools.scoring import gold_response
GOLD = {record_key(r): gold_response(r) for r in acpbench_hard("test")}
def answer(q):
    return GOLD[record_key(q.record)]
"""


def cli(command: str, *args) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in KEYS}
    environ["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "acptools.cli", command, "--quiet", *map(str, args)],
        capture_output=True,
        text=True,
        env=environ,
        timeout=600,
        cwd=ROOT,
    )


def rows_of(path) -> list[dict]:
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def test_ids_repeat_across_tasks_so_records_are_keyed_by_task_and_id():
    records = acpbench_hard("test")
    by_id = Counter(str(r["id"]) for r in records)
    assert sum(1 for n in by_id.values() if n > 1) > 0  # the id alone is ambiguous ...
    assert len({record_key(r) for r in records}) == len(records)  # ... (task, id) is not


def test_eval_limit_3_covers_every_domain_of_every_task(tmp_path):
    """24 questions: 3 per task, from 3 different domains each, and all 8 domains 3 times over; the
    sample is in the run's settings and the table says how many domains each number covers."""
    answerer = tmp_path / "gold.py"
    answerer.write_text(GOLD_ANSWERER)
    out = tmp_path / "items.jsonl"
    proc = cli(
        "eval",
        "--data",
        "acpbench-hard:test",
        "--limit",
        3,
        "--policy",
        f"python:{answerer}:answer",
        "--out",
        out,
        "--report",
        tmp_path / "report.json",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    items = rows_of(out)
    domains = {domain_name(r) for r in acpbench_hard("test")}
    assert len(domains) == 8 and len(items) == 3 * len(TASKS)
    for t in TASKS:
        assert len({it["domain"] for it in items if it["task"] == t}) == 3, t
    assert Counter(it["domain"] for it in items) == {d: 3 for d in domains}
    assert all(it["score"] == 1 for it in items)
    settings = json.loads((tmp_path / "items.jsonl.run.json").read_text())["settings"]
    assert (settings["--limit"], settings["--per-domain"], settings["--seed"]) == (3, False, 0)
    for t in TASKS:
        assert f"{t:7} (all: 3 domains)" in proc.stdout
    assert "ALL     8 domains" in proc.stdout
    assert "a sample of 3 records per task (seed 0) over 8 domains, not the whole set" in proc.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    (model,) = report["models"].values()
    assert model["overall"]["domain_count"] == 8 and model["tasks"]["app"]["domain_count"] == 3
    assert report["sample"] == {"limit": 3, "per_domain": False, "seed": 0}


def test_per_domain_is_an_even_split_and_the_seed_changes_the_draw():
    records = acpbench_hard("test")
    even = sample(records, 2, per_domain=True)
    pairs = Counter((task_of(r), domain_name(r)) for r in even)
    assert len(pairs) == 8 * 8 and set(pairs.values()) == {2}
    assert sample(even, 2, per_domain=True) == even  # a sample of a sample is itself
    first = sample(records, 3, seed=0)
    assert sample(records, 3, seed=0) == first and sample(records, 3, seed=1) != first
    assert [r for r in records if r in first] == first  # the input order is kept
    assert len(sample(records, 1000)) == len(records)  # more than there are: all of them


def test_rollout_limit_draws_tasks_spread_over_the_domains(tmp_path):
    out = tmp_path / "traces.jsonl"
    proc = cli(
        "rollout",
        "--tasks",
        "acpbench-hard:test:nexta",
        "--limit",
        8,
        "--policy",
        "random",
        "--max-steps",
        1,
        "--out",
        out,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    episodes = [r for r in rows_of(out) if r["kind"] == "episode"]
    assert len(episodes) == 8 and len({e["domain"] for e in episodes}) == 8
    settings = json.loads((tmp_path / "traces.jsonl.run.json").read_text())["settings"]
    assert (settings["--limit"], settings["--per-domain"]) == (8, False)
    proc = cli("rollout", "--tasks", "ferry", "--policy", "random", "--per-domain")
    assert proc.returncode == 2 and "--per-domain says how --limit splits its sample" in proc.stderr
