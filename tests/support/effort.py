"""Effort bounds: CPU seconds a block of a test spends, which a busy machine does not stretch.

A garbage collection counts in the CPU time of the thread it interrupts, and a full collection of a
test worker's heap (everything earlier tests left behind) can cost more than the work a bound is
about; so the heap is collected before the block and collection is paused during it."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass
class Spent:
    seconds: float = 0.0


@contextmanager
def cpu_effort() -> Iterator[Spent]:
    """`with cpu_effort() as spent: ...` then `spent.seconds` is the block's CPU time in this thread."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    spent = Spent()
    started = time.thread_time()
    try:
        yield spent
    finally:
        spent.seconds = time.thread_time() - started
        if enabled:
            gc.enable()
