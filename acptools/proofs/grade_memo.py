"""Grades kept in the proof store, so a warm run reads a response's grade instead of grading it again.

A grade is a function of the record (all of its fields, the PDDL included), the response text, the
semantics, the stop-string cut, the effort per proof and the code that grades. `grade_key` hashes all
of them, the code as a digest of every file of the installed acptools package (`code_version`): any
change to the scorer, the engine or its data gives new keys, so a stale grade is never found. Only
proven grades are kept (never `unknown`, never `error`). The row carries an HMAC under the store's
key like every proof row (acptools.proofs.store): a row that does not authenticate is bypassed and counted,
never served. `cache verify` grades each kept response again from scratch (acptools.proofs.verify).

A hit costs one hash of the response, its share of one SQLite query (grades are read many at a time)
and one HMAC: no parsing, no grounding.
"""

from __future__ import annotations

import hashlib
import json

from ..util.hashing import code_version, task_key
from ..verdict import Grade

PDDL_FIELDS = ("PDDL_domain", "PDDL_problem")
GRADED = ("score", "verdict", "reason", "witness", "metrics", "parsed")  # what a stored grade holds of an item


def record_digest(record: dict) -> str:
    """The record's content, every field (its identity, question, stored answer and PDDL)."""
    text = json.dumps(record, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def grade_key(digest: str, response, semantics: str, until: bool, seconds: float) -> str:
    """The key of one grade: the code, the settings that change grades, the record and the response."""
    text = json.dumps(
        [code_version(), semantics, bool(until), float(seconds), digest, response], ensure_ascii=False, default=repr
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def record_task(record: dict) -> str:
    """The content hash of the record's task (what the proof store keeps its PDDL under)."""
    return task_key(str(record.get("PDDL_domain", "")), str(record.get("PDDL_problem", "")))


def keepable(item: dict) -> bool:
    """Only proven grades are kept: never unknown, never an error (it may be transient)."""
    return item.get("verdict") not in (Grade.UNKNOWN, Grade.ERROR) and item.get("score") is not None


def lookup_many(found, keys: list[str]) -> dict[str, dict]:
    """The graded fields of the stored grades among `keys` (one store read for all of them)."""
    rows = {} if found is None else found.get_grades(keys)
    out = {key: _graded(found, key, row) for key, row in rows.items()}
    return {key: graded for key, graded in out.items() if graded is not None}


def _graded(found, key: str, row: dict) -> dict | None:
    graded = row.get("graded")
    if not isinstance(graded, dict) or set(graded) != set(GRADED):
        found.bypass("grade-memo", key, "not a stored grade")
        return None
    return graded


def keep(found, key: str, record: dict, response, semantics: str, until: bool, seconds: float, item: dict) -> None:
    """Store a proven grade with what `verify` needs to grade it again (the record without its PDDL,
    which the store keeps once per task, and the response and settings)."""
    if found is None or found.readonly or found.broken or not keepable(item):
        return
    task = record_task(record)
    found.remember_task(task, str(record.get("PDDL_domain", "")), str(record.get("PDDL_problem", "")))
    found.put_grade(
        key,
        task,
        {
            "graded": {k: item.get(k) for k in GRADED},
            "record": {k: v for k, v in record.items() if k not in PDDL_FIELDS},
            "response": response,
            "semantics": semantics,
            "until": bool(until),
            "seconds": float(seconds),
        },
    )
