"""Progress on stderr for the batch commands (score, rollout, generate, eval): a bar redrawn at most ten
times a second on a terminal, a line every five seconds otherwise, with the time left estimated from
the measured cost of the items done so far (see `CostModel`)."""

from __future__ import annotations

import math
import sys
import time
from collections import defaultdict

SMOOTHING = 0.5  # weight of a fresh estimate of the time left against the previous one counted down


class CostModel:
    """The work left, from measurement: each pending unit has a kind (a task, a domain) and a prior
    weight (a size guess); the seconds one weight unit of a kind takes are measured as units of that
    kind finish, so a prior that is off by 10x for one kind stops mattering once a unit of that
    kind is done (see `work_left` for kinds not seen yet)."""

    def __init__(self, units):
        self.pending: dict[str, float] = defaultdict(float)  # kind -> prior weight still to do
        self.left: dict[str, int] = defaultdict(int)  # kind -> units still to do
        for kind, weight in units:
            self.pending[kind] += weight
            self.left[kind] += 1
        self.spent: dict[str, float] = defaultdict(float)  # kind -> measured seconds
        self.weighed: dict[str, float] = defaultdict(float)  # kind -> prior weight of those units
        self.count: dict[str, int] = defaultdict(int)  # kind -> units measured

    def finished(self, kind: str, weight: float, seconds: float) -> None:
        """Record a finished unit of `kind`: its weight leaves the pending work and its seconds are measured."""
        self.pending[kind] = max(0.0, self.pending[kind] - weight)
        self.left[kind] = max(0, self.left[kind] - 1)
        self.spent[kind] += max(0.0, seconds)
        self.weighed[kind] += weight
        self.count[kind] += 1

    @property
    def measured(self) -> float:
        """Seconds of work measured so far (all kinds)."""
        return sum(self.spent.values())

    def work_left(self) -> float | None:
        """Estimated seconds of work left (one worker's time), or None before anything was measured.
        A kind measured already: its seconds per prior weight unit times its weight left. A kind not
        seen yet: the geometric mean of two guesses, the prior's (the seconds per weight unit of all
        kinds seen) and none (the mean seconds of a unit seen), since the prior's ratios between
        kinds are what is least known."""
        units = sum(self.count.values())
        total_w = sum(self.weighed.values())
        if units == 0 or total_w <= 0:
            return None
        per_weight, per_unit = self.measured / total_w, self.measured / units
        left = 0.0
        for k, w in self.pending.items():
            if self.weighed[k] > 0:
                left += w * self.spent[k] / self.weighed[k]
            else:
                left += math.sqrt(w * per_weight * self.left[k] * per_unit)
        return left


class Progress:
    """A progress bar on stderr (redrawn at most 10 times a second).

    Callers that know their units call `expect([(kind, weight), ...])` once and pass `cost=(kind,
    weight, seconds)` with each finished unit; the time left is then the work left at the rate work
    has been done so far (which counts parallel workers), smoothed. Without that, it comes from
    `work`, the share of the estimated work done."""

    def __init__(self, stream=None, enabled: bool = True, unit: str = "responses", clock=time.perf_counter):
        self.stream = stream or sys.stderr
        self.unit = unit
        self.enabled = enabled
        self.clock = clock
        self.t0 = clock()
        self.last = -math.inf
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.costs: CostModel | None = None
        self._eta: tuple[float, float] | None = None  # (estimate, when)
        self._drawn = 0  # characters of an unfinished bar on the terminal's current line

    def note(self, text: str) -> None:
        """A line of text on the progress stream (when enabled); on a terminal it takes the place of an
        unfinished bar, which is drawn again on the next update."""
        if self.enabled:
            if self._drawn:
                self.stream.write("\r" + " " * self._drawn + "\r")
                self._drawn = 0
                self.last = -math.inf
            self.stream.write(text + "\n")
            self.stream.flush()

    def expect(self, units) -> None:
        """The pending units as (kind, prior weight) pairs."""
        self.costs = CostModel(units)
        self.t0 = self.clock()
        self._eta = None

    def eta(self, done: int, total: int, work: float | None = None) -> float | None:
        """Seconds left: measured cost of what is left / the rate of work so far, smoothed."""
        now = self.clock()
        elapsed = now - self.t0
        if self.costs is not None:
            left = self.costs.work_left()
            if left is None or elapsed <= 0 or self.costs.measured <= 0:
                return None
            fresh = left * elapsed / self.costs.measured  # measured work per wall second counts the workers
        else:
            share = done / total if work is None and total else work
            if not share or elapsed <= 0:
                return None
            fresh = elapsed / share - elapsed
        if self._eta is not None:
            before, when = self._eta
            fresh = SMOOTHING * fresh + (1 - SMOOTHING) * max(0.0, before - (now - when))
        self._eta = (fresh, now)
        return fresh

    def __call__(self, done: int, total: int, work: float | None = None, cost=None) -> None:
        """`cost`: (kind, prior weight, measured seconds) of the unit just finished (see `expect`);
        `work`: else the share of the estimated work done."""
        if cost is not None and self.costs is not None:
            self.costs.finished(*cost)
        eta = self.eta(done, total, work) if 0 < done < total else None
        if not self.enabled:
            return
        now = self.clock()
        if done < total and now - self.last < (0.1 if self.tty else 5.0):
            return
        self.last = now
        frac = done / total if total else 1.0
        bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
        el = now - self.t0
        msg = f"[{bar}] {done}/{total} {self.unit}  {el:6.1f}s" + (f"  ~{eta:.0f}s left" if eta is not None else "")
        if self.tty:  # padded over a longer earlier bar, so none of its text stays visible
            self.stream.write("\r" + msg.ljust(self._drawn) + ("\n" if done >= total else ""))
            self._drawn = 0 if done >= total else max(len(msg), self._drawn)
        else:
            self.stream.write(msg + "\n")
        self.stream.flush()
