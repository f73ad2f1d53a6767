"""Grading off Inspect's event loop: a worker thread under a cancellable CPU budget."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

import anyio

from ..budget import Budget

T = TypeVar("T")


async def off_loop(work: Callable[[Budget], T], cpu_seconds: float | None) -> T:
    """Run `work(budget)` in a worker thread. If the sample is cancelled (a time limit, Ctrl-C), the
    budget's cancel event is set, so the proof stops at its next budget check and its planner
    processes are killed; the event loop never waits on the thread."""
    cancel = threading.Event()
    budget = Budget(None, cpu=cpu_seconds, cancel=cancel)
    try:
        return await anyio.to_thread.run_sync(work, budget, abandon_on_cancel=True)
    finally:
        cancel.set()
