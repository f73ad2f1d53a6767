"""Running an outside planner binary (Fast Downward, SymK) under a Budget, and never leaving one behind.

Each run gets a work folder named after this process (`acptools-<pid>-...`), so a later run can
remove the folders of a process that died without cleaning up. On Linux the planner is killed
when the thread that started it dies (a parent-death signal), so even `kill -9` of the server
takes its planners along; on a normal exit, `atexit` kills whatever still runs. The planner's CPU
time is charged to the budget while it runs, and it is stopped as soon as the budget is spent or
cancelled.

Runs are filed under the outermost budget that paid for them, so whoever made that budget (a
server's call) can wait until none of its planners runs any more (`wait_stopped`) and learn which
of them failed instead of answering (`failures`: the exit code and the last line it printed).
"""

from __future__ import annotations

import atexit
import ctypes
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

from ..budget import Budget

PREFIX = "acptools-"
POLL_SECONDS = 0.05
# exit codes of the Fast Downward family that are answers (plan found, unsolvable, search space
# exhausted); anything else (resource limits 20-24, errors 30-37, a signal) is a failed run
ANSWER_EXITS = frozenset({0, 10, 11, 12})
# exits that say memory ran out (plan found and out of memory, translator or search out of memory),
# and words of the last line that do (a C++ allocation failing outside the planner's own handler; the
# loader finding no room for a shared library)
MEMORY_EXITS = frozenset({1, 3, 20, 22, 24})
MEMORY_WORDS = ("memory", "bad_alloc", "failed to map segment")
TAIL_BYTES = 4096
_live: dict[subprocess.Popen, Budget] = {}  # running planners -> the outermost budget paying for them
_failed: weakref.WeakKeyDictionary[Budget, list[Failure]] = weakref.WeakKeyDictionary()
FIRST_POLL_SECONDS = 0.001
CANCEL_CHECK_SECONDS = 0.01  # with an exit descriptor: how often a waiting call looks for a cancel
_live_lock = threading.Lock()
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_memory_cap_mb: int | None = None


@dataclass(frozen=True)
class Failure:
    """A planner run that ended without an answer of its own: crashed, killed, out of a resource, or
    never started (`exit_code` None, `last_line` why)."""

    planner: str
    exit_code: int | None
    last_line: str
    memory_mb: int = 0  # the address space it was given

    @property
    def memory(self) -> bool:
        """Whether it failed for lack of memory, as far as its exit tells."""
        if self.exit_code is None:
            return True  # the one limit a start meets here: a fork or exec without room
        return self.exit_code in MEMORY_EXITS or any(w in self.last_line.lower() for w in MEMORY_WORDS)

    def __str__(self) -> str:
        if self.exit_code is None:
            return f"{self.planner} could not start ({self.last_line})"
        code = f"was killed by signal {-self.exit_code}" if self.exit_code < 0 else f"exited with code {self.exit_code}"
        if self.memory:
            code = f"ran out of memory at its limit of {self.memory_mb} MB ({code})"
        return f"{self.planner} {code}" + (f" ({self.last_line})" if self.last_line else "")


def limit_memory(mb: int | None) -> None:
    """Cap the memory (address space, MB) of every planner started from now on; None: each
    caller's own limit."""
    global _memory_cap_mb
    _memory_cap_mb = mb


def memory_limit(memory_mb: int) -> int:
    """The address space (MB) a planner asking for `memory_mb` gets: at most the cap of
    `limit_memory`, and at most this process's own hard limit (`ulimit -v`), which no child may raise."""
    if _memory_cap_mb is not None:
        memory_mb = min(memory_mb, _memory_cap_mb)
    hard = _hard_address_space()
    return memory_mb if hard is None else max(1, min(memory_mb, hard >> 20))


def _hard_address_space() -> int | None:
    try:
        import resource
    except ImportError:  # not a Unix: no limit to meet
        return None
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    return None if hard == resource.RLIM_INFINITY else hard


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


def memory_hint(memory_mb: int) -> str:
    """What to do about a planner that ran out of memory at `memory_mb`."""
    hard = _hard_address_space()
    room = "" if hard is None else f", and at most this process's own address-space limit ({hard >> 20} MB, ulimit -v)"
    return (
        f"each planner may use {memory_mb} MB: set it with --max-planner-memory MB (acptools-server) or "
        f"acptools.planners.limit_memory(MB){room}"
    )


def exit_detail(planner: str, code: int, output: str, memory_mb: int) -> str:
    """A planner's exit that is no answer, for a result's detail: for lack of memory, what to do."""
    failure = Failure(
        planner, code, output.strip().splitlines()[-1][:200] if output.strip() else "", memory_limit(memory_mb)
    )
    if failure.memory:
        return f"{failure}; {memory_hint(failure.memory_mb)}"
    return f"{planner} exit code {code}: {output}"


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
        pid = path.name[len(PREFIX) :].split("-", 1)[0]
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


def _outermost(budget: Budget) -> Budget:
    while budget.parent is not None:
        budget = budget.parent
    return budget


def running(budget: Budget | None = None) -> int:
    """Planners still running: all of this process's, or those paid for by `budget`'s tree."""
    with _live_lock:
        return sum(1 for b in _live.values() if budget is None or b is _outermost(budget))


def wait_stopped(budget: Budget, timeout: float) -> bool:
    """Wait (at most `timeout` seconds) until no planner paid for by `budget`'s tree runs; True
    when none does."""
    end = time.perf_counter() + timeout
    while running(budget):
        if time.perf_counter() >= end:
            return False
        time.sleep(POLL_SECONDS / 5)
    return True


def failures(budget: Budget) -> list[Failure]:
    """The runs paid for by `budget`'s tree that failed (crashed, killed, out of memory)."""
    with _live_lock:
        return list(_failed.get(_outermost(budget), ()))


def _last_line(path: str | None) -> str:
    if not path:
        return ""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.path.getsize(path) - TAIL_BYTES))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    return next((line.strip()[:200] for line in reversed(lines) if line.strip()), "")


def _name(argv: list[str]) -> str:
    """The planner's name for messages: the binary, or the module of `python -m module`."""
    if len(argv) > 2 and argv[1] == "-m":
        return argv[2]
    return os.path.basename(argv[0])


def run(
    argv: list[str],
    budget: Budget,
    cwd: str,
    stdin_path: str | None = None,
    stdout_path: str | None = None,
    memory_mb: int = 4096,
    env: dict | None = None,
    watch=None,
) -> tuple[int | None, str]:
    """Run a planner under `budget`: (exit code, or None when stopped by the budget, a cancel or
    `watch`; a short reason when stopped). Its CPU time is charged to the budget as it runs; `watch()`
    is asked at every poll whether to stop it (it has learnt enough). Input and output go through
    files, so the planner never waits for a Python thread (another search thread may hold the GIL
    for long stretches); its error output goes to the same file."""
    if budget.cancelled():
        return None, "was cancelled"
    if budget.wall() <= 0:
        return None, "had no budget left"
    memory_mb = memory_limit(memory_mb)
    stdin = open(stdin_path) if stdin_path else subprocess.DEVNULL
    stdout = open(stdout_path, "w") if stdout_path else subprocess.DEVNULL
    root = _outermost(budget)
    try:
        with _live_lock:  # started and filed at once, so a waiter never misses a planner
            proc = subprocess.Popen(
                argv,
                stdin=stdin,
                stdout=stdout,
                stderr=subprocess.STDOUT,
                cwd=cwd,
                env=env,
                preexec_fn=_limits(memory_mb),
            )
            _live[proc] = root
    except (OSError, subprocess.SubprocessError, MemoryError) as e:
        why = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        with _live_lock:
            _failed.setdefault(root, []).append(Failure(_name(argv), None, why, memory_mb))
        return None, f"could not start ({why})"
    finally:
        for f in (stdin, stdout):
            if f is not subprocess.DEVNULL:
                f.close()
    try:
        code, why = _watch(proc, budget, watch)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        with _live_lock:
            _live.pop(proc, None)
    if code is not None and code not in ANSWER_EXITS:
        with _live_lock:
            _failed.setdefault(root, []).append(Failure(_name(argv), code, _last_line(stdout_path), memory_mb))
    return code, why


def _exit_descriptor(proc: subprocess.Popen) -> int | None:
    """A descriptor that becomes readable the moment the planner exits (Linux 5.3+), else None."""
    try:
        return os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        return None


def _pause(exit_fd: int | None, event: threading.Event | None, seconds: float) -> None:
    """Wait up to `seconds`, ending early when the planner exits (seen on its exit descriptor, so a
    run is not charged the rest of a poll interval) or a cancel comes (at once, or within
    CANCEL_CHECK_SECONDS while the exit descriptor is watched)."""
    if exit_fd is None:
        if event is not None:
            event.wait(seconds)
        else:
            time.sleep(seconds)
        return
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0 or (event is not None and event.is_set()):
            return
        if select.select([exit_fd], [], [], min(left, CANCEL_CHECK_SECONDS) if event else left)[0]:
            return


def _watch(proc: subprocess.Popen, budget: Budget, watch=None) -> tuple[int | None, str]:
    """Wait for the planner, charging its CPU time, until it exits, the budget stops it or `watch()`
    says its answer is known. Its exit ends the wait at once where the system tells it (else the
    first polls are frequent: short runs end between them); a cancel wakes the wait too."""
    exit_fd = _exit_descriptor(proc)
    try:
        return _watch_until_done(proc, budget, watch, exit_fd)
    finally:
        if exit_fd is not None:
            os.close(exit_fd)


def _watch_until_done(proc: subprocess.Popen, budget: Budget, watch, exit_fd: int | None) -> tuple[int | None, str]:
    charged = 0.0
    event = _cancel_event(budget)
    step = FIRST_POLL_SECONDS
    while True:
        code = proc.poll()
        if code is not None:
            return code, ""
        _pause(exit_fd, event, step)
        step = min(POLL_SECONDS, 2 * step)
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
