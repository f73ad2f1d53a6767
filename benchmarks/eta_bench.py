#!/usr/bin/env python3
"""How far off the progress bar's time left is: the estimate from measured cost per task
(acptools.util.progress.CostModel, what the bar shows) against the former one (elapsed / share of the
prior size guess done), both recorded at every finished unit of one real scoring run and compared
with the time that was really left.

    python benchmarks/eta_bench.py [--data acpbench-hard:dev] [--jobs 2] [--answers gold|wrong]

Prints, at 10%, 25%, 50% and 75% of the units done, the estimate of each method, the truth and the
ratio estimate/truth (1.00 is right), and the median |log2 ratio| over the run after 10%.
Runs with no proof store (ACPTOOLS_CACHE=off), so every proof is made.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["ACPTOOLS_CACHE"] = "off"

from acptools.dataset import load_records  # noqa: E402
from acptools.scoring import batch, gold_response  # noqa: E402
from acptools.util.progress import Progress  # noqa: E402


class Recording(Progress):
    """The bar, silent, noting (time, units done, measured estimate, share-of-prior estimate)."""

    def __init__(self):
        super().__init__(stream=io.StringIO(), enabled=False)
        self.marks = []

    def __call__(self, done, total, work=None, cost=None):
        super().__call__(done, total, work, cost)
        now = time.perf_counter()
        el = now - self.t0
        former = el / work - el if work else math.nan
        measured = self._eta[0] if self._eta is not None and 0 < done < total else math.nan
        self.marks.append((now, done, total, measured, former))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="acpbench-hard:dev")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--answers", choices=("gold", "wrong"), default="gold")
    args = ap.parse_args()
    records = load_records(args.data)
    rows = [
        {"id": r["id"], "group": r["group"], "response": gold_response(r) if args.answers == "gold" else "None"}
        for r in records
    ]
    pairs = batch.match(records, rows)
    bar = Recording()
    t0 = time.perf_counter()
    batch.score_pairs(pairs, jobs=args.jobs, progress=bar)
    end = bar.marks[-1][0]
    print(f"{len(pairs)} responses to {args.data}, --jobs {args.jobs}: {end - t0:.1f} s")
    print(f"{'done':>6} {'truth s':>8} {'measured s':>10} {'ratio':>6} {'former s':>9} {'ratio':>6}")
    total = bar.marks[-1][2]
    for share in (0.10, 0.25, 0.50, 0.75):
        mark = next(m for m in bar.marks if m[1] >= share * total)
        truth = end - mark[0]
        print(f"{share:6.0%} {truth:8.1f} {mark[3]:10.1f} {mark[3] / truth:6.2f} {mark[4]:9.1f} {mark[4] / truth:6.2f}")
    late = [m for m in bar.marks if 0.1 * total <= m[1] < total and end - m[0] > 1.0]
    for k, name in ((3, "measured"), (4, "former")):
        errs = [abs(math.log2(m[k] / (end - m[0]))) for m in late if m[k] > 0]
        print(
            f"median |log2(estimate/truth)| after 10%, {name}: {statistics.median(errs):.2f}"
            f" (x{2 ** statistics.median(errs):.2f} off)"
        )


if __name__ == "__main__":
    main()
