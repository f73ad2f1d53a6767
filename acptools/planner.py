"""Running an outside planner binary (Fast Downward, SymK) under a Budget, and never leaving one behind.

Each run gets a work folder named after this process (`acptools-<pid>-...`), so a later run can
remove the folders of a process that died without cleaning up. On Linux the planner is killed
when the thread that started it dies (a parent-death signal), so even `kill -9` of the server
takes its planners along; on a normal exit, `atexit` kills whatever still runs. The planner's CPU
time is charged to the budget while it runs, and it is stopped as soon as the budget is spent or
cancelled.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .search import Budget

PREFIX = "acptools-"
POLL_SECONDS = 0.05
FIRST_POLL_SECONDS = 0.001
_live: set[subprocess.Popen] = set()
_live_lock = threading.Lock()
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the starting thread dies (Linux prctl)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def _limits(memory_mb: int):
    def apply() -> None:
        _die_with_parent()
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    return apply


def process_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) a running process has used, from /proc; None elsewhere."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_folders() -> int:
    """Remove work folders left by acptools processes that no longer run; returns how many."""
    removed = 0
    root = Path(tempfile.gettempdir())
    for path in root.glob(PREFIX + "*"):
        pid = path.name[len(PREFIX):].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)) and path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
            removed += 1
    return removed


def work_folder(kind: str) -> str:
    """A fresh folder for one planner run, named after this process."""
    return tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-{kind}-")


def kill_all() -> None:
    """Kill every planner this process started that still runs (at exit, or on a signal)."""
    with _live_lock:
        procs = list(_live)
    for proc in procs:
        if proc.poll() is None:
            proc.kill()


atexit.register(kill_all)


def run(argv: list[str], budget: Budget, cwd: str, stdin_path: str | None = None, stdout_path: str | None = None,
        memory_mb: int = 4096, env: dict | None = None, watch=None) -> tuple[int | None, str]:
    """Run a planner under `budget`: (exit code, or None when stopped by the budget, a cancel or
    `watch`; a short reason when stopped). Its CPU time is charged to the budget as it runs; `watch()`
    is asked at every poll whether to stop it (it has learnt enough). Input and output go through
    files, so the planner never waits for a Python thread (another search thread may hold the GIL
    for long stretches)."""
    if budget.cancelled():
        return None, "was cancelled"
    if budget.wall() <= 0:
        return None, "had no budget left"
    stdin = open(stdin_path) if stdin_path else subprocess.DEVNULL
    stdout = open(stdout_path, "w") if stdout_path else subprocess.DEVNULL
    try:
        proc = subprocess.Popen(argv, stdin=stdin, stdout=stdout, stderr=subprocess.DEVNULL, cwd=cwd, env=env,
                                preexec_fn=_limits(memory_mb))
    finally:
        for f in (stdin, stdout):
            if f is not subprocess.DEVNULL:
                f.close()
    with _live_lock:
        _live.add(proc)
    charged = 0.0
    event = _cancel_event(budget)
    step = FIRST_POLL_SECONDS
    try:
        while True:
            code = proc.poll()
            if code is not None:
                return code, ""
            if event is not None:  # a cancel (a race decided elsewhere) wakes this at once
                event.wait(step)
            else:
                time.sleep(step)
            step = min(POLL_SECONDS, 2 * step)  # short runs end between the first, frequent polls
            used = process_cpu(proc.pid)
            if used is not None and used > charged:
                budget.charge(used - charged)
                charged = used
            if budget.cancelled():
                return None, "was cancelled"
            if budget.wall() <= 0:
                return None, "ran out of its budget"
            if watch is not None and watch():
                return None, "was stopped: its answer is known"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        with _live_lock:
            _live.discard(proc)


def _cancel_event(budget: Budget) -> threading.Event | None:
    """The cancel event nearest to `budget` in its chain of parents (the others are polled)."""
    while budget is not None:
        if budget.cancel is not None:
            return budget.cancel
        budget = budget.parent
    return None


def in_folder(kind: str, work):
    """`work(folder)` in a fresh work folder that is removed afterwards, whatever happens."""
    folder = work_folder(kind)
    try:
        return work(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
