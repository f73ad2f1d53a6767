"""When is SymK worth a core beside Fast Downward? h*(s) by each planner alone, one after the
other, on the suite's harder states (random walks and plan prefixes, the suite_bench sampler), to
choose when SymK joins the race (`acptools.engine.optimal.SYMK_DELAY`).

    PYTHONPATH=. python benchmarks/suite/symk_delay.py [--budget S] [--states N] DOMAIN/SIZE ...

Prints per state: FD seconds, SymK seconds (its translator included), h*, and which was faster.
"""

import argparse
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parent))

from suite_bench import sample_states  # noqa: E402

from acptools import load_task
from acptools.budget import Budget
from acptools.planners import fd


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("tasks", nargs="+", help="DOMAIN/SIZE")
    ap.add_argument("--budget", type=float, default=60.0)
    ap.add_argument("--states", type=int, default=4)
    args = ap.parse_args()
    rows = []
    for name in args.tasks:
        dom, size = name.split("/")
        task = load_task(HERE / dom / "domain.pddl", HERE / dom / f"{size}.pddl")
        res = fd.solve(len(task.atoms), task.operators, task.init, task.goal, 30.0, optimal=False)
        plan = None if res.plan is None else [task.operators[i].action for i in res.plan]
        for origin, s in sample_states(task, random.Random(f"0:{dom}:{size}"), args.states, plan):
            opt = task.questions.optimizer
            t_fd, r = timed(lambda: opt._fd_h(s, Budget(None, cpu=args.budget)))
            t_sk, k = timed(lambda: opt._symk(s, Budget(None, cpu=args.budget)))
            h_fd = None if r is None else r.cost
            h_sk = None if k is None else k.cost
            if r is not None and k is not None:
                assert h_fd == h_sk, (name, origin, h_fd, h_sk)
            rows.append((name, origin, t_fd if r else None, t_sk if k else None, h_fd if r else h_sk))
            print(
                f"{name} {origin}: FD {t_fd:.2f} s {'ok' if r else 'unknown'}, SymK {t_sk:.2f} s "
                f"{'ok' if k else 'unknown'}, h* {rows[-1][-1]}",
                flush=True,
            )
    both = [(f, k) for _, _, f, k, _ in rows if f is not None and k is not None]
    print(
        f"\nstates {len(rows)}; FD alone settled {sum(f is not None for _, _, f, _, _ in rows)}, SymK alone "
        f"{sum(k is not None for _, _, _, k, _ in rows)}; SymK faster on {sum(k < f for f, k in both)} of {len(both)} "
        f"both settled; SymK only: {[(n, o) for n, o, f, k, _ in rows if f is None and k is not None]}"
    )
    for cut in (1, 3, 10, 30):
        over = [(f, k) for f, k in both if f > cut]
        print(f"  FD over {cut:>2} s: {len(over)} states, SymK faster on {sum(k < f for f, k in over)}")


if __name__ == "__main__":
    main()
