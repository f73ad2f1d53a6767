"""Wall-clock bounds that hold on a busy machine: a margin that grows with the measured load.

A bound such as ``elapsed < budget + 3`` fails when other work shares the cores (a check that runs every
few milliseconds of CPU then runs every few tens of wall-clock milliseconds). Where the point is effort,
a test asserts CPU time instead; where it is wall-clock time (a budget, a cancellation), it gives its slack
times ``load_factor()``.

The load average alone underestimates the slowdown where the scheduler shares the CPU between groups
(Linux autogroup: busy loops started beside the tests split their session's share with them), so the
factor is also measured: the share of a core a short spin of this thread gets.

A bound is checked after the work it times, when the load may have gone or not yet shown in the
one-minute average; so a thread samples the runnable threads every SAMPLE_EVERY seconds from import on,
and the factor is never below the busiest second of the last WINDOW seconds."""

from __future__ import annotations

import os
import threading
import time
from collections import deque

SPIN_SECONDS = 0.05  # how long a measurement of the CPU share spins
SHARE_TTL = 5.0  # seconds a measured share is reused
_share: list[float] = [1.0, -SHARE_TTL]  # the last measured share, and when
_lock = threading.Lock()
SAMPLE_EVERY = 0.1  # seconds between samples of the runnable threads
WINDOW = 120.0  # seconds of samples a bound looks back over (longer than the work a bound times)
SMOOTH = 10  # samples averaged into one (a second): a passing spike is not a load
_samples: deque[tuple[float, int]] = deque(maxlen=int(WINDOW / SAMPLE_EVERY))


def running_now() -> int:
    """Threads that are runnable at this moment, this one excluded (0 where /proc is missing)."""
    try:
        with open("/proc/loadavg") as f:
            return max(0, int(f.read().split()[3].split("/")[0]) - 1)
    except (OSError, IndexError, ValueError):
        return 0


def _sample_forever() -> None:
    while True:
        _samples.append((time.monotonic(), running_now()))
        time.sleep(SAMPLE_EVERY)


threading.Thread(target=_sample_forever, name="load-sampler", daemon=True).start()


def recent_load() -> float:
    """Runnable threads per core in the busiest second of the last WINDOW seconds (0 before any sample)."""
    since = time.monotonic() - WINDOW
    counts = [n for t, n in list(_samples) if t >= since]
    seconds = [counts[k : k + SMOOTH] for k in range(0, len(counts), SMOOTH)]
    return max((sum(c) / len(c) for c in seconds), default=0.0) / (os.cpu_count() or 1)


def cpu_share() -> float:
    """The fraction of a core this thread gets now (measured at most every SHARE_TTL seconds)."""
    with _lock:
        if time.monotonic() - _share[1] < SHARE_TTL:
            return _share[0]
        wall0, cpu0 = time.perf_counter(), time.thread_time()
        while time.perf_counter() - wall0 < SPIN_SECONDS:
            pass
        share = (time.thread_time() - cpu0) / (time.perf_counter() - wall0)
        _share[:] = [min(1.0, max(0.01, share)), time.monotonic()]
        return _share[0]


def load_factor() -> float:
    """How many times slower than on a quiet machine wall-clock work runs now (at least 1): the last
    minute's load average per core, what runs right now (the average lags a load that has just started),
    the busiest recent second (a load that came and went while the work ran), or the inverse of this
    thread's measured share of a core, whichever is most."""
    cores = os.cpu_count() or 1
    return max(1.0, os.getloadavg()[0] / cores, running_now() / cores, recent_load(), 1.0 / cpu_share())


def slack(seconds: float) -> float:
    """``seconds`` of slack on a quiet machine, scaled by the load."""
    return seconds * load_factor()
