"""Wall-clock bounds that hold on a busy machine: a margin that grows with the measured load.

A bound such as ``elapsed < budget + 3`` fails when other work shares the cores (a check that runs every
few milliseconds of CPU then runs every few tens of wall-clock milliseconds). Where the point is effort,
a test asserts CPU time instead; where it is wall-clock time (a budget, a cancellation), it gives its slack
times ``load_factor()``."""

from __future__ import annotations

import os


def running_now() -> int:
    """Threads that are runnable at this moment, this one excluded (0 where /proc is missing)."""
    try:
        with open("/proc/loadavg") as f:
            return max(0, int(f.read().split()[3].split("/")[0]) - 1)
    except (OSError, IndexError, ValueError):
        return 0


def load_factor() -> float:
    """How many times more runnable work than cores the machine has (at least 1): the last minute's
    average, or what runs right now when that is more (the average lags a load that has just started)."""
    return max(1.0, max(os.getloadavg()[0], running_now()) / (os.cpu_count() or 1))


def slack(seconds: float) -> float:
    """``seconds`` of slack on a quiet machine, scaled by the load."""
    return seconds * load_factor()
