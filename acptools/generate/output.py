"""The records file of `acptools generate --out`, written as each task's records are made, so a
crash or Ctrl-C leaves a valid partial file and --resume makes only the tasks not finished.

The settings (and the ids of each finished task's records) are kept in `<out>.run.json`
(acptools.util.runfile); at the end the file is rewritten in the tasks' order, byte-identical to a run
that was never interrupted."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..util.runfile import check_fresh, check_settings, read_jsonl, read_progress, write_sidecar
from .records import dumps, write_jsonl

COMMAND = "generate"


def digest(text: str) -> str:
    """The SHA-256 hex digest of a text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class RecordsOut:
    """Generated records written to a JSONL file task by task, with a sidecar marking the finished
    tasks (so a run can resume)."""

    def __init__(self, path, settings: dict, resume: bool = False, force: bool = False):
        self.path, self.settings = Path(path), settings
        check_fresh(self.path, resume, force)
        self.done: dict[str, list[dict]] = {}
        if resume and self.path.is_file():
            check_settings(self.path, COMMAND, settings)
            self.done = _finished(self.path)
        self._write_all([r for records in self.done.values() for r in records])
        self._fh = open(self.path, "a", encoding="utf-8", newline="\n")

    def add(self, task: str, records: list[dict]) -> None:
        """A task's records: appended (flushed), then the task marked finished in the sidecar."""
        for r in records:
            self._fh.write(dumps(r) + "\n")
        self._fh.flush()
        self.done[task] = records
        self._sidecar()

    def finish(self, records: list[dict]) -> None:
        """Every record in the final order (the same bytes as a run never interrupted)."""
        self.close()
        tmp = self.path.with_name(self.path.name + ".tmp")
        write_jsonl(records, tmp)
        tmp.replace(self.path)

    def close(self) -> None:
        """Close the file (again is harmless)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def _write_all(self, records: list[dict]) -> None:
        write_jsonl(records, self.path)
        self._sidecar()

    def _sidecar(self) -> None:
        progress = {"finished": {task: [r["id"] for r in records] for task, records in self.done.items()}}
        write_sidecar(self.path, COMMAND, self.settings, progress)


def _finished(path: Path) -> dict[str, list[dict]]:
    """The tasks the sidecar marks finished whose records are all in the file."""
    by_id = {r.get("id"): r for r in read_jsonl(path)}
    done = {}
    for task, ids in read_progress(path).get("finished", {}).items():
        if all(i in by_id for i in ids):
            done[task] = [by_id[i] for i in ids]
    return done
