"""Where `optimal_next` spends its time on suite tasks: the optimal-action search vs the per-action
h* table, and inside them the SAS+ writing, the Fast Downward runs and the in-process searches.

    PYTHONPATH=. python benchmarks/suite/profile_nexta.py DOMAIN SIZE [--states N] [--budget S] [--seed N]

States are drawn like suite_bench.py draws them (plan prefixes and random walks). Library functions
are wrapped with timers from outside; nothing in acptools changes.
"""

import argparse
import collections
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from suite_bench import sample_states  # noqa: E402

from acptools import load_task
from acptools.engine.reachability import optimal
from acptools.planners import fd
from acptools.questions import nexta  # noqa: E402

T = collections.defaultdict(float)
N = collections.Counter()


def timed(owner, name, key):
    orig = getattr(owner, name)

    def wrapper(*a, **k):
        t0 = time.perf_counter()
        try:
            return orig(*a, **k)
        finally:
            T[key] += time.perf_counter() - t0
            N[key] += 1

    setattr(owner, name, wrapper)


timed(fd, "write_sas", "fd.write_sas (Python, SAS+ text)")
timed(fd, "run_search", "fd.run_search (subprocess: FD parse + search)")
timed(optimal.Optimizer, "_astar_h", "in-process A* for h*")
timed(optimal.Optimizer, "_astar_next", "in-process A* for next actions")
timed(optimal.Optimizer, "_symk", "SymK (translate + symbolic search)")
timed(optimal.Optimizer, "next_actions", "next_actions (h* + all optimal first actions)")
timed(optimal.Optimizer, "h_star", "h_star calls (incl. nested)")

ap = argparse.ArgumentParser()
ap.add_argument("domain")
ap.add_argument("size")
ap.add_argument("--states", type=int, default=4)
ap.add_argument("--budget", type=float, default=30.0)
ap.add_argument("--seed", type=int, default=0)
args = ap.parse_args()
d = Path(__file__).resolve().parent / args.domain
task = load_task(d / "domain.pddl", d / f"{args.size}.pddl")
res = fd.solve(len(task.atoms), task.operators, task.init, task.goal, 30.0, optimal=False)
plan = None if res.plan is None else [task.operators[i].action for i in res.plan]
states = sample_states(task, random.Random(f"{args.seed}:{args.domain}:{args.size}"), args.states, plan)
q = task.questions
opt = q.optimizer
print(
    f"{args.domain}/{args.size}: {len(task.operators)} operators, {len(opt.ops)} goal-relevant, "
    f"{len(task.atoms)} atoms, symmetry classes {len(opt.sym.classes)}, conditional effects "
    f"{any(op.conds for op in task.operators)}"
)
for origin, s in states:
    T.clear()
    N.clear()
    t0 = time.perf_counter()
    rep = nexta.optimal_next(opt, s, q.as_budget(args.budget), table=True)
    total = time.perf_counter() - t0
    t1 = time.perf_counter()
    alone = fd.solve(len(task.atoms), task.operators, s, task.goal, args.budget)
    fd_alone = time.perf_counter() - t1
    n_app = len(task.applicable(s))
    print(
        f"\nstate {origin}: h*={rep.h_star} known={rep.known} how={rep.how} applicable={n_app} "
        f"optimal={len(rep.optimal_actions)} table-unknown={sum(not v.known for v in rep.actions)}"
    )
    print(
        f"  optimal_next total {total:.2f} s; FD h*(s) alone {fd_alone:.2f} s "
        f"(h={None if alone.plan is None else len(alone.plan)}); ratio {total / max(fd_alone, 1e-3):.1f}"
    )
    na = T["next_actions (h* + all optimal first actions)"]
    print(
        f"  next_actions {na:.2f} s; the per-action table {total - na:.2f} s "
        f"({N['h_star calls (incl. nested)']} h_star calls)"
    )
    for k in sorted(T, key=T.get, reverse=True):
        print(f"    {k:50} {T[k]:7.2f} s  x{N[k]}")
