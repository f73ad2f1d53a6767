"""acptools side by side with unified-planning and ENHSP on the numeric corpus (tests/pddl/numeric).

    python benchmarks/numeric_vs_enhsp.py [--families zenotravel,depots] [--plan-timeout 20]

Per problem: load (acptools `load_task` vs UP's `PDDLReader` parse), per-call latency of app / prog /
val (acptools' `applicable`, `apply_op`, plan replay vs UP's SequentialSimulator
`get_applicable_actions`, `apply`, and PlanValidator) on the same states and plan, and satisficing plan
time (ENHSP through acptools' `enhsp_plan`, replay included, vs ENHSP through UP's OneshotPlanner).
The proof store is off (ACPTOOLS_CACHE=off), so every load is a real parse and ground.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

os.environ["ACPTOOLS_CACHE"] = "off"
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from unified_planning.environment import get_environment  # noqa: E402
from unified_planning.io import PDDLReader  # noqa: E402
from unified_planning.shortcuts import OneshotPlanner, PlanValidator, SequentialSimulator  # noqa: E402

from acptools import load_task  # noqa: E402
from acptools.budget import Budget  # noqa: E402
from acptools.planners.enhsp import enhsp_plan  # noqa: E402

CORPUS = ROOT / "tests" / "pddl" / "numeric"


def timed(fn, repeat: int = 1) -> tuple[float, object]:
    """(median seconds of `repeat` calls, the last result)."""
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def bench_problem(domain: Path, problem: Path, plan_timeout: float) -> dict | None:
    d, p = domain.read_text(), problem.read_text()
    # one load each: a second load_task of the same text may be served from memory
    ours_load, task = timed(lambda: load_task(d, p))
    up_load, up_problem = timed(lambda: PDDLReader().parse_problem(str(domain), str(problem)))
    g = task.grounded
    ours_plan, plan = timed(lambda: enhsp_plan(task, g.init, Budget(plan_timeout)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with OneshotPlanner(name="enhsp") as planner:
            up_plan, result = timed(lambda: planner.solve(up_problem, timeout=plan_timeout))
    row = {"load": (ours_load, up_load), "plan": (ours_plan, up_plan), "solved": plan is not None}
    if plan is None or result.plan is None:
        return row
    row.update(_calls(g, plan, up_problem, result.plan))
    return row


def _calls(g, plan: list[int], up_problem, up_plan) -> dict:
    """Per-call seconds of app / prog along the plan and of val on the whole plan, both sides."""
    states, s = [g.init], g.init
    for a in plan:
        s = g.apply_op(g.op_for(a, s), s)
        states.append(s)
    n = len(plan)
    app, _ = timed(lambda: [g.applicable(x) for x in states[:-1]], 5)
    prog, _ = timed(lambda: [g.apply_op(g.op_for(a, x), x) for a, x in zip(plan, states, strict=False)], 5)
    val, _ = timed(lambda: g.is_plan(plan, g.init), 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = SequentialSimulator(up_problem, name="sequential_simulator")
        up_states, u = [sim.get_initial_state()], sim.get_initial_state()
        for ai in up_plan.actions:
            u = sim.apply(u, ai)
            up_states.append(u)
        m = len(up_plan.actions)
        up_app, _ = timed(lambda: [list(sim.get_applicable_actions(x)) for x in up_states[:-1]], 5)
        up_prog, _ = timed(lambda: [sim.apply(x, ai) for ai, x in zip(up_plan.actions, up_states, strict=False)], 5)
        with PlanValidator(name="sequential_plan_validator") as validator:
            up_val, _ = timed(lambda: validator.validate(up_problem, up_plan), 5)
    return {"app": (app / n, up_app / m), "prog": (prog / n, up_prog / m), "val": (val, up_val)}


def fmt(pair: tuple[float, float]) -> str:
    ours, theirs = pair
    ratio = theirs / ours if ours > 0 else float("inf")
    return f"{ours * 1e3:9.3f} {theirs * 1e3:9.3f} {ratio:7.1f}x"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default="", help="comma-separated families (default: all)")
    ap.add_argument("--problems", type=int, default=2, help="problems per family (default 2)")
    ap.add_argument("--plan-timeout", type=float, default=20.0)
    args = ap.parse_args()
    get_environment().credits_stream = None  # UP prints each engine's credits otherwise
    families = [f for f in args.families.split(",") if f] or sorted(
        x.name for x in CORPUS.iterdir() if (x / "domain.pddl").is_file()
    )
    print("milliseconds: acptools, unified-planning/ENHSP, ratio (how many times faster acptools is)")
    print(f"{'problem':28} {'what':5} {'acptools':>9} {'UP':>9} {'ratio':>8}")
    totals: dict[str, list[tuple[float, float]]] = {}
    for family in families:
        for problem in sorted((CORPUS / family).glob("p*.pddl"))[: args.problems]:
            try:
                row = bench_problem(CORPUS / family / "domain.pddl", problem, args.plan_timeout)
            except Exception as e:  # one side refuses the problem: say so, go on
                print(f"{family + '/' + problem.stem:28} skipped: {type(e).__name__}: {str(e)[:80]}")
                continue
            for what in ("load", "app", "prog", "val", "plan"):
                if what in row:
                    totals.setdefault(what, []).append(row[what])
                    print(f"{family + '/' + problem.stem:28} {what:5} {fmt(row[what])}")
    print("\nmedian over problems")
    for what, pairs in totals.items():
        med = (statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs))
        print(f"{what:5} {fmt(med)}  ({len(pairs)} problems)")


if __name__ == "__main__":
    main()
