"""Stored grades (acptools.proofs.grade_memo): a warm run reads every grade a cold run kept, grounds no task
and gives the same items; grades forged without the store's key are never served (the run grades
afresh) and `cache verify` names each; the same forgeries signed with the key would be served, and
`cache verify` catches them by grading again; another response or budget is never answered by a
stored grade; `cache stats` and `cache clear` count them."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from acptools.dataset import acpbench_hard
from acptools.proofs import store
from acptools.proofs.verify import verify_grades
from acptools.scoring import cache_sizes, clear_caches
from acptools.scoring.batch import gold_rows, match, regrade, score_pairs
from tests.support.data import ROOT
from tests.support.forge import forge_grades

TASKS = ("app", "prog", "reach", "val", "just", "land")
BUDGET = 10.0


def _pairs(records: list[dict]) -> list[tuple[dict, dict]]:
    """Each record's stored answer, and a name no task has, by a second model."""
    rows = gold_rows(records)
    rows += [{"id": r["id"], "group": r["group"], "model": "wrong", "response": "(no-such-name x)"} for r in records]
    return match(records, rows)


def _stable(items: list[dict]) -> list[dict]:
    return [{k: v for k, v in it.items() if k != "seconds"} for it in items]


def _run(pairs, cache: Path | None, budget: float = BUDGET) -> tuple[list[dict], dict]:
    """Items of an in-process run on `cache` (None: no store) from empty task caches, and how many
    tasks it grounded."""
    clear_caches()
    found = store.use(cache)
    try:
        items = score_pairs(pairs, "exact", budget)
        return items, {"grounded": cache_sizes()["tasks"], "writes": found.writes if found else 0}
    finally:
        if found is not None:
            found.close()
        store.use(None)


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """A store filled by one run, and the items of a run without any store."""
    records = [acpbench_hard("dev", t)[0] for t in TASKS]
    pairs = _pairs(records)
    fresh, _ = _run(pairs, None)
    cache = tmp_path_factory.mktemp("memo") / "proofs.sqlite"
    filling, seen = _run(pairs, cache)
    assert _stable(filling) == _stable(fresh) and seen["grounded"] == len(records)
    assert all(it["verdict"] not in ("unknown", "error") for it in fresh)
    return pairs, cache, fresh


def _copy(cache: Path, to: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        if Path(str(cache) + suffix).exists():
            shutil.copy(str(cache) + suffix, str(to) + suffix)
    return to


def _cli(*args) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "ACPTOOLS_CACHE"}
    return subprocess.run(
        [sys.executable, "-m", "acptools.cli", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )


def test_a_warm_run_reads_every_grade_and_grounds_nothing(filled, tmp_path):
    pairs, cache, fresh = filled
    warm, seen = _run(pairs, _copy(cache, tmp_path / "warm.sqlite"))
    assert _stable(warm) == _stable(fresh)
    assert seen == {"grounded": 0, "writes": 0}


def test_grades_forged_without_the_key_are_never_served_and_verify_names_each(filled, tmp_path):
    pairs, cache, fresh = filled
    forged = _copy(cache, tmp_path / "forged.sqlite")
    n = forge_grades(forged)
    assert n == len(pairs)
    assert store.ProofStore(forged).stats()["grades"] == {"rows": n, "bypassed": n, "old_version": 0}
    items, seen = _run(pairs, forged)
    assert _stable(items) == _stable(fresh)
    assert seen == {"grounded": len(pairs) // 2, "writes": n}  # every response graded afresh, its grade kept
    forge_grades(forged)
    out = verify_grades(store.ProofStore(forged), regrade)
    assert out["checked"] == n and len(out["failures"]) == n
    assert all("not authenticated" in f["problem"] for f in out["failures"])


def test_the_same_forgeries_signed_with_the_key_would_be_served_and_verify_catches_them(filled, tmp_path):
    """The control: what the key (kept out of the file) prevents; `cache verify` grades again."""
    pairs, cache, fresh = filled
    signed = _copy(cache, tmp_path / "signed.sqlite")
    forge_grades(signed, key=Path(os.environ["ACPTOOLS_STORE_KEY_FILE"]).read_text().strip().encode())
    items, _ = _run(pairs, signed)
    assert [it["score"] for it in items] == [1 - it["score"] for it in fresh]
    out = _cli("cache", "verify", "--cache", signed, "--sample", 3)
    assert out.returncode == 1 and out.stdout.count("FAILED grade") == 3, out.stdout + out.stderr
    assert "graded again: score" in out.stdout and "not authenticated" not in out.stdout


def test_another_response_or_budget_is_graded_not_read(filled, tmp_path):
    pairs, cache, fresh = filled
    other = _copy(cache, tmp_path / "other.sqlite")
    changed = [(rec, dict(row, response=row["response"] + " ")) for rec, row in pairs]
    items, seen = _run(changed, other)
    assert seen["grounded"] == len(pairs) // 2 and seen["writes"] == len(pairs)
    assert [it["score"] for it in items] == [it["score"] for it in fresh]
    _, seen = _run(pairs, other, budget=BUDGET * 2)
    assert seen["grounded"] == len(pairs) // 2 and seen["writes"] == len(pairs)


def test_a_run_with_some_grades_stored_reads_those_and_grades_the_rest(filled, tmp_path):
    """Grades are read many at a time: every other response changed, those are graded (and kept),
    the others read, each item in its place."""
    pairs, cache, fresh = filled
    mixed = [
        (rec, dict(row, response=row["response"] + " ")) if k % 2 else (rec, row) for k, (rec, row) in enumerate(pairs)
    ]
    items, seen = _run(mixed, _copy(cache, tmp_path / "mixed.sqlite"))
    assert [it["score"] for it in items] == [it["score"] for it in fresh]
    assert [it["id"] for it in items] == [it["id"] for it in fresh]
    assert seen["writes"] == len(pairs) // 2  # the changed ones, graded and kept


def test_cache_stats_and_clear_count_stored_grades(filled, tmp_path):
    pairs, cache, _ = filled
    copy = _copy(cache, tmp_path / "stats.sqlite")
    stats = json.loads(_cli("cache", "stats", "--cache", copy).stdout)
    assert stats["grades"] == {"rows": len(pairs), "bypassed": 0, "old_version": 0}
    cleared = _cli("cache", "clear", "--cache", copy)
    assert cleared.returncode == 0 and f"removed {len(pairs)} stored grades" in cleared.stdout
    assert sqlite3.connect(copy).execute("SELECT COUNT(*) FROM grades").fetchone()[0] == 0
