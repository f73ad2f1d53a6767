"""The one place a tool's search runs: off the event loop, with a cancellable budget, a few at a time.

No planning logic here. A heavy tool hands :meth:`SearchRunner.run` a function of one argument, an
``acptools.Budget`` with a cancel event, and passes that budget to every library call inside. When the
MCP call is cancelled (the client gave up, timed out or sent ``notifications/cancelled``) the awaiting
handler returns at once and the budget is cancelled, so the library's searches stop at their next
budget check and the planner processes they started are killed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread
from acptools import Budget

T = TypeVar("T")


class SearchRunner:
    """Runs budgeted library calls in worker threads, at most ``max_concurrent`` at a time."""

    def __init__(self, max_concurrent: int) -> None:
        self._limiter = anyio.CapacityLimiter(max_concurrent)
        self._lock = threading.Lock()
        self._running = 0
        self._waiting = 0
        self._cancelled = 0
        self._live: set[Budget] = set()

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

    def _count(self, field: str, delta: int) -> None:
        with self._lock:
            setattr(self, field, getattr(self, field) + delta)

    async def run(self, fn: Callable[[Budget], T], seconds: float) -> T:
        """``fn(budget)`` in a worker thread; the budget's clock starts when the thread starts."""
        budget = Budget(seconds, cancel=threading.Event())

        def work() -> T:
            self._count("_running", 1)
            try:
                budget.restart()
                return fn(budget)
            finally:
                self._count("_running", -1)

        self._count("_waiting", 1)
        with self._lock:
            self._live.add(budget)
        entered = False
        try:
            async with self._limiter:
                self._count("_waiting", -1)
                entered = True
                return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            self._count("_cancelled", 1)
            raise
        finally:
            if not entered:
                self._count("_waiting", -1)
            budget.cancel.set()  # stop the worker if it is still running (no-op once it finished)
            with self._lock:
                self._live.discard(budget)

    def cancel_all(self) -> None:
        """Stop every search in flight (the server is shutting down)."""
        with self._lock:
            live = list(self._live)
        for budget in live:
            budget.cancel.set()
