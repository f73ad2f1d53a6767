#!/usr/bin/env python3
"""Generation benchmark: records per second per task and form on the bundled domains, and for nexta
and land the generation time next to the time the core's own proofs take on the same states.

    python benchmarks/generate_bench.py                    # every form and task, n=10 per domain
    python benchmarks/generate_bench.py --n 20 --forms hard arb --domains ferry rover
    python benchmarks/generate_bench.py --household --n 3 --cpu-limit 120   # the alfred-size task
    ACPTOOLS_SRC=/path/to/other/checkout python benchmarks/generate_bench.py --household ...  # before/after

--household measures tests/pddl/household (2,283 atoms, 2,719 ground actions: alfred-size) instead of
the bundled domains. --cpu-limit S stops a (form, task) after S CPU seconds of this process and
reports it as over the limit. ACPTOOLS_SRC runs another checkout's acptools on the same tasks.

Each (domain, form, task) is generated alone with cold caches (acptools.truth.clear_caches), so proofs
are not shared between measurements. Drawing the states (random walks and optimal-plan prefixes, the
same for every task) is timed once per domain, cold, and reported apart: "questions" is the rest.
Times are wall seconds and CPU seconds (this process and the planner processes it waited for). For nexta and land the core's proof is timed again, cold, on the states of
the generated records (`optimal_next` without per-action values; `landmarks`): generation should
cost about that proof plus a small constant, since it asks the core nothing more per record (nexta
also lists the other applicable actions; land also needs a plan to rule out dead ends).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, os.environ.get("ACPTOOLS_SRC", str(ROOT)))
HOUSEHOLD = ROOT / "tests" / "pddl" / "household"

from acptools import examples, load_task  # noqa: E402
from acptools.budget import Budget  # noqa: E402
from acptools.dataset import task_of  # noqa: E402
from acptools.generate import TASKS, Options, generate  # noqa: E402
from acptools.generate.run import states_per_problem  # noqa: E402
from acptools.generate.states import Difficulty, sample_states  # noqa: E402
from acptools.truth import clear_caches  # noqa: E402


def cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn):
    clear_caches()
    w0, c0 = time.perf_counter(), cpu()
    out = fn()
    return out, time.perf_counter() - w0, cpu() - c0


def core_proofs(records: list[dict], budget: float) -> tuple[float, float]:
    """Wall and CPU seconds of the core's nexta / land proofs on the records' states, cold."""
    wall = cpus = 0.0
    for r in records:
        task = load_task(r["PDDL_domain"], r["PDDL_problem"])
        kind = task_of(r)
        ask = (
            (lambda: task.questions.optimal_next(None, Budget(None, cpu=budget)))
            if kind == "nexta"
            else (lambda: task.questions.landmarks(None, Budget(None, cpu=budget)))
        )
        _, w, c = timed(ask)
        wall, cpus = wall + w, cpus + c
    return wall, cpus


def states_seconds(d: str, p: str, n: int, seed: int, budget: float) -> tuple[float, float]:
    """Wall and CPU seconds of drawing the states generate() draws for one problem, cold."""
    task = load_task(d, p)
    _, w, c = timed(
        lambda: sample_states(task, states_per_problem(n, 1), random.Random(f"{seed}/states/0"), Difficulty(), budget)
    )
    return w, c


class OverLimit(BaseException):
    """A (form, task) ran past --cpu-limit (not an Exception: no handler of the library may swallow it)."""


def _over(*_):
    raise OverLimit()


def texts(name: str) -> tuple[str, str]:
    if name == "household":
        return (HOUSEHOLD / "domain.pddl").read_text(), (HOUSEHOLD / "problem.pddl").read_text()
    return examples.texts(name)


def limited(fn, limit: float | None):
    """fn() with at most `limit` CPU seconds of this process (None when it ran past them)."""
    if not limit:
        return fn()
    signal.signal(signal.SIGPROF, _over)
    signal.setitimer(signal.ITIMER_PROF, limit)
    try:
        return fn()
    except OverLimit:
        return None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


def bench(domains, forms, n: int, seed: int, budget: float, tasks=None, limit: float | None = None) -> list[dict]:
    rows = []
    for name in domains:
        d, p = texts(name)
        sw, sc = states_seconds(d, p, n, seed, budget)
        print(f"  {name:18s} states: {sw:.2f} s wall {sc:.2f} s cpu (drawn once per problem, for every task)")
        for form in forms:
            for task in [t for t in TASKS[form] if not tasks or t in tasks]:
                out, wall, cpus = timed(
                    lambda: limited(
                        lambda: generate(d, [p], Options(form=form, tasks=(task,), n=n, seed=seed, budget=budget)),
                        limit,
                    )
                )
                if out is None:
                    print(
                        f"  {name:18s} {form:5s} {task:22s} over the limit: {cpus:.1f} s cpu, {wall:.1f} s wall, "
                        "unfinished",
                        flush=True,
                    )
                    rows.append(
                        {
                            "domain": name,
                            "form": form,
                            "task": task,
                            "records": 0,
                            "wall": wall,
                            "cpu": cpus,
                            "total_wall": wall,
                            "total_cpu": cpus,
                            "dropped": 0,
                            "over": True,
                        }
                    )
                    continue
                row = {
                    "domain": name,
                    "form": form,
                    "task": task,
                    "records": len(out.records),
                    "wall": max(0.0, wall - sw),
                    "cpu": max(0.0, cpus - sc),
                    "total_wall": wall,
                    "total_cpu": cpus,
                    "dropped": sum(out.dropped[task].values()),
                }
                if form == "hard" and task in ("nexta", "land") and not limit:
                    row["core_wall"], row["core_cpu"] = core_proofs(out.records, budget)
                rows.append(row)
                print(
                    f"  {name:18s} {form:5s} {task:22s} {len(out.records):3d} rec  questions {row['wall']:7.2f} s "
                    f"wall {row['cpu']:7.2f} s cpu"
                    + (
                        f"   core proofs {row['core_wall']:.2f} s wall {row['core_cpu']:.2f} s cpu"
                        if "core_wall" in row
                        else ""
                    ),
                    flush=True,
                )
    return rows


def summary(rows: list[dict]) -> str:
    by = defaultdict(lambda: [0, 0.0, 0.0, 0, 0.0, 0.0, ""])
    for r in rows:
        s = by[(r["form"], r["task"])]
        s[0] += r["records"]
        s[1] += r["wall"]
        s[2] += r["cpu"]
        s[3] += r["dropped"]
        s[4] += r["total_wall"]
        s[5] += r["total_cpu"]
        s[6] = " over the CPU limit" if r.get("over") else s[6]
    lines = [
        "records per second of question building (states apart; 'with states': all of generate), summed over "
        "the domains:",
        f"{'form':5s} {'task':22s} {'records':>7s} {'rec/s wall':>10s} {'rec/s cpu':>9s} {'dropped':>7s} "
        f"{'with states: rec/s wall':>23s} {'rec/s cpu':>9s}",
    ]
    for (form, task), (k, w, c, dr, tw, tc, over) in by.items():
        lines.append(
            f"{form:5s} {task:22s} {k:7d} {k / w if w else 0:10.2f} {k / c if c else 0:9.2f} {dr:7d} "
            f"{k / tw if tw else 0:23.2f} {k / tc if tc else 0:9.2f}{over}"
        )
    for task in ("nexta", "land"):
        sel = [r for r in rows if r["form"] == "hard" and r["task"] == task and "core_wall" in r]
        if sel:
            gw, gc = sum(r["wall"] for r in sel), sum(r["cpu"] for r in sel)
            cw, cc = sum(r["core_wall"] for r in sel), sum(r["core_cpu"] for r in sel)
            lines.append(
                f"{task}: generation {gw:.2f} s wall / {gc:.2f} s cpu; the core's proofs on the same states "
                f"{cw:.2f} s wall / {cc:.2f} s cpu (ratio {gw / cw if cw else float('nan'):.2f} wall, "
                f"{gc / cc if cc else float('nan'):.2f} cpu)"
            )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--domains", nargs="+", default=examples.names())
    ap.add_argument("--forms", nargs="+", default=list(TASKS), choices=list(TASKS))
    ap.add_argument("--n", type=int, default=10, help="records per task and domain (default 10)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=float, default=10.0, help="CPU seconds per proof (default 10)")
    ap.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    ap.add_argument("--household", action="store_true", help="the alfred-size tests/pddl/household task only")
    ap.add_argument("--tasks", nargs="+", help="only these tasks of each form")
    ap.add_argument("--cpu-limit", type=float, help="stop a (form, task) after this many CPU seconds")
    args = ap.parse_args()
    if args.household:
        args.domains = ["household"]
    print(
        f"generate_bench: n={args.n} per task and domain, seed {args.seed}, budget {args.budget} CPU s, "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}"
    )
    rows = bench(args.domains, args.forms, args.n, args.seed, args.budget, args.tasks, args.cpu_limit)
    print()
    print(summary(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
