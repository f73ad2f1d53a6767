"""How much a question may spend: `Budget` (wall seconds, CPU seconds, expanded states, a cancel
event shared with every child budget) and `Effort` (a budget per proof counted in CPU seconds).

Every long loop of the library calls `Budget.check()` or `Budget.spend()`; they raise
`BudgetExceeded`, which callers turn into an `unknown` verdict.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from .errors import BudgetExceeded

DEFAULT_SECONDS = 60.0  # a question's budget when the caller gives none
CHECK_EVERY = 0.002  # seconds between full budget checks
EFFORT_WALL_FACTOR = 20.0  # an effort budget still stops at this many times its CPU seconds of wall time


@dataclass(frozen=True)
class Effort:
    """A budget per proof counted in CPU seconds: each question asked with it gets a fresh
    `Budget(cpu=seconds)` (with a generous wall-clock safety stop). Batch graders use it so that a
    busy machine changes how long a run takes, not its verdicts."""

    seconds: float
    cancel: threading.Event | None = field(default=None, compare=False)  # stops every proof at once (Ctrl-C)

    def budget(self, cancel: threading.Event | None = None) -> Budget:
        """A fresh Budget of this many CPU seconds (with a wall-clock safety stop)."""
        return Budget(EFFORT_WALL_FACTOR * self.seconds, cpu=self.seconds, cancel=cancel or self.cancel)

    def scaled(self, factor: float) -> Effort:
        """The same effort times `factor` (the retry of an item that ran out)."""
        return Effort(self.seconds * factor, self.cancel)


class Budget:
    """How much a question may spend: wall seconds, CPU seconds and expanded states (None: no
    limit), and a cancel event shared with every child budget.

    Wall seconds are the caller's promise (a call returns within them, plus a small constant). CPU
    seconds measure effort: the CPU time of the threads that spend the budget and of the planner
    processes it pays for, charged up the chain of parents. Effort does not stretch when the
    machine is busy, so the engines' internal slices are CPU slices, and a batch grader that
    budgets CPU (not wall) time reaches the same verdicts on a quiet or a loaded machine.
    """

    def __init__(
        self,
        seconds: float | None = 5.0,
        states: int | None = None,
        *,
        cpu: float | None = None,
        cancel: threading.Event | None = None,
        parent: Budget | None = None,
    ):
        self.seconds, self.states, self.cpu = seconds, states, cpu
        self.cancel, self.parent = cancel, parent
        self.started = time.perf_counter()
        self.expanded = 0
        self.cpu_used = 0.0
        self._marks: dict[int, float] = {}  # per thread: its CPU clock when last charged
        self._lock = threading.Lock()
        self._next_check = 0.0  # wall clock of the next full check (see check)

    def __repr__(self) -> str:
        return f"Budget(seconds={self.seconds}, cpu={self.cpu}, states={self.states}, used={self.cpu_used:.3f})"

    # ---- accounting ---------------------------------------------------------------------------
    def charge(self, cpu_seconds: float) -> None:
        """Add CPU seconds spent for this budget (and so for its parents)."""
        b = self
        while b is not None:
            with b._lock:
                b.cpu_used += cpu_seconds
            b = b.parent

    def charge_thread(self) -> None:
        """Charge the calling thread's CPU time since it last charged this budget (the first call
        in a thread only sets its mark)."""
        tid = threading.get_ident()
        now = time.thread_time()
        last = self._marks.get(tid)
        self._marks[tid] = now
        if last is not None and now > last:
            self.charge(now - last)

    def restart(self) -> None:
        """Start the clocks now (a budget made before its work was queued)."""
        self.started = time.perf_counter()
        self.expanded = 0
        self.cpu_used = 0.0
        self._marks.clear()

    # ---- limits -------------------------------------------------------------------------------
    def cancelled(self) -> bool:
        """Is this budget or any of its parents cancelled?"""
        b = self
        while b is not None:
            if b.cancel is not None and b.cancel.is_set():
                return True
            b = b.parent
        return False

    def elapsed(self) -> float:
        """Wall seconds since the budget started."""
        return time.perf_counter() - self.started

    def left(self) -> float | None:
        """Seconds left on the tightest wall or CPU limit along the chain of parents (0 once
        cancelled); None when nothing is limited."""
        if self.cancelled():
            return 0.0
        best = None
        b = self
        while b is not None:
            for limit, used in ((b.seconds, b.elapsed()), (b.cpu, b.cpu_used)):
                if limit is not None:
                    rest = max(0.0, limit - used)
                    best = rest if best is None else min(best, rest)
            b = b.parent
        return best

    def wall(self, default: float = 3600.0) -> float:
        """Seconds an outside planner may run: what is left, or `default` when unlimited."""
        left = self.left()
        return default if left is None else left

    def check(self) -> None:
        """Raise BudgetExceeded once any limit is reached or the budget is cancelled. Long loops
        call it per unit of work: it costs a look at the cancel events and one clock read, and every
        CHECK_EVERY seconds a full check (charge this thread's CPU, walk the parents' limits), so a
        limit overshoots by at most that and a cancel is seen at once."""
        if self.cancelled():
            raise BudgetExceeded("the search was cancelled")
        now = time.perf_counter()
        if now < self._next_check:
            return
        self._next_check = now + CHECK_EVERY
        self.charge_thread()
        b = self
        while b is not None:
            if b.seconds is not None and b.elapsed() > b.seconds:
                raise BudgetExceeded(f"time budget of {b.seconds:g} s spent")
            if b.cpu is not None and b.cpu_used > b.cpu:
                raise BudgetExceeded(f"effort budget of {b.cpu:g} CPU seconds spent")
            b = b.parent

    def spend(self, n: int = 1) -> None:
        """Count `n` expansions (or units of work) and check every limit."""
        self.expanded += n
        if self.states is not None and self.expanded > self.states:
            raise BudgetExceeded(f"state budget of {self.states} spent")
        self.check()

    def pause(self, seconds: float) -> bool:
        """Wait up to `seconds` unless cancelled first; True when cancelled (or out of time)."""
        end = time.perf_counter() + min(seconds, self.wall())
        while (rest := end - time.perf_counter()) > 0:
            if self.cancelled():
                return True
            if self.cancel is not None:  # wakes at once when this budget's own event is set
                self.cancel.wait(min(0.01, rest))
            else:
                time.sleep(min(0.01, rest))
        return self.cancelled() or self.wall() <= 0

    def child(
        self, cap: float | None = None, states: int | None = None, cancel: threading.Event | None = None
    ) -> Budget:
        """A slice of at most `cap` CPU seconds (effort, not wall time) of what is left; the
        parent's limits and cancellation still apply."""
        return Budget(None, states, cpu=cap, cancel=cancel, parent=self)

    def share(self, fraction: float) -> Budget:
        """A child with `fraction` of what is left on each clock (wall and CPU, each on its own);
        an unlimited budget's share is unlimited. Leaves the rest for a later step (e.g. a bound
        when an exact search runs out)."""
        wall = cpu = None
        b = self
        while b is not None:
            if b.seconds is not None:
                rest = max(0.0, b.seconds - b.elapsed())
                wall = rest if wall is None else min(wall, rest)
            if b.cpu is not None:
                rest = max(0.0, b.cpu - b.cpu_used)
                cpu = rest if cpu is None else min(cpu, rest)
            b = b.parent
        return Budget(
            None if wall is None else fraction * wall, None, cpu=None if cpu is None else fraction * cpu, parent=self
        )
