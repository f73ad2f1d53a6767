"""Sizes users bring (issue 39), measured on real `acptools-server` processes over stdio.

    python benchmarks/memory_bounds.py quantifiers [--objects 30] [--load-budget 10] [--max-memory N] [--cap-mb 0]
                                                   [--timeout 300]
    python benchmarks/memory_bounds.py tasks [--tasks 36] [--max-memory 300000000] [--budget 1]
    python benchmarks/memory_bounds.py table [--cars 200] [--locations 80] [--budget 10]

quantifiers: each domain of tests/support/quantified.py (a precondition `exists`, a derived predicate's
`exists`, a `forall/when` effect over 30 objects) is loaded on its own server with --load-budget; reports
the time to the answer, the server's peak RSS (VmHWM) and the answer's first words. --cap-mb caps the
server's address space (RLIMIT_AS) so that a run without bounds cannot take the machine down.

tasks: loads ferry(150, 40) tasks of seeds 0.. one after another and asks unreachable_actions and
optimal_next_action of each at --budget, under --max-memory; reports the RSS after every sixth task, the
peak, and the server's own estimate of what it holds.

table: loads ferry(cars, locations), builds the engines with one optimal_next_action call, then times
optimal_next_action(table=true) at --budget: wall seconds, the server's CPU seconds and its planners'.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.quantified import CASES, problem  # noqa: E402
from tests.support.server_procs import FERRY_DOMAIN, StdioServer, cpu_seconds, ferry, peak_rss_mb, rss_mb  # noqa: E402


def planners_cpu(pid: int) -> float:
    """CPU seconds of the process's children it has reaped (its planners)."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().decode(errors="replace").rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def quantifiers(args) -> None:
    flags = ["--load-budget", str(args.load_budget)] + (
        ["--max-memory", str(args.max_memory)] if args.max_memory else []
    )
    print(f"quantified formulas over {args.objects} objects, {' '.join(flags)}")
    print(f"{'case':<26} {'seconds':>8} {'peak RSS MB':>12}  answer")
    for name, make in CASES.items():
        domain = make()
        with tempfile.TemporaryDirectory() as tmp, StdioServer(Path(tmp), *flags) as server:
            if args.cap_mb:
                cap = args.cap_mb * 2**20
                resource.prlimit(server.pid, resource.RLIMIT_AS, (cap, cap))
            t0 = time.perf_counter()
            try:
                result = server.call(
                    "load_task", timeout=args.timeout, domain=domain, problem=problem(domain, args.objects)
                )
                answer = result["content"][0]["text"][:160]
            except AssertionError as exc:
                answer = f"no answer: {exc}"
            seconds = time.perf_counter() - t0
            print(f"{name:<26} {seconds:>8.1f} {peak_rss_mb(server.pid):>12.0f}  {answer}", flush=True)


def tasks(args) -> None:
    print(
        f"{args.tasks} ferry(150, 40) tasks, unreachable_actions and optimal_next_action at budget "
        f"{args.budget:g}, --max-memory {args.max_memory}"
    )
    with tempfile.TemporaryDirectory() as tmp, StdioServer(Path(tmp), "--max-memory", str(args.max_memory)) as server:
        server.ok("list_applicable", task_id="example:ferry")
        start = rss_mb(server.pid)
        print(f"RSS before: {start:.0f} MB")
        for seed in range(args.tasks):
            text, _ = ferry(150, 40, seed=seed + args.first_seed)
            tid = server.ok("load_task", timeout=300, domain=FERRY_DOMAIN, problem=text)["task_id"]
            server.call("unreachable_actions", timeout=300, task_id=tid, budget=args.budget)
            server.call("optimal_next_action", timeout=300, task_id=tid, budget=args.budget)
            if (seed + 1) % 6 == 0:
                info = server.info()
                print(
                    f"after {seed + 1:>3} tasks: RSS {rss_mb(server.pid):6.0f} MB, peak {peak_rss_mb(server.pid):6.0f}"
                    f" MB; held {info['tasks_loaded']} tasks, {info['memory_bytes'] / 1e6:.1f} MB by the estimate",
                    flush=True,
                )


def table(args) -> None:
    text, _ = ferry(args.cars, args.locations)
    with tempfile.TemporaryDirectory() as tmp, StdioServer(Path(tmp)) as server:
        tid = server.ok("load_task", timeout=300, domain=FERRY_DOMAIN, problem=text)["task_id"]
        server.call("optimal_next_action", timeout=300, task_id=tid, budget=args.budget)  # the engines
        for _ in range(args.repeat):
            cpu, children, t0 = cpu_seconds(server.pid), planners_cpu(server.pid), time.perf_counter()
            result = server.call("optimal_next_action", timeout=600, task_id=tid, table=True, budget=args.budget)
            wall, spent = time.perf_counter() - t0, cpu_seconds(server.pid) - cpu
            rows = len((result.get("structuredContent") or {}).get("actions") or [])
            print(
                f"ferry({args.cars}, {args.locations}) optimal_next_action(table=true, budget={args.budget:g}): "
                f"{wall:.2f} s wall, {spent:.2f} s server CPU + {planners_cpu(server.pid) - children:.2f} s planners, "
                f"{rows} rows",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    q = sub.add_parser("quantifiers")
    q.add_argument("--objects", type=int, default=30)
    q.add_argument("--load-budget", type=float, default=10.0)
    q.add_argument("--max-memory", type=int, default=0)
    q.add_argument("--cap-mb", type=int, default=0)
    q.add_argument("--timeout", type=float, default=300.0)
    t = sub.add_parser("tasks")
    t.add_argument("--tasks", type=int, default=36)
    t.add_argument("--first-seed", type=int, default=0)
    t.add_argument("--max-memory", type=int, default=300_000_000)
    t.add_argument("--budget", type=float, default=1.0)
    b = sub.add_parser("table")
    b.add_argument("--cars", type=int, default=200)
    b.add_argument("--locations", type=int, default=80)
    b.add_argument("--budget", type=float, default=10.0)
    b.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    {"quantifiers": quantifiers, "tasks": tasks, "table": table}[args.what](args)


if __name__ == "__main__":
    main()
