"""Output files of batch runs (eval, score, rollout, generate) that never mix runs or lose work.

    out = RunFile("items.jsonl", "eval", {"--policy": "openai:m", ...}, resume=False, force=False)
    out.write(row)          # one JSON line, flushed: a crash or Ctrl-C leaves a valid partial file
    out.close()

Every setting that changes results is kept beside the output in a sidecar, `<out>.run.json`
(`{"command", "settings", "acptools"}`), so the output itself stays plain rows any reader takes.
An existing output is never overwritten unless `force`; `resume` keeps its rows (a cut-off last line
is dropped) and appends, after checking the sidecar's settings are the ones given now: a mismatch is
refused with one line naming the setting, so one report never mixes two experiments.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

from ..errors import AcpError

SIDECAR = ".run.json"


def sidecar_of(path) -> Path:
    """Where the settings of the run that wrote `path` are kept."""
    return Path(str(path) + SIDECAR)


def read_jsonl(path) -> list[dict]:
    """The rows of a JSONL output. A cut-off last line (a run killed mid-write) is dropped; any other
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


def check_settings(path, command: str, settings: dict) -> None:
    """Refuse to resume `path` unless its sidecar holds the same command and settings."""
    side = sidecar_of(path)
    try:
        theirs = json.loads(side.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AcpError(
            f"cannot resume: no record of the settings it was made with ({side.name} is missing)",
            f"--out {path}",
            "pass --force to start it over, or write to another --out",
        ) from None
    except (OSError, ValueError) as e:
        raise AcpError(
            f"cannot resume: {side.name} is unreadable ({e})", f"--out {path}", "pass --force to start it over"
        ) from None
    if theirs.get("command") != command:
        raise AcpError(
            f"cannot resume: it was written by `acptools {theirs.get('command')}`, not `acptools {command}`",
            f"--out {path}",
            "write to another --out",
        )
    old = theirs.get("settings", {})
    for key in list(settings) + [k for k in old if k not in settings]:
        if old.get(key) != settings.get(key):
            raise AcpError(
                f"cannot resume: it was made with {key} {_show(old.get(key))}, now {_show(settings.get(key))}",
                f"--out {path}",
                f"resume with the same {key}, or write to another --out",
            )


def _show(value) -> str:
    return "(not given)" if value is None else json.dumps(value)


def check_fresh(path, resume: bool, force: bool, flag: str = "--out", resumable: bool = True) -> None:
    """An existing output is overwritten only with --force (and continued only with --resume); the
    same holds for the files a run writes at its end (--report, --html: `flag` names which).
    `resumable`: whether the command has a --resume to suggest."""
    if path is not None and not resume and not force and Path(path).is_file():
        again = (
            "pass --resume to continue that run, --force to overwrite it"
            if resumable
            else "pass --force to overwrite it"
        )
        raise AcpError("exists", f"{flag} {path}", f"{again}, or give another {flag}")


def write_sidecar(path, command: str, settings: dict, progress: dict | None = None) -> None:
    """The sidecar, replaced atomically. `progress`: what a command needs to resume that its rows do
    not say (generate: the ids of each finished task's records)."""
    from .. import __version__

    side = sidecar_of(path)
    tmp = side.with_name(side.name + ".tmp")
    doc = {"command": command, "settings": settings, "acptools": __version__}
    if progress is not None:
        doc["progress"] = progress
    tmp.write_text(json.dumps(doc, indent=1, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, side)


def read_progress(path) -> dict:
    """The sidecar's `progress` (empty when there is none)."""
    try:
        return json.loads(sidecar_of(path).read_text(encoding="utf-8")).get("progress") or {}
    except (OSError, ValueError):
        return {}


class RowWriter:
    """JSONL rows in memory and, once `_fh` is open, in its file (each row flushed as written)."""

    rows: list[dict]
    _fh = None

    def write(self, row: dict) -> dict:
        """Keep the row and, once the file is open, append it (flushed); returns the row."""
        self.rows.append(row)
        if self._fh is not None:
            self._fh.write(json.dumps(row, default=str) + "\n")
            self._fh.flush()
        return row

    def close(self) -> None:
        """Close the file (again is harmless)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None


class RunFile(RowWriter):
    """JSONL rows in memory and, when `path` is given, in the file (each row flushed as written).
    `keep(row)`: which rows of the existing file a resume keeps (default all)."""

    def __init__(self, path, command: str, settings: dict, *, resume: bool = False, force: bool = False, keep=None):
        self.path = Path(path) if path is not None else None
        self.rows: list[dict] = []
        self._fh = None
        if self.path is None:
            if resume:
                raise AcpError("--resume needs --out: the output to resume from", "--resume")
            return
        check_fresh(self.path, resume, force)
        if resume and self.path.exists():
            check_settings(self.path, command, settings)
            self.rows = [r for r in read_jsonl(self.path) if keep is None or keep(r)]
            rewrite(self.path, self.rows)
            self._fh = open(self.path, "a", encoding="utf-8")
        else:
            self._fh = open(self.path, "w", encoding="utf-8")
        write_sidecar(self.path, command, settings)


def rewrite(path, rows: list[dict]) -> None:
    """Replace the file with `rows`, atomically (a crash leaves the old file or the new one)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r, default=str) + "\n" for r in rows)
    os.replace(tmp, path)


def resume_command(args) -> str:
    """The command line that continues an interrupted run: the same arguments, --resume, no --force.
    `args`: the parsed arguments (their `argv`, which `acptools.cli.main` keeps) or the argument list."""
    argv = args if isinstance(args, list) else getattr(args, "argv", None) or sys.argv[1:]
    args = [a for a in argv if a != "--force"]
    if "--resume" not in args:
        args.append("--resume")
    return "acptools " + shlex.join(args)
