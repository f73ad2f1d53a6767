"""Prototype (benchmark side only) of a cheaper `optimal_next`: h*(s) by one Fast Downward run, then
one run per successor class, and the optimal actions read off the table (a is optimal iff
h*(s[a]) = h*(s) - 1), instead of the library's exclusion re-solves plus a full engine portfolio
per successor. Compared with the library and with FD's h*(s) alone on the same states.

    PYTHONPATH=. python benchmarks/suite/prototype_nexta.py DOMAIN SIZE [--states N] [--budget S] [--workers 2]

Answers are checked against the library's (same h*, same optimal set, same table) whenever both
are known.
"""

import argparse
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from suite_bench import sample_states  # noqa: E402

from acptools import load_task
from acptools.engine.relaxed import Relaxation
from acptools.planners import fd


def reachable_ops(relax: Relaxation, ops, state):
    """Operators relaxed-reachable from `state`: no plan from `state` uses any other (sound pruning)."""
    _, fired = relax.reachable(state)
    out, k = [], 0
    for op in ops:
        if fired[k]:
            out.append(op)
        k += 1 + sum(1 for c in op.conds if c[2])
    return out


def solve(task, ops, state, budget):
    r = fd.solve(len(task.atoms), ops, state, task.goal, budget)
    if r.plan is not None:
        return len(r.plan)
    return "none" if r.proven_none else None


def prototype(task, opt, relax, state, budget, workers):
    ops = reachable_ops(relax, opt.ops, state)
    d = solve(task, ops, state, budget)
    if not isinstance(d, int):
        return d, None, None
    classes = {}
    for op in task.applicable_ops(state):  # every applicable action has a row in the table
        t = task.apply_op(op, state)
        classes.setdefault(opt.sym.canonical(t), (t, []))[1].append(op.action)

    def value(item):
        t, acts = item
        return acts, solve(task, reachable_ops(relax, opt.ops, t), t, budget)

    with ThreadPoolExecutor(workers) as pool:
        table = list(pool.map(value, classes.values()))
    optimal = {a for acts, h in table for a in acts if h == d - 1}
    values = {a: h for acts, h in table for a in acts}
    return d, optimal, values


ap = argparse.ArgumentParser()
ap.add_argument("domain")
ap.add_argument("size")
ap.add_argument("--states", type=int, default=4)
ap.add_argument("--budget", type=float, default=30.0)
ap.add_argument("--workers", type=int, default=2)
ap.add_argument("--seed", type=int, default=0)
args = ap.parse_args()
d = Path(__file__).resolve().parent / args.domain
task = load_task(d / "domain.pddl", d / f"{args.size}.pddl")
q = task.questions
opt = q.optimizer
relax = Relaxation(len(task.atoms), opt.ops)
res = fd.solve(len(task.atoms), task.operators, task.init, task.goal, 30.0, optimal=False)
plan = None if res.plan is None else [task.operators[i].action for i in res.plan]
states = sample_states(task, random.Random(f"{args.seed}:{args.domain}:{args.size}"), args.states, plan)
print(f"{args.domain}/{args.size}: {len(task.operators)} operators")
print("| state | h* | applicable | FD h*(s) alone | library optimal_next | prototype | lib/FD | proto/FD | agree |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
for origin, s in states:
    t0 = time.perf_counter()
    alone = solve(task, task.operators, s, args.budget)
    t_fd = time.perf_counter() - t0
    t0 = time.perf_counter()
    rep = q.optimal_next(s, budget=args.budget, table=True)
    t_lib = time.perf_counter() - t0
    t0 = time.perf_counter()
    h, optimal, values = prototype(task, opt, relax, s, args.budget, args.workers)
    t_pro = time.perf_counter() - t0
    agree = "-"
    if rep.known and optimal is not None and all(v is not None for v in values.values()):
        names = sorted(task.action_names[a] for a in optimal)
        lib_vals = {v.action: v.h_star_after for v in rep.actions}
        pro_vals = {task.action_names[a]: (None if v == "none" else v) for a, v in values.items()}
        agree = str(rep.h_star == h and rep.optimal_actions == names and lib_vals == pro_vals)
    print(
        f"| {origin} | {rep.h_star if rep.known else h} | {len(task.applicable(s))} | {t_fd:.2f} | {t_lib:.2f} | "
        f"{t_pro:.2f} | {t_lib / max(t_fd, 1e-3):.1f} | {t_pro / max(t_fd, 1e-3):.1f} | {agree} |"
    )
