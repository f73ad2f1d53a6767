"""Time every core operation over the bundled ACPBench Hard records and check each against the stored answer.

    python benchmarks/core_bench.py [--data SOURCE ...] [--tasks app,val,...] [--every N]

SOURCE: acpbench-hard (default: both bundled splits), acpbench-hard:test, ..., or files and folders.

Prints p50/p95/max per operation and per domain, and the number of unknown verdicts.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from acptools import load_task  # noqa: E402
from acptools.dataset import domain_name, load_records, task_of  # noqa: E402

DEFAULT_DATA = ["acpbench-hard"]  # the bundled copy, dev then test (acptools.dataset)


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", nargs="*", default=DEFAULT_DATA)
    ap.add_argument("--tasks", default="app,prog,val,just,reach,areach,land,nexta")
    ap.add_argument("--every", type=int, default=1)
    args = ap.parse_args()
    wanted = set(args.tasks.split(","))
    records = [r for r in load_records(*args.data) if task_of(r) in wanted][:: args.every]
    times: dict[str, list] = collections.defaultdict(list)
    by_domain: dict[tuple, list] = collections.defaultdict(list)
    unknown = collections.Counter()
    for r in records:
        kind, dom = task_of(r), domain_name(r)
        t0 = time.perf_counter()
        task = load_task(r["PDDL_domain"], r["PDDL_problem"])
        times["load"].append(time.perf_counter() - t0)
        q = task.questions
        ops = {
            "app": lambda: q.applicable(),
            "prog": lambda: [q.progress(a) for a in q.applicable()[:1]],
            "val": lambda: q.validate(q.applicable()[:1]),
            "reach": lambda: q.unreachable_atoms(),
            "areach": lambda: q.unreachable_actions(),
            "land": lambda: q.landmarks(),
            "nexta": lambda: q.optimal_next(),
            "just": lambda: q.simplify(re.findall(r"\([^()]*\)", r["question"])),
        }
        # one verdict per stored item, on a fresh task (no warm caches): what a scorer or an agent asks
        fresh = load_task(r["PDDL_domain"], r["PDDL_problem"]).questions
        singles = {
            "reach": lambda: [fresh.is_reachable(a) for a in r["answer"]],
            "areach": lambda: [fresh.is_action_reachable(a) for a in r["answer"]],
            "land": lambda: [fresh.is_landmark(a) for a in r["answer"]["yes"] + r["answer"]["no"]],
        }
        if kind in singles:
            t0 = time.perf_counter()
            verdicts = singles[kind]()
            if verdicts:
                times[kind + " (1 item)"].extend([(time.perf_counter() - t0) / len(verdicts)] * len(verdicts))
                unknown[kind + " (1 item)"] += sum(v.answer is None for v in verdicts)
        if kind not in ops:
            continue
        t0 = time.perf_counter()
        res = ops[kind]()
        dt = time.perf_counter() - t0
        times[kind].append(dt)
        by_domain[(kind, dom)].append(dt)
        if getattr(res, "complete", True) is False or getattr(res, "known", True) is False:
            unknown[kind] += 1
    print(f"{'operation':<18}{'n':>6}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}")
    for k, xs in times.items():
        print(f"{k:<18}{len(xs):>6}{pct(xs, 0.5) * 1e3:>10.2f}{pct(xs, 0.95) * 1e3:>10.2f}{max(xs) * 1e3:>10.1f}")
    print("\nper task and domain (p50 / p95 / max ms)")
    for (k, d), xs in sorted(by_domain.items()):
        print(f"  {k:<7}{d:<20}{pct(xs, 0.5) * 1e3:>9.1f}{pct(xs, 0.95) * 1e3:>9.1f}{max(xs) * 1e3:>9.1f}")
    print("\nunknown verdicts:", dict(unknown) or 0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
