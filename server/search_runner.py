"""The one place a tool's heavy work runs: off the event loop, with a cancellable budget, a few at a time.

No planning logic here. A heavy tool hands :meth:`SearchRunner.run` a function of one argument, an
``acptools.Budget`` with a cancel event, and passes that budget to every library call inside. Each call
runs in a thread of its own. When the MCP call is cancelled (the client gave up, timed out, went away,
or the server is shutting down) the budget is cancelled and the handler waits until the thread has
returned and every planner process it started is gone; only then is its concurrency slot free again.
So a cancelled call never leaves work behind that the limit does not count.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel

from acptools import Budget, planners

T = TypeVar("T")
log = logging.getLogger("acptools.server")
PLANNER_GRACE = 10.0  # seconds a finished call waits for planners its races are still killing
SLOW_STOP = 10.0  # a cancelled call still running after this long is logged
WAKE_TRIES = 100  # attempts to wake the awaiting task when even that fails (out of memory)


class _Call(Generic[T]):
    """One call's thread, and what it returned or raised."""

    def __init__(self, fn: Callable[[Budget], T], budget: Budget, on_exit: Callable[[], None]) -> None:
        self.fn, self.budget, self.on_exit = fn, budget, on_exit
        self.done = anyio.Event()
        self.token = anyio.lowlevel.current_token()
        self.value: T | None = None
        self.error: BaseException | None = None

    def start(self) -> None:
        threading.Thread(target=self._work, name="acptools-call", daemon=True).start()

    def _work(self) -> None:
        try:
            self.budget.restart()  # the budget's clock starts when the work does
            self.value = self.fn(self.budget)
        except (MemoryError, RecursionError) as exc:  # drop the frames that hold the memory at once
            self.error = exc.with_traceback(None)
            give_memory_back()
        except BaseException as exc:  # handed to the awaiting task
            self.error = exc
        finally:
            self._finish()

    def _finish(self) -> None:
        """Wind down whatever went wrong before (even a MemoryError): stop what the call started, free
        its slot and wake the awaiting task, so that no failure leaves the server waiting forever."""
        for step in (self.budget.cancel.set, lambda: planners.wait_stopped(self.budget, PLANNER_GRACE), self.on_exit):
            try:
                step()
            except BaseException as exc:  # noqa: BLE001 - the next steps must run all the same
                self.error = self.error or exc.with_traceback(None)
        for _ in range(WAKE_TRIES):
            try:
                anyio.from_thread.run_sync(self.done.set, token=self.token)
                return
            except RuntimeError:  # the event loop is gone: the server is shutting down
                return
            except BaseException:  # noqa: BLE001 - out of memory: free the result and try again
                self.value, self.error = None, MemoryError("the server ran out of memory")
                time.sleep(0.05)

    def result(self) -> T:
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]


def give_memory_back() -> None:
    """Return freed memory to the operating system after a call that ran out of it (glibc keeps freed
    memory in its arenas otherwise; elsewhere this only collects garbage)."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class SearchRunner:
    """Runs budgeted library calls in threads, at most ``max_concurrent`` at a time (None: no cap)."""

    def __init__(self, max_concurrent: int | None) -> None:
        self._limiter = anyio.CapacityLimiter(math.inf if max_concurrent is None else max_concurrent)
        self._lock = threading.Lock()
        self._running = 0
        self._waiting = 0
        self._cancelled = 0
        self._stopping = 0
        self._live: set[Budget] = set()

    @property
    def running(self) -> int:
        """Calls whose thread is still working (cancelled ones winding down included)."""
        with self._lock:
            return self._running

    @property
    def waiting(self) -> int:
        """Calls waiting for a free slot."""
        with self._lock:
            return self._waiting

    @property
    def cancelled(self) -> int:
        """How many calls have been cancelled since the server started."""
        with self._lock:
            return self._cancelled

    @property
    def stopping(self) -> int:
        """Cancelled calls whose thread has not returned yet."""
        with self._lock:
            return self._stopping

    def _count(self, field: str, delta: int) -> None:
        with self._lock:
            setattr(self, field, getattr(self, field) + delta)

    async def run(self, fn: Callable[[Budget], T], seconds: float) -> T:
        """``fn(budget)`` in a thread of its own, once a slot is free."""
        budget = Budget(seconds, cancel=threading.Event())
        self._count("_waiting", 1)
        try:
            await self._limiter.acquire()
        except anyio.get_cancelled_exc_class():  # cancelled while waiting: nothing started, nothing to stop
            self._count("_cancelled", 1)
            raise
        finally:
            self._count("_waiting", -1)
        try:
            with self._lock:
                self._live.add(budget)
                self._running += 1
            call = _Call(fn, budget, lambda: self._count("_running", -1))
            call.start()
            try:
                await call.done.wait()
            except anyio.get_cancelled_exc_class():
                await self._stop(call)
                raise
            return call.result()
        finally:
            with self._lock:
                self._live.discard(budget)
            self._limiter.release()

    async def _stop(self, call: _Call) -> None:
        """Cancel a call's budget and wait, shielded, until its thread and planners are gone."""
        call.budget.cancel.set()
        with self._lock:
            self._cancelled += 1
            self._stopping += 1
        started = time.perf_counter()
        try:
            with anyio.CancelScope(shield=True):
                with anyio.move_on_after(SLOW_STOP):
                    await call.done.wait()
                if not call.done.is_set():
                    log.warning("a cancelled call is still running after %.0f s", time.perf_counter() - started)
                    await call.done.wait()
        finally:
            self._count("_stopping", -1)

    def cancel_all(self) -> None:
        """Stop every call in flight (the server is shutting down)."""
        with self._lock:
            live = list(self._live)
        for budget in live:
            budget.cancel.set()

    async def shutdown(self, timeout: float) -> bool:
        """Cancel every call in flight and wait (at most ``timeout`` s) for their threads; True when all
        returned."""
        self.cancel_all()
        with anyio.move_on_after(timeout):
            while self.running:
                await anyio.sleep(0.02)
        return self.running == 0
