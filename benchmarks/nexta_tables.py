"""`optimal_next` with the h* after every applicable action on the nexta states of a split: CPU
seconds of this checkout, and with --baseline PATH of another acptools checkout on the same states,
side by side, checking both give the same table (h*, optimal actions, h* after each action).

    PYTHONPATH=. python benchmarks/nexta_tables.py [--data acpbench-hard:test] [--baseline /work/main] [--cpu 60]

Each library runs in its own child process, one state after the other; CPU seconds count the
child's threads and the planner processes it waited for.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu_seconds() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def worker(data: str, cpu: float) -> None:
    """One JSON line per nexta state: its table and the CPU seconds it took."""
    from acptools import load_task
    from acptools.budget import Budget
    from acptools.dataset import load_records, task_of

    for r in load_records(data):
        if task_of(r) != "nexta":
            continue
        task = load_task(r["PDDL_domain"], r["PDDL_problem"])
        t0 = cpu_seconds()
        rep = task.questions.optimal_next(budget=Budget(None, cpu=cpu), table=True)
        dt = cpu_seconds() - t0
        table = sorted((v.action, v.h_star_after, v.optimal, v.known) for v in rep.actions)
        print(
            json.dumps(
                {
                    "id": r["id"],
                    "cpu": dt,
                    "known": rep.known,
                    "h_star": rep.h_star,
                    "optimal": rep.optimal_actions,
                    "table": table,
                    "how": rep.how,
                }
            ),
            flush=True,
        )


def run(library: Path, data: str, cpu: float) -> dict[str, dict]:
    env = dict(os.environ, PYTHONPATH=str(library))
    out = subprocess.run(
        [sys.executable, __file__, "--worker", "--data", data, "--cpu", str(cpu)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    return {x["id"]: x for x in map(json.loads, out.splitlines())}


def summary(rows: dict[str, dict]) -> str:
    cpu = [x["cpu"] for x in rows.values()]
    unknown = sum(1 for x in rows.values() if not x["known"] or any(not k for *_, k in x["table"]))
    return (
        f"{len(cpu)} states, CPU total {sum(cpu):.1f} s, p50 {statistics.median(cpu):.3f} s, "
        f"max {max(cpu):.2f} s, unknown {unknown}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="acpbench-hard:test")
    ap.add_argument("--baseline", default=None, metavar="PATH", help="another acptools checkout")
    ap.add_argument("--cpu", type=float, default=60.0, help="CPU seconds per state (default 60)")
    ap.add_argument("--json", default=None, metavar="PATH", help="write every state's rows here")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.data, args.cpu)
    ours = run(ROOT, args.data, args.cpu)
    print(f"this checkout: {summary(ours)}", flush=True)
    base = run(Path(args.baseline).resolve(), args.data, args.cpu) if args.baseline else {}
    if args.json:
        Path(args.json).write_text(json.dumps({"this": ours, "baseline": base}))
    if args.baseline:
        print(f"baseline {args.baseline}: {summary(base)}")
        fields = ("known", "h_star", "optimal", "table")
        differ = [i for i in ours if any(ours[i][f] != base[i][f] for f in fields)]
        ratios = [ours[i]["cpu"] / base[i]["cpu"] for i in ours if base[i]["cpu"] > 0]
        print(
            f"CPU this/baseline: total {sum(x['cpu'] for x in ours.values()) / sum(x['cpu'] for x in base.values()):.2f}, "
            f"per state p50 {statistics.median(ratios):.2f}"
        )
        print(
            f"tables that differ: {len(differ)} of {len(ours)}"
            + (f" ({', '.join(map(str, differ[:10]))})" if differ else "")
        )


if __name__ == "__main__":
    main()
