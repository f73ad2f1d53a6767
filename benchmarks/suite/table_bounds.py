"""How much of optimal_next's per-action table is settled without any search, given h*(s) = d and
one optimal plan P from s (both from the root solve). For a non-optimal action a with t = s[a]:
  lower bound d (h*(t) >= d - 1 by the triangle inequality, and != d - 1 as a is not optimal);
  h*(t) = d exactly if P, replayed from t, still reaches the goal (a did not interfere);
  h*(t) <= d + 1 if some action leads from t back to s; then h*(t) = d + 1 if h^max(t) = d + 1.
Checked against the library's table (its answers are exact).

    PYTHONPATH=. python benchmarks/suite/table_bounds.py DOMAIN SIZE [--states N] [--budget S]
"""

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from suite_bench import sample_states  # noqa: E402

from acptools import load_task
from acptools.planners import fd
from acptools.questions import basic  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("domain")
ap.add_argument("size")
ap.add_argument("--states", type=int, default=6)
ap.add_argument("--budget", type=float, default=30.0)
args = ap.parse_args()
d = Path(__file__).resolve().parent / args.domain
task = load_task(d / "domain.pddl", d / f"{args.size}.pddl")
q = task.questions
relax = q.optimizer.relax
res = fd.solve(len(task.atoms), task.operators, task.init, task.goal, 30.0, optimal=False)
plan = None if res.plan is None else [task.operators[i].action for i in res.plan]
totals = [0, 0, 0, 0, 0]
left_values = {}
for origin, s in sample_states(task, random.Random(f"0:{args.domain}:{args.size}"), args.states, plan):
    rep = q.optimal_next(s, budget=args.budget, table=True)
    if not rep.known or rep.h_star is None or rep.plan is None:
        continue
    dd, P = rep.h_star, [task.parse_action(a) for a in rep.plan]
    for v in rep.actions:
        if v.optimal or not v.known:
            continue
        totals[0] += 1
        a = task.parse_action(v.action)
        t = task.apply_op(task.op_for(a, s), s)
        truth = v.h_star_after
        if basic.is_plan(task, P, t):
            totals[1] += 1
            assert truth == dd, (v, dd)
            continue
        back = any(task.apply_op(op, t) == s for op in task.applicable_ops(t))
        if back:
            totals[2] += 1
            if relax.hmax(t, task.goal) == dd + 1:
                totals[3] += 1
                assert truth == dd + 1, (v, dd)
                continue
        totals[4] += 1
        key = "d" if truth == dd else "d+1" if truth == dd + 1 else "other"
        left_values[key] = left_values.get(key, 0) + 1
n = max(totals[0], 1)
print(
    f"{args.domain}/{args.size}: non-optimal table rows {totals[0]}; settled by replaying the optimal plan "
    f"{totals[1]} ({100 * totals[1] / n:.0f}%); with an action back to s {totals[2]}, of which settled by "
    f"h^max = d+1: {totals[3]}; left for a bounded search (h* in {{d, d+1}} when reversible): {totals[4]}, whose true values are {left_values}"
)
