"""Grounded tasks kept in the proof store (acptools.proofs.kept_tasks, acptools.ground.snapshot): a later run
reads the task instead of grounding it, and the task it reads answers every question as a fresh load
does, grounds further exactly as grounding everything at once would, and lists the same possible
actions; a row that does not authenticate is never read, and even a signed row is only data (bytes
that would run code run nothing); a row kept by another version of the code is not read; a read-only
store is read and not written; `cache verify` loads each kept task again and names a wrong one."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import random
import shutil
import sqlite3
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from acptools import examples, load_task, truth
from acptools.dataset import acpbench_hard
from acptools.ground import snapshot
from acptools.proofs import kept_tasks, store
from acptools.util.hashing import code_version, task_key
from tests.core.test_lazy_grounding import _assert_same_grounding, _other_tasks, _states
from tests.core.test_store_security import _read_only_prefix
from tests.support.data import ROOT

BUDGET = 20.0
# STRIPS, ADL (quantifiers, conditional effects, negative preconditions), derived predicates, a
# suite task whose lazy grounding leaves most operators out
NAMES = [
    "example:ferry",
    "example:rover",
    "test:briefcase",
    "test:doors",
    "test:blocks-derived",
    "test:rooms-derived",
    "suite:logistics/small",
    "suite:schedule/small",
]


@pytest.fixture
def kept(tmp_path, monkeypatch):
    """A fresh store in use, and a counter of the tasks loaded from their PDDL (not read from it)."""
    loads: list[str] = []
    real = kept_tasks.load_task

    def counting(d, p, **limits):
        loads.append(task_key(d, p))
        return real(d, p, **limits)

    monkeypatch.setattr(kept_tasks, "load_task", counting)
    found = store.use(tmp_path / "proofs.sqlite")
    truth.clear_caches()
    yield found, loads
    truth.clear_caches()
    found.close()
    store.use(None)


def _again(d: str, p: str):
    """The task as a new process would get it: in-process caches emptied, then `task_for`."""
    truth.clear_caches()
    return truth.task_for(d, p)


def _answers(task) -> dict:
    """Every question's answer on the initial state and on a few steps of a seeded walk."""
    q, rng, out = task.questions, random.Random(0), {}
    state = task.init
    for step in range(3):
        names = task.names(state & ~task.derived)
        app = q.applicable(names)
        plan = q.plan(names, budget=BUDGET)
        out[step] = {
            "app": app,
            "prog": [(e.positive_effects, e.negative_effects) for e in (q.progress(a, names) for a in app[:3])],
            "reach": sorted(q.unreachable_atoms(names, BUDGET).names),
            "areach": sorted(q.unreachable_actions(names, BUDGET).names),
            "land": sorted(q.landmarks(names, BUDGET).names),
            "nexta": (
                q.optimal_next(names, budget=BUDGET).h_star,
                q.optimal_next(names, budget=BUDGET).optimal_actions,
            ),
            "val": q.validate(plan.witness or [], names).first_inapplicable if plan.answer else None,
        }
        if not app:
            break
        state = task.apply_op(task.op_for(task.parse_action(rng.choice(app)), state), state)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_a_kept_task_is_read_not_grounded_and_answers_as_a_fresh_load(name, kept):
    found, loads = kept
    d, p = _other_tasks()[name]
    first = truth.task_for(d, p)
    assert loads == [task_key(d, p)] and found.grounded_count() == 1
    restored = _again(d, p)
    assert loads == [task_key(d, p)], "the second run grounded the task again"
    assert restored is not first and snapshot.fingerprint(restored.grounded) == snapshot.fingerprint(
        load_task(d, p).grounded
    )
    assert _answers(restored) == _answers(load_task(d, p))


@pytest.mark.parametrize("name", ["suite:logistics/small", "test:doors", "example:grid-visit-all"])
def test_a_restored_task_grounds_further_exactly_as_grounding_everything(name, kept):
    """States outside what loading reached, actions lazy grounding never met and the possible
    actions: the parts a restored task rebuilds on first use."""
    d, p = _other_tasks()[name]
    truth.task_for(d, p)
    restored, full = _again(d, p), load_task(d, p, ground_all=True)
    restored.possible_actions()
    unmet = next(name for name in restored.all_ground_actions() if name not in restored.action_index)
    restored.parse_action(unmet)
    full.parse_action(unmet)  # (the grounding of every named action is compared below)
    assert "_exploration" not in vars(restored)  # listing and naming actions need no fixpoint
    _assert_same_grounding(restored, full, _states(full, 3), 3)


def test_restoring_costs_less_than_loading(kept):
    """The point of keeping a task, in CPU time (best of three each): restoring the alfred-size
    household task takes at most half of what loading it takes."""
    d, p = _other_tasks()["test:household"]
    truth.task_for(d, p)
    blob = found_blob(kept[0], task_key(d, p))
    loading = min(_cpu(lambda: load_task(d, p)) for _ in range(3))
    restoring = min(_cpu(lambda: snapshot.loads(blob, d)) for _ in range(3))
    assert restoring < loading / 2, (restoring, loading)


def _cpu(fn) -> float:
    t0 = time.thread_time()
    fn()
    return time.thread_time() - t0


def found_blob(found, key: str) -> bytes:
    blob = found.get_grounded(key, code_version())
    assert blob is not None
    return blob


class _Payload:
    """Pickled bytes that run code when unpickled: they create a file."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return os.system, (f"touch {self.path}",)


class _Truncating:
    """Pickled bytes that name only an acptools class, whose constructor truncates a file (the row
    the issue reported: its unpickling would have run `TraceFile(path)`)."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        from acptools.rollout.traces import TraceFile

        return TraceFile, (self.path, None, False, True)


def _write_row(path, key: str, blob: bytes, mac: str) -> None:
    conn = sqlite3.connect(path)
    conn.execute("INSERT OR REPLACE INTO grounded VALUES (?, ?, ?, ?)", (code_version(), key, blob, mac))
    conn.commit()
    conn.close()


def test_a_forged_row_is_never_read(kept, tmp_path):
    """Bytes that would run code, with a checksum made without the key: bypassed, counted, not read;
    the task is loaded from its PDDL and answers as always."""
    found, loads = kept
    d, p = examples.texts("ferry")
    key = task_key(d, p)
    marker = tmp_path / "ran"
    evil = zlib.compress(pickle.dumps(_Payload(str(marker))))
    _write_row(found.path, key, evil, hashlib.sha256(evil).hexdigest())
    task = _again(d, p)
    assert not marker.exists() and found.bypassed == 1 and loads == [key]
    assert snapshot.fingerprint(task.grounded) == snapshot.fingerprint(load_task(d, p).grounded)


def _one_operator_dropped(d: str, p: str) -> bytes:
    """A well-formed snapshot of the task (d, p) with its first operator gone: harmless to read, wrong."""
    task = load_task(d, p).grounded
    aid = task.operators[0].action
    task.operators = [op for op in task.operators if op is not task.operators[0]]
    task.ops_of_action[aid] = task.ops_of_action[aid][1:]
    return snapshot.dumps(task)


def test_a_well_formed_row_not_signed_by_the_key_is_refused(kept, tmp_path, caplog):
    """A valid snapshot of the same task with one operator dropped, its MAC made under another key:
    the HMAC check alone refuses it (the bytes would read as the task, one operator short), and the
    task is loaded from its PDDL with every operator."""
    found, loads = kept
    d, p = examples.texts("ferry")
    key = task_key(d, p)
    forged = _one_operator_dropped(d, p)
    read = snapshot.loads(forged, d)
    assert read.key == key and snapshot.fingerprint(read) != snapshot.fingerprint(load_task(d, p).grounded)
    other = store.ProofStore(tmp_path / "other.sqlite", key=b"not this store's key")
    mac = other._grounded_mac(key, code_version(), forged)
    _write_row(found.path, key, forged, mac)
    with caplog.at_level(logging.WARNING, logger="acptools.store"):
        task = _again(d, p)
    assert found.bypassed == 1 and loads == [key] and found.hits == 0
    assert "not authenticated by this store's key" in caplog.text
    assert snapshot.fingerprint(task.grounded) == snapshot.fingerprint(load_task(d, p).grounded)
    assert task.questions.applicable() == load_task(d, p).questions.applicable()
    found.close()
    _write_row(found.path, key, forged, mac)  # (the load above kept the true task in its place)
    out = _cache_cli("verify", "--cache", found.path)
    assert out.returncode == 1 and f"FAILED grounded task {key[:16]}" in out.stdout, out.stdout + out.stderr
    assert "not authenticated" in out.stdout


def _signed_code_rows(found, tasks: list[tuple[str, str]], marker: Path, victim: Path) -> list[str]:
    """Rows for two tasks signed with the store's key whose pickled bytes would run code: one calling
    os.system (touches `marker`), one constructing an acptools class that truncates `victim`; their
    task keys."""
    keys = []
    for (d, p), payload in zip(tasks, (_Payload(str(marker)), _Truncating(str(victim)))):
        key = task_key(d, p)
        found.remember_task(key, d, p)
        found.put_grounded(key, code_version(), zlib.compress(pickle.dumps(payload)))
        keys.append(key)
    return keys


def test_signed_rows_that_would_run_code_run_nothing(kept, tmp_path):
    """Even bytes signed with the store's key (a shared store's key may be readable by its group) are
    only data: pickled bytes calling os.system or an acptools constructor that truncates a file run
    nothing when the task is read; each is bypassed and counted, the task loaded from its PDDL."""
    found, loads = kept
    marker, victim = tmp_path / "ran", tmp_path / "precious.txt"
    victim.write_text("kept\n")
    keys = _signed_code_rows(found, [examples.texts("ferry"), examples.texts("rover")], marker, victim)
    for name in ("ferry", "rover"):
        task = _again(*examples.texts(name))
        assert snapshot.fingerprint(task.grounded) == snapshot.fingerprint(load_task(*examples.texts(name)).grounded)
    assert not marker.exists() and victim.read_text() == "kept\n"
    assert found.bypassed == 2 and loads == keys
    with pytest.raises(ValueError):
        snapshot.loads(zlib.compress(pickle.dumps(_Truncating(str(victim)))), examples.texts("rover")[0])
    assert victim.read_text() == "kept\n"


def test_score_and_cache_verify_run_no_code_from_signed_rows(tmp_path):
    """The processes the issue named: `acptools score` and `acptools cache verify` reading a store whose
    signed rows hold pickled code; nothing runs, verify names both rows, score grades as usual."""
    cache, marker, victim = tmp_path / "proofs.sqlite", tmp_path / "ran", tmp_path / "precious.txt"
    victim.write_text("kept\n")
    records = list({(r["PDDL_domain"], r["PDDL_problem"]): r for r in acpbench_hard("dev", "app")}.values())[:2]
    found = store.ProofStore(cache)
    _signed_code_rows(found, [(r["PDDL_domain"], r["PDDL_problem"]) for r in records], marker, victim)
    found.close()
    verified = _cache_cli("verify", "--cache", cache)
    assert verified.returncode == 1 and verified.stdout.count("FAILED grounded task") == 2, verified.stdout
    assert not marker.exists() and victim.read_text() == "kept\n"
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    env = {k: v for k, v in os.environ.items() if k != "ACPTOOLS_CACHE"}
    scored = subprocess.run(
        [
            sys.executable,
            "-m",
            "acptools.cli",
            "score",
            "--data",
            str(tmp_path / "data.jsonl"),
            "--gold",
            "--quiet",
            "--cache",
            str(cache),
            "--out",
            str(tmp_path / "items.jsonl"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    assert scored.returncode == 0 and "bypassed" in scored.stderr, scored.stderr
    items = [json.loads(line) for line in (tmp_path / "items.jsonl").read_text().splitlines()]
    assert len(items) == len(records) and all(i["score"] == 1 for i in items), items
    # score loaded both tasks from their PDDL and kept them in place of the rows: verify now passes
    assert _cache_cli("verify", "--cache", cache).returncode == 0
    assert not marker.exists() and victim.read_text() == "kept\n"


def test_a_task_kept_by_another_version_of_the_code_is_not_read(kept, monkeypatch):
    found, loads = kept
    d, p = examples.texts("ferry")
    truth.task_for(d, p)
    monkeypatch.setattr(kept_tasks, "code_version", lambda: "another version")
    _again(d, p)
    assert loads == [task_key(d, p)] * 2 and found.grounded_count(exclude="another version") == 1


READ_ONLY_RUN = """
import json, sys
from acptools import examples, truth
from acptools.proofs import kept_tasks, store
loaded = []
real = kept_tasks.load_task
kept_tasks.load_task = lambda d, p, **limits: loaded.append(1) or real(d, p, **limits)
found = store.use(sys.argv[1])
truth.task_for(*examples.texts("ferry"))   # kept in the store
truth.task_for(*examples.texts("rover"))   # not kept
print(json.dumps({"readonly": found.readonly, "broken": found.broken, "loaded": len(loaded), "hits": found.hits,
                  "writes": found.writes, "kept": found.grounded_count()}))
"""


def test_a_read_only_store_is_read_and_not_written(kept, tmp_path):
    found, _ = kept
    truth.task_for(*examples.texts("ferry"))
    found.close()
    folder = tmp_path / "ro"
    folder.mkdir()
    for suffix in ("", "-wal", "-shm"):
        if Path(str(found.path) + suffix).exists():
            shutil.copy(str(found.path) + suffix, folder / ("proofs.sqlite" + suffix))
    before = (folder / "proofs.sqlite").read_bytes()
    prefix = _read_only_prefix(folder)
    try:
        env = {k: v for k, v in os.environ.items() if k != "ACPTOOLS_CACHE"}
        out = subprocess.run(
            prefix + [sys.executable, "-c", READ_ONLY_RUN, str(folder / "proofs.sqlite")],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=600,
        )
    finally:
        folder.chmod(0o755)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen == {"readonly": True, "broken": "", "loaded": 1, "hits": 1, "writes": 0, "kept": 1}, seen
    assert (folder / "proofs.sqlite").read_bytes() == before


def _cache_cli(*args) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "ACPTOOLS_CACHE"}
    return subprocess.run(
        [sys.executable, "-m", "acptools.cli", "cache", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )


def test_cache_verify_loads_every_kept_task_again_and_names_a_wrong_one(kept):
    found, _ = kept
    for name in ("ferry", "rover"):
        truth.task_for(*examples.texts(name))
    found.close()
    out = _cache_cli("verify", "--cache", found.path)
    assert out.returncode == 0 and "loaded again all 2 grounded tasks: 0 failed" in out.stdout, out.stdout + out.stderr
    # the rover row signed with the key but holding the ferry task: authentic, yet wrong
    ferry, rover = (task_key(*examples.texts(n)) for n in ("ferry", "rover"))
    found.put_grounded(rover, code_version(), found_blob(found, ferry))
    found.close()
    out = _cache_cli("verify", "--cache", found.path)
    assert out.returncode == 1 and f"FAILED grounded task {rover[:16]}" in out.stdout, out.stdout
    assert "1 failed" in out.stdout
    truth.clear_caches()
    task = truth.task_for(*examples.texts("rover"))  # and the run itself does not take it
    assert task.key == rover and found.bypassed == 1


def _wide_task(n: int = 125) -> tuple[str, str]:
    """n*n fluent atoms (over 15,000 for n=125: bit sets of more than 4,300 decimal digits), few actions."""
    domain = """(define (domain wide) (:requirements :strips :typing) (:types node)
      (:predicates (road ?x ?y - node) (visited ?x ?y - node))
      (:action go :parameters (?x ?y - node) :precondition (and (road ?x ?y) (visited ?x ?x))
       :effect (and (visited ?y ?y) (visited ?x ?y) (not (visited ?x ?x)))))"""
    nodes = [f"n{k:03d}" for k in range(n)]  # numbered in this order: the last nodes hold the highest bits
    roads = " ".join(f"(road {a} {b})" for a, b in zip(nodes[-4:], nodes[-3:]))
    problem = (
        f"(define (problem wide) (:domain wide) (:objects {' '.join(nodes)} - node) "
        f"(:init {roads} (visited {nodes[-4]} {nodes[-4]})) (:goal (visited {nodes[-1]} {nodes[-1]})))"
    )
    return domain, problem


def test_bit_sets_past_python_decimal_limit_are_kept_and_read(kept):
    """States and masks of more than 4,300 decimal digits (Python refuses to write those as decimal
    text): the row is written, read instead of grounding, and the same task."""
    found, loads = kept
    d, p = _wide_task()
    first = truth.task_for(d, p)
    assert len(first.atoms) > 15_000 and first.goal_atoms.bit_length() > 15_000 and len(first.operators) == 3
    restored = _again(d, p)
    assert loads == [task_key(d, p)] and found.bypassed == 0
    assert snapshot.fingerprint(restored.grounded) == snapshot.fingerprint(load_task(d, p).grounded)
    assert restored.questions.plan(restored.names(restored.init), budget=BUDGET).witness == [
        f"(go n{k:03d} n{k + 1:03d})" for k in range(121, 124)
    ]
