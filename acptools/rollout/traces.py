"""The JSONL trace file (--out): every step as it is graded, so a long run can be resumed.

Rows, one JSON object per line, told apart by `kind`:
  {"kind": "run", "settings": {...}}            first line: the settings the traces were made with
  {"kind": "step", "episode": ..., "step": ..., "reply": ..., "action": ..., "verdict": ...,
   "optimal": ..., "regret": ..., ...}          one per step, written as soon as it is graded
  {"kind": "episode", "episode": ..., "ended": ..., "solved": ..., ...}
                                                one per finished episode, after its steps

--resume keeps the episodes that finished (at the goal, a dead end, the step limit or the invalid-reply limit),
drops the rows of the others (cut off, or ended by a policy or task error, which are tried again)
and appends; a file written with other settings (another policy, --base-url, --temperature, ...:
kept in `<out>.run.json`, see acptools.util.runfile) is refused, so one report never mixes two
experiments. An existing file is overwritten only with `force`.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import AcpError
from ..util.runfile import RowWriter, check_fresh, check_settings, read_jsonl, rewrite, write_sidecar

RUN, STEP, EPISODE = "run", "step", "episode"
GOAL, DEAD_END, MAX_STEPS, MAX_INVALID = "goal", "dead-end", "max-steps", "max-invalid"
POLICY_ERROR, ERROR = "policy-error", "error"
ENDINGS = (GOAL, DEAD_END, MAX_STEPS, MAX_INVALID, POLICY_ERROR, ERROR)
FINISHED = (GOAL, DEAD_END, MAX_STEPS, MAX_INVALID)  # the others are tried again by --resume


class TraceFile(RowWriter):
    """Rows in memory, and in `path` when given (flushed row by row)."""

    def __init__(self, path=None, settings: dict | None = None, resume: bool = False, force: bool = False):
        self.path = Path(path) if path is not None else None
        self.settings = settings or {}
        self.rows: list[dict] = []
        self._fh = None
        if resume and self.path is None:
            raise AcpError("--resume needs --out: the traces to resume from", "--resume")
        check_fresh(self.path, resume, force)
        if resume and self.path.is_file():
            self._resume()
        else:
            self._start()
        if self.path is not None:
            write_sidecar(self.path, "rollout", flag_settings(self.settings))

    @property
    def done(self) -> set[str]:
        """Ids of the episodes that have finished (and so are not run again)."""
        return _finished(self.rows)

    def _start(self) -> None:
        if self.path is not None:
            self._fh = open(self.path, "w", encoding="utf-8")
        self.write({"kind": RUN, "settings": self.settings})

    def _resume(self) -> None:
        rows = read_rows(self.path)
        if not rows or rows[0].get("kind") != RUN:
            raise AcpError(
                "not a rollout trace file (no 'run' row first)",
                f"--out {self.path}",
                "resume from a file `acptools rollout --out` wrote, or drop --resume",
            )
        check_settings(self.path, "rollout", flag_settings(self.settings))
        finished = _finished(rows)
        kept = [rows[0]] + [r for r in rows[1:] if r.get("episode") in finished]
        rewrite(self.path, kept)
        self.rows = kept
        self._fh = open(self.path, "a", encoding="utf-8")


def _finished(rows: list[dict]) -> set[str]:
    return {r["episode"] for r in rows if r.get("kind") == EPISODE and r.get("ended") in FINISHED}


def flag_settings(settings: dict) -> dict:
    """The settings by the flag that sets each ('max_steps' -> '--max-steps'), as the sidecar keeps them."""
    return {"--" + k.replace("_", "-"): v for k, v in settings.items()}


def read_rows(path) -> list[dict]:
    """The rows of a trace file. A cut-off last line (a run killed mid-write) is dropped; any other
    bad line is an error that says where."""
    return read_jsonl(path)
