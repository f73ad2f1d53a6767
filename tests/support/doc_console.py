"""Shell transcripts in the docs, read and replayed, so that what a doc shows a command print is what it prints.

The convention (docs/testing.md, "Docs that cannot drift"): a fenced block whose info string is `console`
is a terminal transcript. A line starting with `$ ` is a command (a line ending in `\\` goes on onto the
next); the lines after it, up to the next command, are what it prints, stdout and stderr together as a
terminal shows them. In the shown output

- a line `...` stands for any number of lines (none included);
- `[...]` inside a line stands for any text within that line (timings, paths, sizes);
- a last line `[exit N]` says the command exits with status N (otherwise it must exit 0).

An HTML comment `<!-- doc-test: slow -->` right before the fence puts the block in the slow run.
The blocks of one file run in order in one scratch folder, where the repository's top-level folders
are reachable under their own names, so a later block may read what an earlier one wrote; shell
variables do not carry from one block to the next.

Commands run under a pseudo-terminal, as a reader's do: a progress bar redrawn in place is rendered as
the terminal shows it (`render`), not as the redraws that produced it."""

from __future__ import annotations

import difflib
import os
import pty
import re
import select
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`\s]*)")
SLOW_MARK = "<!-- doc-test: slow -->"
PROMPT = "$ "
ANY_LINES = "..."
ANY_TEXT = "[...]"
EXIT = re.compile(r"^\[exit (\d+)\]$")
MARK = "<<acptools-doc-command-done"
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SHELL_INFOS = {"", "bash", "sh", "shell", "zsh", "console", "shell-session"}


@dataclass(frozen=True)
class Fence:
    """A fenced block: its first line (1-based), info string, body lines and whether it is marked slow."""

    line: int
    info: str
    body: tuple[str, ...]
    slow: bool


@dataclass(frozen=True)
class Command:
    line: int  # the line of its `$` in the doc
    text: str  # as the shell reads it (continuation lines joined with newlines)
    shown: tuple[str, ...]  # the output the doc shows, `[exit N]` taken off
    exit: int  # the exit status the doc shows (0 unless `[exit N]`)


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    slow: bool
    commands: tuple[Command, ...]

    def where(self) -> str:
        return f"{self.path.name}:{self.line}"


def fences(text: str) -> list[Fence]:
    """Every fenced block of a markdown text, its body unindented by the fence's own indentation."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, marker, info = match.groups()
        slow = i > 0 and lines[i - 1].strip() == SLOW_MARK
        body, j = [], i + 1
        while j < len(lines) and not lines[j].strip().startswith(marker):
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        out.append(Fence(i + 1, info.lower(), tuple(body), slow))
        i = j + 1
    return out


def commands_of(fence: Fence) -> tuple[Command, ...]:
    """The commands of a console block with the output each is shown to print."""
    found: list[tuple[int, list[str], list[str]]] = []  # (line, command lines, shown lines)
    body, k = fence.body, 0
    while k < len(body):
        if body[k].startswith(PROMPT):
            parts, start = [body[k][len(PROMPT) :]], k
            while parts[-1].endswith("\\") and k + 1 < len(body):
                k += 1
                parts.append(body[k])
            found.append((fence.line + 1 + start, parts, []))
        elif found:
            found[-1][2].append(body[k])
        elif body[k].strip():
            raise ValueError(f"line {fence.line + 1 + k}: a console block starts with a `$ ` command")
        k += 1
    out = []
    for line, parts, shown in found:
        while shown and not shown[-1].strip():
            shown.pop()
        status = EXIT.match(shown[-1].strip()) if shown else None
        if status:
            shown.pop()
        out.append(
            Command(line, "\n".join(parts), tuple(s.rstrip() for s in shown), int(status.group(1)) if status else 0)
        )
    return tuple(out)


def console_blocks(path: Path) -> list[Block]:
    return [
        Block(path, f.line, f.slow, commands_of(f))
        for f in fences(path.read_text(encoding="utf-8"))
        if f.info == "console"
    ]


def unmarked_transcripts(path: Path) -> list[str]:
    """Blocks that show a command's output without being console blocks: a `$ ` prompt, or a
    `# -> ...` comment saying what a command printed, in a shell or unlabelled block."""
    problems = []
    for f in fences(path.read_text(encoding="utf-8")):
        if f.info == "console" or f.info not in SHELL_INFOS:
            continue
        for k, line in enumerate(f.body):
            said = line.strip()
            if said.startswith(PROMPT) or re.search(r"#\s*->", said):
                problems.append(
                    f"{path.name}:{f.line + 1 + k}: `{said[:60]}` shows a command's output in a "
                    f"```{f.info or ' '} block: make it a ```console block (docs/testing.md)"
                )
                break
    return problems


def render(raw: bytes) -> list[str]:
    """The lines a terminal shows for this output: a carriage return goes back to the line's start and
    what follows overwrites it; escape sequences and trailing blanks are dropped."""
    text = ESCAPES.sub("", raw.decode("utf-8", errors="replace")).replace("\r\n", "\n")
    lines = []
    for written in text.split("\n"):
        cells: list[str] = []
        col = 0
        for ch in written:
            if ch == "\r":
                col = 0
                continue
            if col < len(cells):
                cells[col] = ch
            else:
                cells.append(ch)
            col += 1
        lines.append("".join(cells).rstrip())
    return lines


def _pattern(shown: str) -> re.Pattern[str]:
    return re.compile(".*?".join(re.escape(part) for part in shown.split(ANY_TEXT)) + r"\Z", re.DOTALL)


def matches(shown: tuple[str, ...] | list[str], got: list[str]) -> bool:
    """Whether the printed lines are the shown ones, `...` lines and `[...]` texts standing for anything."""
    patterns = [None if s.strip() == ANY_LINES else _pattern(s) for s in shown]
    memo: dict[tuple[int, int], bool] = {}

    def fit(i: int, j: int) -> bool:
        if (i, j) not in memo:
            if i == len(patterns):
                memo[i, j] = j == len(got)
            elif patterns[i] is None:
                memo[i, j] = fit(i + 1, j) or (j < len(got) and fit(i, j + 1))
            else:
                memo[i, j] = j < len(got) and bool(patterns[i].match(got[j])) and fit(i + 1, j + 1)
        return memo[i, j]

    return fit(0, 0)


def resolved(shown: tuple[str, ...], got: list[str]) -> list[str]:
    """The shown lines with each `[...]` line replaced by the next printed line it matches, so that a
    diff shows only what really differs."""
    out, j = [], 0
    for line in shown:
        if ANY_TEXT in line:
            k = next((k for k in range(j, len(got)) if _pattern(line).match(got[k])), None)
            if k is not None:
                out.append(got[k])
                j = k + 1
                continue
        out.append(line)
    return out


def script(commands: tuple[Command, ...]) -> str:
    """The block as one shell script: after each command a line marks its end and exit status."""
    return "".join(f"{c.text}\nprintf '\\n{MARK} %s>>\\n' \"$?\"\n" for c in commands)


def run_in_terminal(source: str, cwd: Path, env: dict[str, str], timeout: float) -> tuple[list[str], bool]:
    """Run a bash script with a pseudo-terminal as its stdout and stderr; its rendered lines, and whether
    it ended within `timeout` seconds (else its process group is killed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        ["bash", "--noprofile", "--norc", "-c", source],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
    )
    os.close(slave)
    chunks, deadline, ended = [], time.monotonic() + timeout, True
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                ended = False
                break
            ready, _, _ = select.select([master], [], [], min(left, 1.0))
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        os.close(master)
    return render(b"".join(chunks)), ended


def outputs(lines: list[str]) -> list[tuple[list[str], int]]:
    """The rendered lines cut at the end marks: each command's lines and exit status."""
    out, current = [], []
    for line in lines:
        if line.startswith(MARK):
            while current and not current[-1].strip():
                current.pop()
            out.append((current, int(line[len(MARK) :].strip(" >"))))
            current = []
        else:
            current.append(line)
    return out


def problems(block: Block, cwd: Path, env: dict[str, str], timeout: float) -> list[str]:
    """What differs between what the block shows and what its commands print, one entry per command."""
    lines, ended = run_in_terminal(script(block.commands), cwd, env, timeout)
    got = outputs(lines)
    found = []
    for k, command in enumerate(block.commands):
        where = f"{block.path.name}:{command.line} `{command.text.splitlines()[0][:70]}`"
        if k >= len(got):
            state = "did not end" if not ended else "did not run"
            found.append(f"{where}: {state} within {timeout:.0f} s; printed so far:\n" + "\n".join(lines[-20:]))
            break
        printed, status = got[k]
        if status != command.exit:
            found.append(f"{where}: exit status {status}, the doc shows {command.exit}")
        if not matches(command.shown, printed):
            diff = difflib.unified_diff(resolved(command.shown, printed), printed, "shown", "printed", lineterm="")
            found.append(f"{where}: prints otherwise than shown:\n" + "\n".join(diff))
    return found
