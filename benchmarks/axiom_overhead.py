"""What derived-predicate support costs tasks without axioms: the engine's hot paths timed in this
tree and in another revision side by side (CPU seconds, best of N interleaved runs, so machine load
counts little), plus the same paths on the test domains with axioms.

    python benchmarks/axiom_overhead.py [--base REV] [--runs N]

REV (default: the commit before derived predicates) is extracted with `git archive` to a temporary
folder; each measurement runs in a fresh process with that tree first on sys.path.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE = "801b428"

WORKLOAD = r"""
import json, os, sys, time
os.environ["ACPTOOLS_CACHE"] = "off"
from pathlib import Path
from acptools import load_task, examples
from acptools.budget import Budget
names = ["ferry", "blocksworld-4ops", "grid-visit-all", "gripper-strips", "logistics-strips"]
texts = {n: examples.texts(n) for n in names}
if sys.argv[1] == "axioms":
    pddl = Path(sys.argv[2]) / "tests" / "pddl"
    names = ["blocks-derived", "rooms-derived"]
    texts = {n: ((pddl / n / "domain.pddl").read_text(), (pddl / n / "problem.pddl").read_text()) for n in names}
out = {}
c = time.process_time()
for _ in range(3):
    for n in names:
        load_task(*texts[n]).questions.applicable()
out["load x3"] = time.process_time() - c
tasks = {n: load_task(*texts[n]) for n in names}
c = time.process_time()
for t in tasks.values():
    e = t.questions.engine
    states = [t.init] + [s for _, s in e.gen.successors(t.init)]
    for _ in range(200):
        for s in states:
            e.relax.hmax(s, t.goal)
out["h^max"] = time.process_time() - c
c = time.process_time()
for t in tasks.values():
    t.questions.engine.optimal(t.init, Budget(None, cpu=3))
out["A* from init"] = time.process_time() - c
c = time.process_time()
for t in tasks.values():
    for _ in range(2000):
        t.apply_op(t.applicable_ops(t.init)[0], t.init)
    for _ in range(300):
        t.parse_state(t.names(t.init))
out["app+apply+parse"] = time.process_time() - c
print(json.dumps(out))
"""


def measure(tree: Path, which: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    res = subprocess.run(
        [sys.executable, "-c", WORKLOAD, which, str(ROOT)], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", default=BASE)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        best: dict[str, dict[str, float]] = {"base": {}, "this": {}}
        for _ in range(args.runs):
            for label, tree in (("base", Path(tmp)), ("this", ROOT)):
                for k, v in measure(tree, "plain").items():
                    best[label][k] = min(v, best[label].get(k, v))
    print(f"no axioms: CPU seconds, best of {args.runs} (base = {args.base})")
    print(f"{'path':18} {'base':>8} {'this':>8} {'ratio':>7}")
    for k, v in best["base"].items():
        print(f"{k:18} {v:8.3f} {best['this'][k]:8.3f} {best['this'][k] / v:7.2f}")
    axioms = measure(ROOT, "axioms")
    print("\nwith axioms (blocks-derived, rooms-derived), this tree: CPU seconds")
    for k, v in axioms.items():
        print(f"{k:18} {v:8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
