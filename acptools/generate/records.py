"""Records: the published ACPBench Hard fields first (id, group, context, question, answer, PDDL_domain,
PDDL_problem: the problem's init is the question's state), then the fields of the other forms
(`form`, `choices`, `query`, `spec`). Ids are signed 64-bit integers hashed from the content, so the
same question always gets the same id. JSONL output is byte-stable: same records, same bytes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..dataset import FIELDS
from ..describe import state_problem
from ..task import Task
from .base import Draft


def record_id(body: dict) -> int:
    """A signed 64-bit id from the record's content (every field but the id)."""
    data = json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big", signed=True)


def make_record(task: Task, draft: Draft) -> dict:
    """A record from a builder's draft: ACPBench Hard's fields first, then the form's, with a content-hashed id."""
    body = {
        "group": draft.group,
        "context": draft.context,
        "question": draft.question,
        "answer": draft.answer,
        "PDDL_domain": task.domain_text,
        "PDDL_problem": state_problem(task, draft.state),
    }
    body.update(draft.extra)
    record = {"id": record_id(body)}
    record.update((k, body[k]) for k in FIELDS[1:])
    record.update(draft.extra)
    return record


def dumps(record: dict) -> str:
    """One record as one line of JSON (keys in the record's order, text not escaped to ASCII)."""
    return json.dumps(record, ensure_ascii=False)


def write_jsonl(records, path) -> None:
    """One record a line, UTF-8, '\\n' line ends."""
    with open(Path(path), "w", encoding="utf-8", newline="\n") as fh:
        for r in records:
            fh.write(dumps(r) + "\n")
