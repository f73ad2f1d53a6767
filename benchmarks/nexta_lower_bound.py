"""A lower bound on exact nexta grading: per nexta state of a split, h*(s) by the fastest of the
three exact engines (in-process A*, Fast Downward A*/LM-cut, SymK), as if an oracle picked it.
Grading a nexta answer exactly needs at least h*(s); the sum bounds any exact scorer's time.

    python benchmarks/nexta_lower_bound.py [SOURCE]     # default acpbench-hard:test (the bundled test split)
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from acptools import load_task  # noqa: E402
from acptools.budget import Budget
from acptools.dataset import load_records, task_of  # noqa: E402

split = sys.argv[1] if len(sys.argv) > 1 else "acpbench-hard:test"
recs = [r for r in load_records(split) if task_of(r) == "nexta"]
tot = 0
rows = []
for r in recs:
    t = load_task(r["PDDL_domain"], r["PDDL_problem"])
    opt = t.questions.optimizer
    best = None
    for fn in (opt._astar_h, opt._fd_h, opt._symk):
        t0 = time.perf_counter()
        h = fn(t.init, Budget(best or 20, None))
        dt = time.perf_counter() - t0
        if h is not None and (best is None or dt < best):
            best = dt
    tot += best
    rows.append(best)
rows.sort()
print(f"{len(recs)} states: sum of fastest-engine h*(s) {tot:.2f} s; p50 {rows[len(rows) // 2]:.3f} max {rows[-1]:.2f}")
