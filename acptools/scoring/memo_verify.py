"""`acptools cache verify` for stored grades (acptools.scoring.memo): each kept response is graded
again from scratch, the store turned off, and must get the same score and verdict."""

from __future__ import annotations

import json

from .. import store
from ..errors import AcpError
from .batch import score_pairs
from .items import UNKNOWN
from .memo import grade_key, record_digest


def verify(found, sample: int | None = None, seed: int = 0) -> dict:
    """Grade every stored response (or `sample` random ones) again without the store; a row fails
    when it does not authenticate, cannot be rebuilt, or grades differently. Rows of another version
    of the code are never served and are counted as `stale`, not checked."""
    failures, stale, checked = [], 0, 0
    for key, task, text, authentic in found.grade_rows(sample, seed):
        checked += 1
        if not authentic:
            failures.append({"key": key, "problem": "not authenticated by this store's key (forged, or written "
                                                    "with another key)"})
            continue
        texts = found.task_texts(task)
        if texts is None:
            failures.append({"key": key, "problem": "the task's PDDL is not in the store: the grade cannot be checked"})
            continue
        try:
            row = json.loads(text)
            record = dict(row["record"], PDDL_domain=texts[0], PDDL_problem=texts[1])
            current = grade_key(record_digest(record), row["response"], row["semantics"], row["until"],
                                row["seconds"]) == key
        except (ValueError, TypeError, KeyError) as e:
            failures.append({"key": key, "problem": f"a malformed row ({type(e).__name__}: {e})"})
            continue
        if not current:
            stale += 1
            continue
        problem = _regrade_problem(record, row)
        if problem:
            failures.append({"key": key, "problem": problem})
    return {"checked": checked, "stale": stale, "failures": failures}


def _regrade_problem(record: dict, row: dict) -> str:
    """'' when a fresh grade (the store turned off) equals the stored one, else what differs."""
    previous = store.active()
    store._active = None  # grade from scratch: never read what is being checked
    try:
        item = score_pairs([(record, {"id": record.get("id"), "response": row["response"]})], row["semantics"],
                           row["seconds"], until=row["until"])[0]
    except AcpError as e:
        return f"cannot be graded again: {e}"
    finally:
        store._active = previous
    if item.get("verdict") == UNKNOWN:
        return "not graded again within its budget"
    stored = row["graded"]
    differ = [k for k in ("score", "verdict") if item.get(k) != stored.get(k)]
    return f"graded again: {', '.join(f'{k} {stored.get(k)!r} stored, {item.get(k)!r} now' for k in differ)}" \
        if differ else ""
