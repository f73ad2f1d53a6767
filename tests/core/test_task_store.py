"""Grounded tasks kept in the proof store (acptools.task_store, acptools.ground.snapshot): a later run
reads the task instead of grounding it, and the task it reads answers every question as a fresh load
does, grounds further exactly as grounding everything at once would, and lists the same possible
actions; a row that does not authenticate is never read (its bytes would run code), nor are bytes
that name anything but acptools' own classes, nor a row kept by another version of the code; a
read-only store is read and not written; `cache verify` loads each kept task again and names a wrong one."""

from __future__ import annotations

import hashlib
import json
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

from acptools import examples, load_task, store, task_store, truth
from acptools.ground import snapshot
from acptools.hashing import code_version, task_key
from tests.core.test_lazy_grounding import _assert_same_grounding, _other_tasks, _states
from tests.core.test_store_security import _read_only_prefix
from tests.support.data import ROOT

BUDGET = 20.0
# STRIPS, ADL (quantifiers, conditional effects, negative preconditions), derived predicates, a
# suite task whose lazy grounding leaves most operators out
NAMES = ["example:ferry", "example:rover", "test:briefcase", "test:doors", "test:blocks-derived",
         "test:rooms-derived", "suite:logistics/small", "suite:schedule/small"]


@pytest.fixture
def kept(tmp_path, monkeypatch):
    """A fresh store in use, and a counter of the tasks loaded from their PDDL (not read from it)."""
    loads: list[str] = []
    real = task_store.load_task

    def counting(d, p):
        loads.append(task_key(d, p))
        return real(d, p)
    monkeypatch.setattr(task_store, "load_task", counting)
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
            "nexta": (q.optimal_next(names, budget=BUDGET).h_star, q.optimal_next(names, budget=BUDGET).optimal_actions),
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
    assert restored is not first and snapshot.fingerprint(restored) == snapshot.fingerprint(load_task(d, p))
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
    """Bytes that run code when read: they create a file."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return os.system, (f"touch {self.path}",)


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
    assert snapshot.fingerprint(task) == snapshot.fingerprint(load_task(d, p))


def test_signed_bytes_that_name_anything_but_our_classes_are_not_read(kept, tmp_path):
    """Even bytes signed with the store's key may name only acptools' classes and plain containers:
    a payload calling os.system is refused by the reader and the task loaded afresh."""
    found, loads = kept
    d, p = examples.texts("ferry")
    key = task_key(d, p)
    marker = tmp_path / "ran"
    found.put_grounded(key, code_version(), zlib.compress(pickle.dumps(_Payload(str(marker)))))
    task = _again(d, p)
    assert not marker.exists() and found.bypassed == 1 and loads == [key]
    assert snapshot.fingerprint(task) == snapshot.fingerprint(load_task(d, p))
    with pytest.raises(pickle.UnpicklingError, match="may not name"):
        snapshot.loads(zlib.compress(pickle.dumps(_Payload(str(marker)))), d)


def test_a_task_kept_by_another_version_of_the_code_is_not_read(kept, monkeypatch):
    found, loads = kept
    d, p = examples.texts("ferry")
    truth.task_for(d, p)
    monkeypatch.setattr(task_store, "code_version", lambda: "another version")
    _again(d, p)
    assert loads == [task_key(d, p)] * 2 and found.grounded_count(exclude="another version") == 1


READ_ONLY_RUN = """
import json, sys
from acptools import examples, store, task_store, truth
loaded = []
real = task_store.load_task
task_store.load_task = lambda d, p: loaded.append(1) or real(d, p)
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
        out = subprocess.run(prefix + [sys.executable, "-c", READ_ONLY_RUN, str(folder / "proofs.sqlite")],
                             capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    finally:
        folder.chmod(0o755)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen == {"readonly": True, "broken": "", "loaded": 1, "hits": 1, "writes": 0, "kept": 1}, seen
    assert (folder / "proofs.sqlite").read_bytes() == before


def _cache_cli(*args) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "ACPTOOLS_CACHE"}
    return subprocess.run([sys.executable, "-m", "acptools.cli", "cache", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=600)


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

