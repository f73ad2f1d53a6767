"""`acptools cache stats|verify|clear`, where the proof store lives by default (ACPTOOLS_CACHE,
XDG_CACHE_HOME, ~/.cache), and `acptools score --no-until`: real processes on real records."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from acptools.dataset import acpbench_hard
from acptools.proofs import store
from acptools.scoring import gold_response
from tests.support.data import ROOT


def _env(**changes) -> dict:
    """The environment without the test session's ACPTOOLS_CACHE=off (unless given), plus `changes`."""
    env = {k: v for k, v in os.environ.items() if k not in ("ACPTOOLS_CACHE", "XDG_CACHE_HOME")}
    env.update(PYTHONPATH=str(ROOT), **changes)
    return env


def _acptools(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acptools.cli", *map(str, args)],
        capture_output=True,
        text=True,
        env=env or _env(),
        cwd=ROOT,
        timeout=600,
    )


def _fill(tmp_path, cache=None, env=None) -> None:
    """Score the gold answers of a few records, so proofs are stored (in `cache`, or the default store)."""
    data = tmp_path / "records.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for t in ("nexta", "land") for r in acpbench_hard("dev", t)[:2]))
    where = [] if cache is None else ["--cache", cache]
    done = _acptools("score", "--data", data, "--gold", "--quiet", *where, env=env)
    assert done.returncode == 0, done.stderr


def test_cache_stats_then_clear(tmp_path):
    cache = tmp_path / "proofs.sqlite"
    _fill(tmp_path, cache)
    stats = _acptools("cache", "stats", "--cache", cache)
    assert stats.returncode == 0, stats.stderr
    shown = json.loads(stats.stdout)
    assert shown == store.ProofStore(cache).stats() and shown["path"] == str(cache)
    facts = sum(shown["facts"].values())
    assert facts > 0 and shown["tasks"] == 4 and any(k.endswith(" h*") for k in shown["facts"])
    cleared = _acptools("cache", "clear", "--cache", cache)
    assert cleared.returncode == 0 and f"removed {facts} facts from {cache}" in cleared.stdout
    after = store.ProofStore(cache).stats()
    assert after["facts"] == {} and after["tasks"] == 0


def test_cache_verify_proves_as_many_facts_as_sampled(tmp_path):
    cache = tmp_path / "proofs.sqlite"
    _fill(tmp_path, cache)
    assert sum(store.ProofStore(cache).stats()["facts"].values()) > 2
    one = _acptools("cache", "verify", "--cache", cache, "--sample", "2")
    assert one.returncode == 0, one.stderr
    assert f"checked 2 random rows of {cache}: 0 failed" in one.stdout
    every = _acptools("cache", "verify", "--cache", cache)  # every row by default
    rows = sum(store.ProofStore(cache).stats()["facts"].values())
    assert every.returncode == 0 and f"checked all {rows} rows of {cache}: 0 failed" in every.stdout, every.stdout


def test_the_default_store_follows_xdg_cache_home_then_home(tmp_path):
    xdg, home = tmp_path / "xdg", tmp_path / "home"
    _fill(tmp_path, env=_env(XDG_CACHE_HOME=str(xdg), HOME=str(home)))
    assert (xdg / "acptools" / "proofs.sqlite").is_file() and not (home / ".cache").exists()
    stats = json.loads(_acptools("cache", "stats", env=_env(XDG_CACHE_HOME=str(xdg), HOME=str(home))).stdout)
    assert stats["path"] == str(xdg / "acptools" / "proofs.sqlite") and stats["tasks"] == 4
    no_xdg = json.loads(_acptools("cache", "stats", env=_env(HOME=str(home))).stdout)
    assert no_xdg["path"] == str(home / ".cache" / "acptools" / "proofs.sqlite") and no_xdg["tasks"] == 0
    named = tmp_path / "named.sqlite"
    chosen = json.loads(_acptools("cache", "stats", env=_env(ACPTOOLS_CACHE=str(named), HOME=str(home))).stdout)
    assert chosen["path"] == str(named)
    off = _acptools("cache", "stats", env=_env(ACPTOOLS_CACHE="off", HOME=str(home)))
    assert off.returncode == 2 and "the proof store is turned off" in off.stderr and "--cache PATH" in off.stderr


def test_default_path_in_process(monkeypatch, tmp_path):
    monkeypatch.delenv("ACPTOOLS_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert store.default_path() == tmp_path / "x" / "acptools" / "proofs.sqlite"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert store.default_path() == tmp_path / "h" / ".cache" / "acptools" / "proofs.sqlite"
    for off in ("off", "0", "none", ""):
        monkeypatch.setenv("ACPTOOLS_CACHE", off)
        assert store.default_path() is None


def test_no_until_keeps_text_after_the_stop_strings(tmp_path):
    """Reference semantics cut a response at lm-eval's stop strings ('\\n\\n' among them) unless --no-until."""
    recs = [acpbench_hard("dev", t)[0] for t in ("val", "app", "nexta")]
    data, responses = tmp_path / "records.jsonl", tmp_path / "responses.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in recs))
    responses.write_text(
        "".join(
            json.dumps({"id": r["id"], "group": r["group"], "model": "m", "response": "\n\n" + gold_response(r)}) + "\n"
            for r in recs
        )
    )
    scores = {}
    for flags in ((), ("--no-until",)):
        out = tmp_path / f"items{len(flags)}.jsonl"
        done = _acptools(
            "score",
            "--data",
            data,
            "--responses",
            responses,
            "--semantics",
            "reference",
            "--quiet",
            "--no-cache",
            "--out",
            out,
            *flags,
        )
        assert done.returncode == 0, done.stderr
        scores[flags] = [json.loads(line)["score"] for line in out.read_text().splitlines()]
    assert scores[()] == [0, 0, 0] and scores[("--no-until",)] == [1, 1, 1]
