"""ACPBench Hard records: reading JSON arrays, JSONL and .json.gz files or folders of them."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from .errors import AcpError

GROUP_TO_TASK = {
    "applicable_actions_gen": "app", "progression_gen": "prog", "reachable_atom_gen": "reach",
    "reachable_action_gen": "areach", "validation_gen": "val", "action_justification_gen": "just",
    "landmarks_gen": "land", "goal_closer_gen": "nexta",
}
TASKS = ("app", "prog", "reach", "areach", "val", "just", "land", "nexta")


def task_of(record: dict) -> str:
    group = record.get("group", "")
    if group in GROUP_TO_TASK:
        return GROUP_TO_TASK[group]
    if group in TASKS:
        return group
    raise AcpError(f"record {record.get('id')!r} has unknown group {group!r}", "data",
                   f"groups: {', '.join(GROUP_TO_TASK)}")


def domain_name(record: dict) -> str:
    m = re.search(r"\(\s*domain\s+([^\s()]+)", record.get("PDDL_domain", ""), re.I)
    return m.group(1).lower() if m else "?"


def _read_file(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        text = f.read()
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise AcpError(f"invalid JSON: {e.msg}", f"{path} line {e.lineno}, column {e.colno}") from None
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise AcpError(f"invalid JSON line: {e.msg}", f"{path} line {n}, column {e.colno}") from None
    return rows


def load_records(*paths) -> list[dict]:
    """Records from files or folders (every *.json, *.jsonl, *.json.gz below a folder)."""
    out: list[dict] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files = sorted(f for f in p.rglob("*") if f.is_file() and
                           (f.name.endswith(".json") or f.name.endswith(".jsonl") or f.name.endswith(".json.gz")))
        elif p.is_file():
            files = [p]
        else:
            raise AcpError(f"no such file or folder: {p}", "data")
        for f in files:
            out.extend(_read_file(f))
    return out
