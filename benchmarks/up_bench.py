"""acptools as a unified-planning engine, side by side with unified-planning's own engines.

    python benchmarks/up_bench.py [--suite small[,medium]] [--timeout 120] [--plan-timeout 20]

On every bundled example and the chosen sizes of benchmarks/suite/ (tasks unified-planning's
PDDLReader cannot read are skipped), each task read once by PDDLReader:
  validation   PlanValidator "sequential_plan_validator" vs "acptools" on one plan (acptools' witness);
               acptools' figure includes writing the Problem as PDDL (PDDLWriter) and loading it
  simulation   SequentialSimulator "sequential_simulator" vs "acptools": making the simulator, one
               `apply` (mean along the plan), `get_applicable_actions` (the first call, then the mean
               of later calls on states along the plan)
  planning     OneshotPlanner "acptools" (any plan; a proven shortest plan) vs "pyperplan"
Each task runs in its own process with a time limit; a phase that did not finish shows "-".
Ratios are unified-planning's (or pyperplan's) time over acptools', geometric means over the
tasks where both finished. The proof store is off (ACPTOOLS_CACHE=off).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SUITE = ROOT / "benchmarks" / "suite"


def tasks(sizes: list[str]) -> list[tuple[str, Path, Path]]:
    """(label, domain file, problem file): the bundled examples, then the suite's chosen sizes."""
    from acptools import examples

    out = [
        (f"example:{n}", examples.ROOT / n / "domain.pddl", examples.ROOT / n / "problem.pddl")
        for n in examples.names()
    ]
    for folder in sorted(p for p in SUITE.iterdir() if (p / "domain.pddl").is_file()):
        out += [
            (f"{folder.name}/{s}", folder / "domain.pddl", folder / f"{s}.pddl")
            for s in sizes
            if (folder / f"{s}.pddl").is_file()
        ]
    return out


# ---- one task, in a worker process: prints one JSON line per figure as soon as it is measured ----
def emit(**figure) -> None:
    print(json.dumps(figure), flush=True)


def timed(f):
    t = time.perf_counter()
    value = f()
    return value, time.perf_counter() - t


def worker(domain: str, problem_file: str, plan_timeout: float) -> None:
    from unified_planning import shortcuts as S
    from unified_planning.io import PDDLReader

    import acptools.up  # noqa: F401  registers the engine

    S.get_environment().credits_stream = None
    S.get_environment().error_used_name = False
    warm_up(S)
    problem, secs = timed(lambda: PDDLReader().parse_problem(domain, problem_file))
    emit(read=secs)
    _, secs = timed(lambda: acptools.load_task(problem))
    emit(load=secs)
    plan = planning(S, problem, plan_timeout)
    if plan is None:
        return
    validation(S, problem, plan)
    simulation(S, problem, plan)
    with S.OneshotPlanner(name="pyperplan") as planner:
        if planner.supports(problem.kind):
            result, secs = timed(lambda: planner.solve(problem))
            emit(pyperplan=secs, pyperplan_len=len(result.plan.actions) if result.plan else None)


def warm_up(S) -> None:
    """Run every engine once on a bundled example, so no figure pays for first-use imports."""
    from unified_planning.io import PDDLReader

    from acptools import examples

    problem = PDDLReader().parse_problem_string(*examples.texts("ferry"))
    for name in ("acptools", "sequential_plan_validator"):
        plan = S.OneshotPlanner(name="acptools").solve(problem).plan
        S.PlanValidator(name=name).validate(problem, plan)
    for name in ("acptools", "sequential_simulator"):
        sim = S.SequentialSimulator(problem, name=name)
        list(sim.get_applicable_actions(sim.get_initial_state()))


def planning(S, problem, plan_timeout: float):
    """acptools' witness plan and its proven shortest plan; returns the witness."""
    with S.OneshotPlanner(name="acptools", params={"optimal": False}) as planner:
        result, secs = timed(lambda: planner.solve(problem, timeout=plan_timeout))
    plan = result.plan
    emit(plan_any=secs, plan_any_len=len(plan.actions) if plan else None, plan_any_status=result.status.name)
    with S.OneshotPlanner(name="acptools") as planner:
        result, secs = timed(lambda: planner.solve(problem, timeout=plan_timeout))
    emit(plan_opt=secs, h_star=result.metrics.get("h_star"), plan_opt_status=result.status.name)
    return plan


def validation(S, problem, plan) -> None:
    verdicts = []
    for name, key in (("sequential_plan_validator", "val_up"), ("acptools", "val_acp")):
        with S.PlanValidator(name=name) as validator:
            result, secs = timed(lambda: validator.validate(problem, plan))
        verdicts.append(result.status.name)
        emit(**{key: secs})
    emit(val_agree=verdicts[0] == verdicts[1], val_status=verdicts[1])


def simulation(S, problem, plan, samples: int = 5) -> None:
    steps = plan.actions
    every = max(1, len(steps) // samples)
    for name, key in (("acptools", "acp"), ("sequential_simulator", "up")):
        sim, secs = timed(lambda: S.SequentialSimulator(problem, name=name))
        emit(**{f"sim_make_{key}": secs})
        state = sim.get_initial_state()
        _, secs = timed(lambda: list(sim.get_applicable_actions(state)))
        emit(**{f"app_first_{key}": secs})
        apply_time, app_times = 0.0, []
        for k, ai in enumerate(steps):
            state, secs = timed(lambda: sim.apply(state, ai))
            apply_time += secs
            if k % every == 0:
                _, secs = timed(lambda: list(sim.get_applicable_actions(state)))
                app_times.append(secs)
        emit(**{f"apply_{key}": apply_time / len(steps), f"app_{key}": sum(app_times) / len(app_times)})


# ---- the parent: runs the workers, prints the table and the ratios ---------------------------------
def run_task(domain: Path, problem: Path, timeout: float, plan_timeout: float) -> dict:
    cmd = [sys.executable, __file__, "--worker", str(domain), str(problem), "--plan-timeout", str(plan_timeout)]
    env = dict(os.environ, ACPTOOLS_CACHE="off")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        out, note = proc.stdout, "" if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["?"])[-1]
    except subprocess.TimeoutExpired as e:
        out, note = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), "timeout"
    figures = {}
    for line in out.splitlines():
        if line.startswith("{"):
            figures.update(json.loads(line))
    figures["note"] = note[:60]
    return figures


COLUMNS = [
    ("read", "UP read"),
    ("load", "acp load"),
    ("val_up", "val UP"),
    ("val_acp", "val acp"),
    ("sim_make_up", "sim UP"),
    ("sim_make_acp", "sim acp"),
    ("apply_up", "apply UP"),
    ("apply_acp", "apply acp"),
    ("app_first_up", "app1 UP"),
    ("app_first_acp", "app1 acp"),
    ("app_up", "app UP"),
    ("app_acp", "app acp"),
    ("pyperplan", "pyperplan"),
    ("plan_any", "acp any"),
    ("plan_opt", "acp opt"),
]
RATIOS = [
    ("validation", "val_up", "val_acp"),
    ("make a simulator", "sim_make_up", "sim_make_acp"),
    ("apply (successor)", "apply_up", "apply_acp"),
    ("applicable, first call", "app_first_up", "app_first_acp"),
    ("applicable, later calls", "app_up", "app_acp"),
    ("planning: pyperplan / acptools any plan", "pyperplan", "plan_any"),
]


def cell(value) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.2f}" if value < 1 else f"{value * 1000:.0f}"


def report(rows: list[tuple[str, dict]]) -> None:
    print("times in ms; app1 = first get_applicable_actions call; acp any / opt = any plan / proven shortest")
    print(f"{'task':28}" + "".join(f"{title:>10}" for _, title in COLUMNS) + "  plan len / h* / note")
    for label, f in rows:
        extra = f"{f.get('plan_any_len', '-')} / {f.get('h_star') or '-'} / {f.get('note') or ''}"
        if f.get("val_agree") is False:
            extra += " VERDICTS DIFFER"
        print(f"{label:28}" + "".join(f"{cell(f.get(key)):>10}" for key, _ in COLUMNS) + "  " + extra)
    print("\nratios (theirs / acptools; geometric mean over tasks where both finished):")
    for title, theirs, ours in RATIOS:
        pairs = [(f[theirs], f[ours]) for _, f in rows if f.get(theirs) and f.get(ours)]
        if pairs:
            gm = math.exp(sum(math.log(a / b) for a, b in pairs) / len(pairs))
            lo, hi = min(a / b for a, b in pairs), max(a / b for a, b in pairs)
            print(f"  {title:42} {gm:8.1f}x   (min {lo:.1f}x, max {hi:.1f}x, {len(pairs)} tasks)")
    differ = [label for label, f in rows if f.get("val_agree") is False]
    print(
        f"validators agree on {sum(1 for _, f in rows if f.get('val_agree'))} tasks, differ on {len(differ)} {differ}"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", default="small", help="comma-separated suite sizes (small, medium, large) or ''")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds per task (all phases)")
    ap.add_argument("--plan-timeout", type=float, default=20.0, help="seconds per acptools planner call")
    ap.add_argument("--only", default="", help="run only tasks whose label contains this")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(*args.worker, args.plan_timeout)
        return 0
    rows = []
    for label, domain, problem in tasks([s for s in args.suite.split(",") if s]):
        if args.only in label:
            rows.append((label, run_task(domain, problem, args.timeout, args.plan_timeout)))
            print(f"  done {label}: {rows[-1][1].get('note') or 'ok'}", file=sys.stderr, flush=True)
    report(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
