"""Per-schema ground operator counts, acptools vs Fast Downward's translator, and how many of ours
are relaxed-reachable from the initial state (what FD's grounding keeps, up to its simplifications).

    PYTHONPATH=. python benchmarks/suite/ground_compare.py DOMAIN SIZE
"""

import collections
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from acptools import load_task  # noqa: E402
from acptools.engine.relaxed import Relaxation

d = Path(__file__).resolve().parent / sys.argv[1]
dom, prob = d / "domain.pddl", d / f"{sys.argv[2]}.pddl"
t0 = time.perf_counter()
task = load_task(dom, prob)
t_load = time.perf_counter() - t0
ours = collections.Counter(task.action_names[op.action].strip("()").split()[0] for op in task.operators)
_, fired = Relaxation(len(task.atoms), task.operators).reachable(task.init)
# Relaxation numbers operators first, then one extra relaxed operator per conditional effect
k, reach = 0, collections.Counter()
for op in task.operators:
    if fired[k]:
        reach[task.action_names[op.action].strip("()").split()[0]] += 1
    k += 1 + sum(1 for c in op.conds if c[2])
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run(
        [sys.executable, "-m", "fast_downward.translate", str(dom), str(prob), "--sas-file", f"{tmp}/out.sas"],
        capture_output=True,
        cwd=tmp,
    )
    lines = Path(f"{tmp}/out.sas").read_text().splitlines()
# distinct ground actions (FD splits one action into several operators for a negative precondition
# on a multi-valued variable)
theirs = collections.Counter(n.split()[0] for n in {lines[i + 1] for i, x in enumerate(lines) if x == "begin_operator"})
print(
    f"{sys.argv[1]}/{sys.argv[2]}: load_task {t_load:.2f} s, {len(task.operators)} operators, "
    f"{sum(reach.values())} relaxed-reachable from init; FD {sum(theirs.values())}"
)
print(f"{'schema':32} {'ours':>8} {'reachable':>10} {'FD':>8}")
for s in sorted(set(ours) | set(theirs)):
    print(f"{s:32} {ours[s]:8} {reach[s]:10} {theirs[s]:8}")
