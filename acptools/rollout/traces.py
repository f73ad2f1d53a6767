"""The JSONL trace file (--out): every step as it is graded, so a long run can be resumed.

Rows, one JSON object per line, told apart by `kind`:
  {"kind": "run", "settings": {...}}            first line: the settings the traces were made with
  {"kind": "step", "episode": ..., "step": ..., "reply": ..., "action": ..., "verdict": ...,
   "optimal": ..., "regret": ..., ...}          one per step, written as soon as it is graded
  {"kind": "episode", "episode": ..., "ended": ..., "solved": ..., ...}
                                                one per finished episode, after its steps

--resume keeps the episodes that finished (at the goal, the step limit or the invalid-reply limit),
drops the rows of the others (cut off, or ended by a policy or task error, which are tried again)
and appends; a file written with other settings (another policy, --show-applicable, ...) is refused,
so one report never mixes two experiments.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import AcpError

RUN, STEP, EPISODE = "run", "step", "episode"
GOAL, MAX_STEPS, MAX_INVALID, POLICY_ERROR, ERROR = "goal", "max-steps", "max-invalid", "policy-error", "error"
ENDINGS = (GOAL, MAX_STEPS, MAX_INVALID, POLICY_ERROR, ERROR)
FINISHED = (GOAL, MAX_STEPS, MAX_INVALID)   # the others are tried again by --resume


class TraceFile:
    """Rows in memory, and in `path` when given (flushed row by row)."""

    def __init__(self, path=None, settings: dict | None = None, resume: bool = False):
        self.path = Path(path) if path is not None else None
        self.settings = settings or {}
        self.rows: list[dict] = []
        self._fh = None
        if resume and self.path is None:
            raise AcpError("--resume needs --out: the traces to resume from", "--resume")
        if resume and self.path.is_file():
            self._resume()
        else:
            self._start()

    @property
    def done(self) -> set[str]:
        """Ids of the episodes that have finished (and so are not run again)."""
        return _finished(self.rows)

    def write(self, row: dict) -> dict:
        self.rows.append(row)
        if self._fh is not None:
            self._fh.write(json.dumps(row, default=str) + "\n")
            self._fh.flush()
        return row

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def _start(self) -> None:
        if self.path is not None:
            self._fh = open(self.path, "w", encoding="utf-8")
        self.write({"kind": RUN, "settings": self.settings})

    def _resume(self) -> None:
        rows = read_rows(self.path)
        if not rows or rows[0].get("kind") != RUN:
            raise AcpError("not a rollout trace file (no 'run' row first)", f"--out {self.path}",
                           "resume from a file `acptools rollout --out` wrote, or drop --resume")
        theirs = rows[0].get("settings", {})
        differ = [k for k in self.settings if k in theirs and theirs[k] != self.settings[k]]
        if differ:
            raise AcpError("the traces were written with other settings: " + ", ".join(
                f"{k} {theirs[k]!r} (now {self.settings[k]!r})" for k in differ), f"--out {self.path}",
                "resume with the same settings, or write to another --out")
        finished = _finished(rows)
        kept = [rows[0]] + [r for r in rows[1:] if r.get("episode") in finished]
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r, default=str) + "\n" for r in kept)
        os.replace(tmp, self.path)
        self.rows = kept
        self._fh = open(self.path, "a", encoding="utf-8")


def _finished(rows: list[dict]) -> set[str]:
    return {r["episode"] for r in rows if r.get("kind") == EPISODE and r.get("ended") in FINISHED}


def read_rows(path) -> list[dict]:
    """The rows of a trace file. A cut-off last line (a run killed mid-write) is dropped; any other
    bad line is an error that says where."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    rows = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            if n == len(lines):
                break
            raise AcpError(f"invalid JSON: {e.msg}", f"{path} line {n}, column {e.colno}") from None
    return rows
