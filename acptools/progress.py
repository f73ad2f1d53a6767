"""Progress on stderr for the batch commands (score, rollout, generate, eval): a bar redrawn at most ten
times a second on a terminal, a line every five seconds otherwise."""

from __future__ import annotations

import math
import sys
import time


class Progress:
    """A progress bar on stderr (redrawn at most 10 times a second)."""

    def __init__(self, stream=None, enabled: bool = True, unit: str = "responses"):
        self.stream = stream or sys.stderr
        self.unit = unit
        self.enabled = enabled
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def note(self, text: str) -> None:
        """A line of text on the progress stream (when enabled)."""
        if self.enabled:
            self.stream.write(text + "\n")
            self.stream.flush()

    def __call__(self, done: int, total: int, work: float | None = None) -> None:
        """`work`: the share of the estimated work done (items differ a lot in cost: the time left
        is estimated from it, not from the item count)."""
        if not self.enabled:
            return
        now = time.perf_counter()
        if done < total and now - self.last < (0.1 if self.tty else 5.0):
            return
        self.last = now
        frac = done / total if total else 1.0
        share = frac if work is None else work
        bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
        el = now - self.t0
        eta = el / share - el if share > 0 else math.nan
        msg = f"[{bar}] {done}/{total} {self.unit}  {el:6.1f}s" + (f"  ~{eta:.0f}s left" if 0 < done < total else "")
        if self.tty:
            self.stream.write("\r" + msg + ("\n" if done >= total else ""))
        else:
            self.stream.write(msg + "\n")
        self.stream.flush()
