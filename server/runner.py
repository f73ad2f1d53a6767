"""Running long library calls off the event loop: budgets, cancellation, and a cap on concurrent searches.

No planning logic here.  A heavy tool hands :meth:`SearchRunner.run` a function of one argument, a
:class:`CancellableBudget`; the function calls ``acptools`` through :func:`budgeted_questions`, so every
search inside the library spends that budget.  When the MCP call is cancelled (the client gave up, timed
out or sent ``notifications/cancelled``) the awaiting handler returns at once and the budget is marked
cancelled, so the library's search loops stop at their next budget check and the external planners it
starts afterwards get no time.  (Limits of what the library lets us stop are listed in docs/mcp.md.)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread
from acptools.questions import Questions
from acptools.search import Budget

T = TypeVar("T")

class CancellableBudget(Budget):
    """A library :class:`~acptools.search.Budget` with its own cancel event: setting it stops the
    library's searches at their next expansion and kills any planner subprocess they started."""

    def __init__(self, seconds: float | None, states: int | None = None) -> None:
        super().__init__(seconds, states, cancel=threading.Event())


class _BudgetedQuestions(Questions):
    """The task's shared :class:`Questions` (same engine and optimizer caches), but every search
    in it spends one given budget instead of a fresh one built from seconds."""

    def __init__(self, shared: Questions, budget: Budget) -> None:
        super().__init__(shared.task)
        self._shared = shared
        self._fixed_budget = budget

    @property
    def engine(self):  # type: ignore[override]
        return self._shared.engine

    @property
    def optimizer(self):  # type: ignore[override]
        return self._shared.optimizer

    def as_budget(self, seconds: float | None) -> Budget:
        return self._fixed_budget


def budgeted_questions(task, budget: Budget) -> Questions:
    """``task.questions`` whose searches all spend ``budget`` (so they see cancellation)."""
    return _BudgetedQuestions(task.questions, budget)


class SearchRunner:
    """Runs budgeted library calls in worker threads, at most ``max_concurrent`` at a time."""

    def __init__(self, max_concurrent: int) -> None:
        self._limiter = anyio.CapacityLimiter(max_concurrent)
        self._lock = threading.Lock()
        self._running = 0
        self._waiting = 0
        self._cancelled = 0

    @property
    def running(self) -> int:
        """Worker threads currently inside a library call (including cancelled ones winding down)."""
        with self._lock:
            return self._running

    @property
    def waiting(self) -> int:
        with self._lock:
            return self._waiting

    @property
    def cancelled(self) -> int:
        """How many calls have been cancelled since the server started."""
        with self._lock:
            return self._cancelled

    def _enter(self) -> None:
        with self._lock:
            self._running += 1

    def _exit(self) -> None:
        with self._lock:
            self._running -= 1

    async def run(self, fn: Callable[[CancellableBudget], T], seconds: float) -> T:
        """``fn(budget)`` in a worker thread; the budget's clock starts when the thread starts."""
        budget = CancellableBudget(seconds, None)

        def work() -> T:
            self._enter()
            try:
                budget.restart()
                return fn(budget)
            finally:
                self._exit()

        with self._lock:
            self._waiting += 1
        entered = False
        try:
            async with self._limiter:
                with self._lock:
                    self._waiting -= 1
                entered = True
                return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            with self._lock:
                self._cancelled += 1
            raise
        finally:
            if not entered:
                with self._lock:
                    self._waiting -= 1
            budget.cancel.set()  # stop the worker if it is still running (no-op once it finished)
