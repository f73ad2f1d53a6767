"""Engines side by side: the first decisive answer wins and the others are stopped before the call returns."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed, wait

from ..budget import Budget

LOSER_GRACE = 5.0  # a race waits this long (at most) for its cancelled engines to stop


def _new_pool() -> None:
    """The thread pool races run in. A forked child (a local --jobs worker) inherits the pool
    object but not its threads, and would wait forever on it: it gets a new one."""
    global _race_pool
    # up to 3 jobs a race, several races at once (the server runs searches side by side)
    _race_pool = ThreadPoolExecutor(max_workers=12, thread_name_prefix="acptools-race")


_new_pool()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_pool)


def race(jobs, budget: Budget):
    """Run `jobs` (callables taking a Budget, returning a result or None) side by side; the first
    non-None result wins and the others are cancelled through their shared cancel event. A job's
    exception is raised only when no other job answers."""
    stop = threading.Event()
    futures = [_race_pool.submit(job, budget.child(cancel=stop)) for job in jobs]
    failure = None
    try:
        for f in as_completed(futures):
            try:
                result = f.result()
            except Exception as e:  # one engine failing must not stop the others from answering
                failure = failure or e
                continue
            if result is not None:
                return result
    finally:
        stop.set()
        wait(futures, timeout=LOSER_GRACE)  # the losers stop at their next check: no work outlives the call
    if failure is not None:
        raise failure
    return None
