"""Grounded tasks kept in the proof store, so that a later run reads a task instead of parsing and
grounding it again.

`truth.task_for` loads every task it has not met in this process through `load`: with a store in
use (acptools.store, on by default) it reads the task from the store's `grounded` table, else loads
the PDDL and keeps what loading made (acptools.ground.snapshot). A row is keyed by the task's content
hash and by a digest of the acptools code (`hashing.code_version`: a task kept by one version of the
code is never read by another), and carries an HMAC under the store's key like every proof row: a row
that does not authenticate is bypassed and counted, and its bytes are never read. The bytes are plain
data (snapshot.py): even a signed row cannot make its reader run code. `acptools cache verify` loads
each kept task again from its PDDL and compares (`verify`).
"""

from __future__ import annotations

from . import store
from .ground import snapshot
from .hashing import code_version, task_key
from .task import Task, load_task


def load(domain_text: str, problem_text: str) -> Task:
    """The task of this PDDL: read from the active store when it keeps it for this code, else loaded
    (and kept there when the store may be written)."""
    found = store.active()
    if found is None or found.broken:
        return load_task(domain_text, problem_text)
    key, version = task_key(domain_text, problem_text), code_version()
    blob = found.get_grounded(key, version)
    if blob is not None:
        try:
            task = snapshot.loads(blob, domain_text, Task)
            if isinstance(task, Task) and task.key == key:
                return task
            found.bypass(store.GROUNDED_KIND, key, "the kept bytes are another task")
        except Exception as e:  # noqa: BLE001 -- bytes this key signed, yet unreadable: load afresh
            found.bypass(store.GROUNDED_KIND, key, f"unreadable ({type(e).__name__})")
    task = load_task(domain_text, problem_text)
    if not found.readonly:
        found.remember_task(key, domain_text, problem_text)
        found.put_grounded(key, version, snapshot.dumps(task))
    return task


def verify(found, sample: int | None = None, seed: int = 0) -> dict:
    """Every kept task of this code (or `sample` random ones) read back and compared with a fresh load
    of its PDDL; those kept by other versions of the code are counted as `stale` (never read)."""
    version = code_version()
    failures, checked = [], 0
    for key, authentic in found.grounded_rows(version, sample, seed):
        checked += 1
        problem = _kept_problem(found, key, version) if authentic else \
            "not authenticated by this store's key (forged, or written with another key)"
        if problem:
            failures.append({"key": key, "problem": problem})
    return {"checked": checked, "stale": found.grounded_count(exclude=version), "failures": failures}


def _kept_problem(found, key: str, version: str) -> str:
    """'' when the kept task equals a fresh load of its PDDL, else what is wrong."""
    texts = found.task_texts(key)
    if texts is None:
        return "the task's PDDL is not in the store: the kept task cannot be checked"
    fresh = load_task(*texts)
    if fresh.key != key:
        return "the stored PDDL is not the row's task"
    try:
        kept = snapshot.loads(found.get_grounded(key, version), texts[0], Task)
    except Exception as e:  # noqa: BLE001 -- any failure to read is the finding
        return f"unreadable ({type(e).__name__}: {e})"
    return "" if snapshot.fingerprint(kept) == snapshot.fingerprint(fresh) else \
        "differs from a fresh load of its PDDL"
