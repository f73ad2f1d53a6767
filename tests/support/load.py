"""Wall-clock bounds that hold on a busy machine: a margin that grows with the measured load.

A bound such as ``elapsed < budget + 3`` fails when other work shares the cores (a check that runs every
few milliseconds of CPU then runs every few tens of wall-clock milliseconds). Where the point is effort,
a test asserts CPU time instead; where it is wall-clock time (a budget, a cancellation), it gives its slack
times ``load_factor()``."""

from __future__ import annotations

import os


def load_factor() -> float:
    """How many times more runnable work than cores the machine has had over the last minute (at least 1)."""
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def slack(seconds: float) -> float:
    """``seconds`` of slack on a quiet machine, scaled by the load."""
    return seconds * load_factor()
