"""Reading the files the batch commands write, telling them apart by their content:

scored items (JSONL, `score --out`, `eval --out`): rows with task, id, verdict, score
traces (JSONL, `rollout --out`): a {"kind": "run"} row, then step and episode rows
a score report (JSON, `score --report`): has "models"
a rollout report (JSON, `rollout --report`): has "settings" and "overall"
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import AcpError


@dataclass
class Run:
    """One rollout run: its trace rows and settings (the policy names it on the page)."""

    name: str
    rows: list[dict]
    settings: dict = field(default_factory=dict)
    source: str = ""


@dataclass
class Outputs:
    """Everything one page shows: scored items of any number of models, rollout runs, reports."""

    items: list[dict] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    score_reports: list[tuple[str, dict]] = field(default_factory=list)
    rollout_reports: list[tuple[str, dict]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def add_items(self, items: list[dict], source: str = "") -> None:
        """Add scored items read from `source`."""
        self.items.extend(items)
        self.sources.append(source)

    def add_run(self, rows: list[dict], source: str = "") -> None:
        """Add a rollout run's rows, named after its policy (made distinct from the runs already added)."""
        settings = rows[0].get("settings", {}) if rows and rows[0].get("kind") == "run" else {}
        name = str(settings.get("policy") or Path(source).stem or f"run {len(self.runs) + 1}")
        taken = {r.name for r in self.runs}
        if name in taken:  # two runs of one policy (say, two temperatures) stay apart
            name = f"{name} ({Path(source).name or len(self.runs) + 1})"
        self.runs.append(Run(name, rows, settings, source))
        self.sources.append(source)


def load_outputs(paths) -> Outputs:
    """Read every file in `paths` (items or traces JSONL, score or rollout report JSON) into one Outputs."""
    out = Outputs()
    paths = [str(p) for p in paths]
    if not paths:
        raise AcpError("no files given", "acptools report", "pass items.jsonl, traces.jsonl or report.json files")
    for p in paths:
        _load_one(out, p)
    if not out.items and not out.runs and not out.score_reports and not out.rollout_reports:
        raise AcpError("nothing to show: the files hold no items, traces or reports", " ".join(paths))
    return out


def _load_one(out: Outputs, path: str) -> None:
    p = Path(path)
    if not p.is_file():
        raise AcpError("no such file", path, "pass the --out or --report file of score, eval or rollout")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise AcpError(f"cannot read: {e}", path) from None
    doc = _whole_json(text)
    if isinstance(doc, dict) and "models" in doc:
        out.score_reports.append((path, doc))
        out.sources.append(path)
        return
    if isinstance(doc, dict) and "overall" in doc and "settings" in doc:
        out.rollout_reports.append((path, doc))
        out.sources.append(path)
        return
    rows = _jsonl_rows(text, path)
    if any(r.get("kind") in ("run", "step", "episode") for r in rows[:3]):
        out.add_run(rows, path)
    elif rows and all("task" in r and "verdict" in r for r in rows):
        out.add_items(rows, path)
    elif rows:
        raise AcpError(
            "rows that are neither scored items (task, verdict) nor rollout traces (kind)",
            path,
            "pass the --out file of score, eval or rollout",
        )
    else:
        out.sources.append(path)


def _whole_json(text: str):
    """The document when the whole file is one JSON value (a report), else None (JSONL)."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def _jsonl_rows(text: str, path: str) -> list[dict]:
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise AcpError(
                f"not JSON: {e.msg} at column {e.colno}",
                f"{path}:{n}",
                "pass a JSONL file one of the batch commands wrote",
            ) from None
        if not isinstance(row, dict):
            raise AcpError("a row that is not a JSON object", f"{path}:{n}")
        rows.append(row)
    return rows
