"""Speed of acptools on a broad public IPC suite, side by side with Fast Downward, in one run.

    PYTHONPATH=. python benchmarks/suite_bench.py [--quick] [--domains a,b] [--sizes small,medium,large]
        [--states N] [--budget SECONDS] [--seed N] [--json out.json] [--skip-questions] [--fd-own]
        [--ground-only] [--kinds landmarks,unreachable_actions] [--library PATH]

The suite is benchmarks/suite/<domain>/{domain,small,medium,large}.pddl (see suite/README.md).
For every task:
  * parse + ground: `acptools.load_task` against Fast Downward's Python translator on the same
    files (a subprocess; its wall time and its own phase times: parse+normalize+instantiate, and
    the whole translation), with operator counts ours vs theirs;
  * states: seeded random walks from the initial state and prefixes of a plan (the plan is Fast
    Downward's greedy plan on our grounded task), deterministic for a --seed;
  * per state: `optimal_set` (`optimal_next()`: h*, every optimal next action, a plan) and
    `optimal_next` (`optimal_next(table=True)`: also the h* after every applicable action) against Fast
    Downward A* computing h*(s) alone on our grounded task (`acptools.planners.fd.solve`), ratio ours/FD;
    with --fd-own also FD's full pipeline (translate + A*/LM-cut) on the PDDL of that state;
  * every question kind under the given budget: time and `unknown` verdicts (answer None, an
    ItemList with complete False, a report with known False).

Each task runs in a child process that reports one JSON line per measured call. A call that takes
longer than budget + 10 s is counted as over budget; one that runs past a hard cap (3 x budget + 30 s,
6 x for optimal_next, which may use its budget once per successor) is recorded as hung and the
child is killed (that task's remaining states are skipped), so no call can stop the run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SUITE = HERE / "suite"
SIZES = ("small", "medium", "large")
KINDS = (
    "applicable",
    "progress",
    "validate",
    "simplify",
    "is_reachable",
    "unreachable_atoms",
    "is_action_reachable",
    "unreachable_actions",
    "is_landmark",
    "landmarks",
    "optimal_set",
    "optimal_next",
)
OPTIMAL = ("optimal_set", "optimal_next")  # h* + every optimal action (the default), and the whole table
HANG_SLACK = 10.0  # a call running past budget + this is recorded as over budget
LOAD_SECONDS = 400.0  # parse + ground + the initial greedy plan of the largest task
HEAVY = {"folding", "slitherlink"}  # grounding alone takes minutes: left out of --quick unless named


def cap_of(start: dict | None, budget: float) -> float:
    """Hard cap of a call before the task is abandoned: optimal_next may legitimately use its budget
    several times over (one h* per successor), every other call about once."""
    what = (start or {}).get("what")
    return (6 if what in OPTIMAL else 3) * budget + 30.0


ADL = {
    "assembly",
    "briefcaseworld",
    "miconic-fulladl",
    "schedule",
    "trucks",
    "openstacks",
    "pathways",
    "airport-adl",
    "miconic-simpleadl",
    "maintenance",
    "caldera",
    "cavediving",
    "ged",
    "tidybot",
    "folding",
    "labyrinth",
    "ricochet-robots",
    "rubiks-cube",
    "slitherlink",
    "optical-telegraphs",
    "psr-small",
    "nurikabe",
    "settlers",
}


# ---------------------------------------------------------------------------------------------
# the child: one task, one JSON line per measurement
# ---------------------------------------------------------------------------------------------


def emit(**rec) -> None:
    sys.stdout.write(json.dumps(rec) + "\n")
    sys.stdout.flush()


def classify_unknown(res) -> bool:
    if res is None:
        return False
    if hasattr(res, "answer") and hasattr(res, "how"):  # Verdict
        return res.answer is None
    if hasattr(res, "complete"):  # ItemList
        return res.complete is False
    if hasattr(res, "known"):  # NextActionReport
        return res.known is False or any(not v.known for v in getattr(res, "actions", []))
    return False


def list_counts(res) -> dict:
    """Undecided / proven-member / proven-non-member counts of a list answer (an ItemList)."""
    if res is None or not hasattr(res, "complete"):
        return {}
    refuted = getattr(res, "refuted", None)
    return {
        "undecided": len(res.unknown),
        "members": res.total,
        "non_members": None if refuted is None else len(refuted),
    }


def sample_states(
    task, rng: random.Random, n: int, plan: list[int] | None, near_goal: int | None = None
) -> list[tuple[str, int]]:
    """Half random walks from init (lengths 1..2*len(plan) or 1..30), half plan prefixes. With
    `near_goal` K: only states on the plan with 1..K of its steps left (h* <= K, the ACPBench kind)."""
    out: list[tuple[str, int]] = []
    seen = set()
    if near_goal:
        if not plan:
            return out
        lefts = sorted({max(1, min(len(plan), round(1 + (near_goal - 1) * (k + 1) / n))) for k in range(n)})
        for left in lefts:
            cut = len(plan) - left
            s = task.init
            for a in plan[:cut]:
                s = task.apply_op(task.op_for(a, s), s)
            if s not in seen:
                seen.add(s)
                out.append((f"plan[:{cut}]", s))
        return out
    n_plan = n // 2 if plan else 0
    if plan:
        for k in range(n_plan):
            cut = round((k + 1) * len(plan) / (n_plan + 1))
            s = task.init
            for a in plan[:cut]:
                s = task.apply_op(task.op_for(a, s), s)
            if s not in seen:
                seen.add(s)
                out.append((f"plan[:{cut}]", s))
    horizon = max(4, 2 * len(plan)) if plan else 30
    tries = 0
    while len(out) < n and tries < 20 * n:
        tries += 1
        length = rng.randint(1, horizon)
        s = task.init
        for _ in range(length):
            ops = task.applicable_ops(s)
            if not ops:
                break
            s = task.apply_op(rng.choice(ops), s)
        if s not in seen:
            seen.add(s)
            out.append((f"walk{length}", s))
    return out


def fd_own(task, state: int, seconds: float) -> tuple[float, str]:
    """Fast Downward's whole pipeline (translate + A*/LM-cut) on the PDDL of `state`."""
    from acptools.planners.fd import package_dir

    driver = package_dir("up_fast_downward") / "downward" / "fast-downward.py"
    with tempfile.TemporaryDirectory() as d:
        dom, prob = Path(d, "d.pddl"), Path(d, "p.pddl")
        dom.write_text(task.written_domain_text)
        prob.write_text(task.problem_for(state))
        t0 = time.perf_counter()
        try:
            # its translator keeps conditional effects, which its LM-cut rejects
            heuristic = "hmax" if any(op.conds for op in task.operators) else "lmcut"
            p = subprocess.run(
                [
                    sys.executable,
                    str(driver),
                    "--overall-time-limit",
                    str(int(seconds) + 1),
                    str(dom),
                    str(prob),
                    "--search",
                    f"astar({heuristic}())",
                ],
                cwd=d,
                capture_output=True,
                text=True,
                timeout=seconds + 10,
            )
            out = p.stdout
        except subprocess.TimeoutExpired:
            return time.perf_counter() - t0, "timeout"
        dt = time.perf_counter() - t0
    m = re.search(r"Plan length: (\d+)", out)
    return dt, (m.group(1) if m else ("unsolvable" if "unsolvable" in out.lower() else "none"))


def worker(args) -> None:
    sys.path.insert(0, args.library or str(ROOT))
    from acptools import load_task
    from acptools.planners import fd
    from acptools.questions import DEFAULT_SECONDS

    budget = args.budget if args.budget is not None else DEFAULT_SECONDS
    d = SUITE / args.domain
    dom, prob = d / "domain.pddl", d / f"{args.size}.pddl"
    t0 = time.perf_counter()
    task = load_task(dom, prob)
    t_load = time.perf_counter() - t0
    # the actions static facts allow are listed on demand (areach needs them, loading does not)
    t0 = time.perf_counter()
    actions = task.num_possible_actions
    emit(
        kind="load",
        seconds=t_load,
        operators=len(task.operators),
        actions=actions,
        possible_seconds=time.perf_counter() - t0,
        atoms=len(task.atoms),
        objects=len(task.types.objects),
        conds=sum(1 for o in task.operators if o.conds),
    )
    if args.ground_only:
        emit(kind="done")
        return
    rng = random.Random(f"{args.seed}:{args.domain}:{args.size}")
    if args.states_file:  # the states another run sampled (a baseline library measured on them)
        states = [(x["origin"], task.parse_state(x["atoms"])) for x in json.loads(Path(args.states_file).read_text())]
        baseline_optimal_next(task, states, budget)
        return
    t0 = time.perf_counter()
    res = fd.solve(len(task.atoms), task.operators, task.init, task.goal, 30.0, optimal=False)
    plan, source = None, "fd"
    if res.plan is not None:
        plan = [task.operators[i].action for i in res.plan]
    else:  # e.g. a task our SAS+ encoding refuses: the library's own greedy search
        v = task.questions.plan(optimal=False, budget=30.0)
        if v.answer:
            plan, source = [task.parse_action(a) for a in v.witness], "acptools-greedy"
    emit(kind="init_plan", seconds=time.perf_counter() - t0, length=None if plan is None else len(plan), source=source)
    states = sample_states(task, rng, args.states, plan, getattr(args, "near_goal", None))
    q = task.questions
    for si, (origin, s) in enumerate(states):
        tag = dict(state=si, origin=origin)
        emit(kind="state", atoms=task.names(s), **tag)
        kinds = list(OPTIMAL) if args.skip_questions else [k for k in KINDS]
        if args.kinds:
            kinds = [k for k in kinds if k in args.kinds.split(",")]
        if set(OPTIMAL) & set(kinds):
            fd_hstar(task, s, budget, tag)

        t0 = time.perf_counter()
        if args.fd_own and si == 0:
            emit(kind="start", what="fd_own", **tag)
            dt, hh = fd_own(task, s, budget)
            emit(kind="fd_own", seconds=dt, h=hh, **tag)
        # a plan from the state, for validate / simplify (the FD plan's suffix when on it)
        app = q.applicable(s)
        rest = None
        if plan is not None and origin.startswith("plan[:"):
            rest = [task.action_names[a] for a in plan[int(origin[6:-1]) :]]
        calls = {
            "applicable": lambda: q.applicable(s),
            "progress": lambda: q.progress(app[rng.randrange(len(app))], s) if app else None,
            "validate": lambda: q.validate(rest if rest else app[:1], s),
            "simplify": lambda: q.simplify(rest if rest else app[:1], s),
            "is_reachable": lambda: q.is_reachable(rng.randrange(len(task.atoms)), s, budget=budget),
            "unreachable_atoms": lambda: q.unreachable_atoms(s, budget=budget),
            "is_action_reachable": lambda: q.is_action_reachable(
                rng.randrange(task.num_possible_actions), s, budget=budget
            ),
            "unreachable_actions": lambda: q.unreachable_actions(s, budget=budget),
            "is_landmark": lambda: q.is_landmark(rng.randrange(len(task.atoms)), s, budget=budget),
            "landmarks": lambda: q.landmarks(s, budget=budget),
            "optimal_set": lambda: q.optimal_next(s, budget=budget),
            "optimal_next": lambda: q.optimal_next(s, budget=budget, table=True),
        }
        for kind in kinds:
            emit(kind="start", what=kind, **tag)
            t0 = time.perf_counter()
            try:
                out = calls[kind]()
                err = None
            except Exception as e:  # a crash is a finding too
                out, err = None, f"{type(e).__name__}: {e}"[:300]
            dt = time.perf_counter() - t0
            rec = dict(kind=kind, seconds=dt, unknown=classify_unknown(out), error=err, **tag, **list_counts(out))
            if kind in OPTIMAL and out is not None:
                rec.update(
                    h=out.h_star,
                    n_applicable=len(out.actions),
                    how=out.how,
                    h_lower=out.h_star_lower,
                    h_upper=out.h_star_upper,
                    unknown_values=sum(not v.known for v in out.actions),
                    bounded_values=sum(not v.known and v.regret_lower is not None for v in out.actions),
                )
            emit(**rec)
    emit(kind="done")


def bounds_report(results: list[dict]) -> str:
    """optimal_next calls that ran out of budget: does each unknown h* carry a proven interval, and
    does it hold Fast Downward's h* of the state where that is known?"""
    lines = [
        "## optimal_next out of budget: proven intervals",
        "",
        "| calls | h* unknown | with a lower bound > 0 | with an upper bound | holding FD's h* (of those FD solved) | "
        "action values unknown | of those with a proven regret interval |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    xs = [(r, x) for r in results for x in r["records"] if x["kind"] == "optimal_next" and "h_lower" in x]
    if not xs:
        return ""
    fd = {
        (r["domain"], r["size"], x["state"]): x.get("h")
        for r in results
        for x in r["records"]
        if x["kind"] == "fd_hstar" and isinstance(x.get("h"), int)
    }
    unknown = [(r, x) for r, x in xs if x.get("h") is None and x["unknown"]]
    checked = [
        (fd[(r["domain"], r["size"], x["state"])], x) for r, x in unknown if (r["domain"], r["size"], x["state"]) in fd
    ]
    holds = sum((x["h_lower"] or 0) <= h <= (x["h_upper"] if x["h_upper"] is not None else h) for h, x in checked)
    lines.append(
        f"| {len(xs)} | {len(unknown)} | {sum((x['h_lower'] or 0) > 0 for _, x in unknown)} | "
        f"{sum(x['h_upper'] is not None for _, x in unknown)} | {holds} of {len(checked)} | "
        f"{sum(x['unknown_values'] for _, x in xs)} | {sum(x['bounded_values'] for _, x in xs)} |"
    )
    return "\n".join(lines)


def fd_hstar(task, s: int, budget: float, tag: dict) -> None:
    """Fast Downward alone: h*(s) on our grounded task (every operator, as the issue's baseline)."""
    from acptools.planners import fd

    emit(kind="start", what="fd_hstar", **tag)
    t0 = time.perf_counter()
    r = fd.solve(len(task.atoms), task.operators, s, task.goal, budget)
    fd_t = time.perf_counter() - t0
    h = len(r.plan) if r.plan is not None else ("unsolvable" if r.proven_none else None)
    via = "sas"
    if r.plan is None and not r.proven_none and not r.timed_out:
        # our SAS+ encoding cannot express this task (e.g. one atom in two conditional
        # effects): Fast Downward's own pipeline on the state's PDDL is the baseline instead
        fd_t, h = fd_own(task, s, budget)
        via = "own:" + r.detail[:80]
    emit(kind="fd_hstar", seconds=fd_t, h=h, timed_out=r.timed_out, via=via, **tag)


def baseline_optimal_next(task, states, budget: float) -> None:
    """optimal_next of a baseline library on given states (the same measurement as `worker`'s)."""
    for si, (origin, s) in enumerate(states):
        tag = dict(state=si, origin=origin)
        emit(kind="start", what="optimal_next", **tag)
        t0 = time.perf_counter()
        try:
            out, err = task.questions.optimal_next(s, budget=budget, table=True), None
        except Exception as e:
            out, err = None, f"{type(e).__name__}: {e}"[:300]
        rec = dict(
            kind="optimal_next", seconds=time.perf_counter() - t0, unknown=classify_unknown(out), error=err, **tag
        )
        if out is not None:
            rec.update(h=out.h_star, n_applicable=len(out.actions), how=out.how)
        emit(**rec)
    emit(kind="done")


# ---------------------------------------------------------------------------------------------
# the parent
# ---------------------------------------------------------------------------------------------


def fd_translate(dom: Path, prob: Path, timeout: float = 600.0) -> dict:
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        try:
            p = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "fast_downward.translate",
                    str(dom),
                    str(prob),
                    "--sas-file",
                    os.path.join(d, "out.sas"),
                ],
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=d,
            )
        except subprocess.TimeoutExpired:
            return {"wall": timeout, "error": "timeout"}
        wall = time.perf_counter() - t0
        # FD splits a ground action into several SAS+ operators when a negative precondition is on
        # a multi-valued variable (one per other value): count distinct ground actions as well
        try:
            lines = Path(d, "out.sas").read_text().splitlines()
            actions = len({lines[i + 1] for i, x in enumerate(lines) if x == "begin_operator"})
        except OSError:
            actions = None
    out = p.stdout + p.stderr

    def phase(name):
        m = re.search(re.escape(name) + r".*?\[([\d.]+)s CPU, ([\d.]+)s wall-clock\]", out)
        return float(m.group(2)) if m else None

    ops = re.search(r"Translator operators: (\d+)", out)
    ground = sum(x or 0 for x in (phase("Parsing:"), phase("Normalizing task..."), phase("Instantiating:")))
    return {
        "wall": wall,
        "ground": ground,
        "done": phase("Done!"),
        "instantiate": phase("Instantiating:"),
        "operators": int(ops.group(1)) if ops else None,
        "actions": actions,
        "rc": p.returncode,
        "error": None if p.returncode == 0 else out[-300:],
    }


def run_task(args, domain: str, size: str, library: str | None = None, states_file: str | None = None) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--worker",
        "--domain",
        domain,
        "--size",
        size,
        "--states",
        str(args.states),
        "--seed",
        str(args.seed),
    ]
    library = library or args.library
    if library:
        cmd += ["--library", library]
    if states_file:
        cmd += ["--states-file", states_file]
    if args.kinds:
        cmd += ["--kinds", args.kinds]
    if args.budget is not None:
        cmd += ["--budget", str(args.budget)]
    if args.skip_questions:
        cmd.append("--skip-questions")
    if args.fd_own:
        cmd.append("--fd-own")
    if args.near_goal:
        cmd += ["--near-goal", str(args.near_goal)]
    if args.ground_only:
        cmd.append("--ground-only")
    budget = args.budget if args.budget is not None else 60.0
    env = dict(os.environ, PYTHONPATH=(library or str(ROOT)) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    recs: list[dict] = []
    current = None
    pending = b""
    fd_out = proc.stdout.fileno()
    deadline = time.monotonic() + LOAD_SECONDS  # loading + the initial greedy plan
    done = False
    while not done:
        left = deadline - time.monotonic()
        if left <= 0:
            # a call ran past its hard cap: record it and stop this task (its later states are lost)
            recs.append(
                {
                    "kind": "hung",
                    "what": (current or {}).get("what", "load/plan"),
                    "state": (current or {}).get("state"),
                    "seconds": cap_of(current, budget),
                }
            )
            os.killpg(proc.pid, 9)
            break
        ready, _, _ = select.select([fd_out], [], [], min(left, 1.0))
        if not ready:
            if proc.poll() is not None:
                break
            continue
        chunk = os.read(fd_out, 1 << 16)  # raw reads: no line stays hidden in a Python buffer
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            rec = json.loads(line)
            if rec["kind"] == "start":
                current = rec
                deadline = time.monotonic() + cap_of(rec, budget)
                continue
            recs.append(rec)
            if rec["kind"] == "done":
                done = True
            deadline = time.monotonic() + LOAD_SECONDS
    proc.wait()
    if proc.returncode not in (0, -9) and not any(r["kind"] == "done" for r in recs):
        recs.append({"kind": "crash", "error": f"worker exit code {proc.returncode}"})
    return {"domain": domain, "size": size, "records": recs}


def run_baseline(args, domain: str, size: str, records: list[dict]) -> list[dict]:
    """optimal_next of the library at --baseline on the states this run sampled for the task."""
    states = [{"origin": x["origin"], "atoms": x["atoms"]} for x in records if x["kind"] == "state"]
    if not states:
        return []
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(states, f)
    try:
        return run_task(args, domain, size, library=str(Path(args.baseline).resolve()), states_file=f.name)["records"]
    finally:
        os.unlink(f.name)


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def fmt(x, unit=""):
    if x is None or (isinstance(x, float) and x != x):
        return "-"
    if isinstance(x, float):
        return f"{x:.3f}{unit}" if x < 10 else f"{x:.1f}{unit}"
    return str(x)


def list_report(results: list[dict]) -> str:
    """The list questions: how many calls ended incomplete, how many of those with nothing proven
    (a bare unknown), and how many candidates were left undecided, in all."""
    lines = [
        "## list questions: what a call that ran out of budget still proves",
        "",
        "| kind | calls | incomplete | nothing proven | undecided candidates | proven members | proven non-members |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for kind in ("unreachable_atoms", "unreachable_actions", "landmarks"):
        xs = [x for r in results for x in r["records"] if x["kind"] == kind and "undecided" in x]
        if not xs:
            continue
        non = [x["non_members"] for x in xs if x.get("non_members") is not None]
        lines.append(
            f"| {kind} | {len(xs)} | {sum(x['unknown'] for x in xs)} | "
            f"{sum(x['unknown'] and not x['members'] and not x.get('non_members') for x in xs)} | "
            f"{sum(x['undecided'] for x in xs)} | {sum(x['members'] for x in xs)} | "
            f"{sum(non) if non else '-'} |"
        )
    return "\n".join(lines)


def ratio_table(results: list[dict], kind: str, label: str, target: str) -> list[str]:
    """`kind`'s seconds per state against Fast Downward's h*(s) alone, per domain and overall."""
    lines: list[str] = []
    add = lines.append
    add("")
    add(f"## {kind} ({label}) vs Fast Downward A* h*(s) alone on our grounded task")
    add("")
    add("Ratios are over the states where Fast Downward settled h*(s) within the budget (a state both time")
    add("out on says nothing about speed); `FD timeout` counts the others, `ours known` how many of those")
    add("acptools still answered.")
    add("")
    add(
        "| domain | states | FD solved | ours p50 | ours p95 | FD p50 | FD p95 | ratio p50 | ratio p95 | ratio max | "
        "h* range | ours unknown (FD solved) | FD timeout (ours known) |"
    )
    add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|")
    all_ratios = []
    by_dom: dict[str, list] = {}
    for r in results:
        fdt = {x["state"]: x for x in r["records"] if x["kind"] == "fd_hstar"}
        for x in r["records"]:
            if x["kind"] == kind and x["state"] in fdt:
                by_dom.setdefault(r["domain"], []).append((x, fdt[x["state"]]))
    for dom, pairs in sorted(by_dom.items()):
        solved = [(x, f) for x, f in pairs if f.get("h") is not None and str(f.get("h")) not in ("none", "timeout")]
        rest = [(x, f) for x, f in pairs if (x, f) not in solved]
        ours = [x["seconds"] for x, _ in solved]
        fds = [f["seconds"] for _, f in solved]
        rat = [x["seconds"] / max(f["seconds"], 1e-3) for x, f in solved]
        all_ratios += rat
        hs = [x.get("h") for x, _ in solved if isinstance(x.get("h"), int)]
        add(
            f"| {dom} | {len(pairs)} | {len(solved)} | {fmt(pct(ours, 0.5))} | {fmt(pct(ours, 0.95))} | "
            f"{fmt(pct(fds, 0.5))} | {fmt(pct(fds, 0.95))} | {fmt(pct(rat, 0.5))} | {fmt(pct(rat, 0.95))} | "
            f"{fmt(max(rat)) if rat else '-'} | {(str(min(hs)) + '-' + str(max(hs))) if hs else '-'} | "
            f"{sum(x['unknown'] for x, _ in solved)} | {len(rest)} ({sum(not x['unknown'] for x, _ in rest)}) |"
        )
    if all_ratios:
        add("")
        add(
            f"overall ours/FD per state (FD solved): median {statistics.median(all_ratios):.2f}, "
            f"p95 {pct(all_ratios, 0.95):.2f}, max {max(all_ratios):.1f} over {len(all_ratios)} states "
            f"(targets: {target})"
        )
    return lines if by_dom else []


def report(results: list[dict], budget: float, ground_only: bool = False) -> str:
    lines = []
    add = lines.append
    # ---- grounding
    add("## parse + ground: acptools.load_task vs Fast Downward's translator (seconds)")
    add("")
    add(
        "| task | objects | atoms | ours ops (actions) | FD ops (actions) | ours | ours: listing the actions (areach) | FD parse+norm+inst | FD translate (Done!) | FD wall | ours/FD ground |"
    )
    add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    ratios = []
    for r in results:
        ld = next((x for x in r["records"] if x["kind"] == "load"), None)
        t = r.get("fd_translate", {})
        if ld is None:
            add(
                f"| {r['domain']}/{r['size']} | - | - | load failed | {t.get('operators')} ({t.get('actions')}) | - | - | "
                f"{fmt(t.get('ground'))} | {fmt(t.get('done'))} | {fmt(t.get('wall'))} | - |"
            )
            continue
        ratio = ld["seconds"] / t["ground"] if t.get("ground") else None
        if ratio:
            ratios.append((ratio, f"{r['domain']}/{r['size']}"))
        add(
            f"| {r['domain']}/{r['size']} | {ld['objects']} | {ld['atoms']} | {ld['operators']} ({ld['actions']}) | "
            f"{t.get('operators')} ({t.get('actions')}) | "
            f"{fmt(ld['seconds'])} | {fmt(ld.get('possible_seconds'))} | {fmt(t.get('ground'))} | {fmt(t.get('done'))} | {fmt(t.get('wall'))} | "
            f"{fmt(ratio)} |"
        )
    if ratios:
        rs = [x for x, _ in ratios]
        worst = max(ratios)
        add("")
        add(
            f"ours/FD(parse+normalize+instantiate): median {statistics.median(rs):.2f}, p95 {pct(rs, 0.95):.2f}, "
            f"max {worst[0]:.2f} ({worst[1]}); tasks slower than FD: {sum(x > 1 for x in rs)}/{len(rs)}"
        )
    if ground_only:
        return "\n".join(lines)
    # ---- optimal_set / optimal_next vs FD h*
    for kind, label, target in (
        ("optimal_set", "h* + every optimal next action + a plan", "median <= 1, p95 <= 2"),
        ("optimal_next", "h* + per-action table", "median <= 1.5, p95 <= 5"),
    ):
        lines += ratio_table(results, kind, label, target)
    if any(r.get("baseline") for r in results):
        lines += baseline_table(results)
    own = [(r, x) for r in results for x in r["records"] if x["kind"] == "fd_own"]
    if own:
        add("")
        add("FD's own pipeline (translate + A*/LM-cut on the state's PDDL) for the first state of each task:")
        add("")
        add("| task | FD own (s) | h | FD on our SAS (s) | ours optimal_next (s) |")
        add("|---|---:|---|---:|---:|")
        for r, x in own:
            f = next((y for y in r["records"] if y["kind"] == "fd_hstar" and y["state"] == x["state"]), {})
            o = next((y for y in r["records"] if y["kind"] == "optimal_next" and y["state"] == x["state"]), {})
            add(
                f"| {r['domain']}/{r['size']} | {fmt(x['seconds'])} | {x['h']} | {fmt(f.get('seconds'))} | "
                f"{fmt(o.get('seconds'))} |"
            )
    # ---- question kinds
    for title, sel in (
        ("all tasks", lambda r: True),
        ("large ADL tasks", lambda r: r["size"] == "large" and r["domain"] in ADL),
    ):
        add("")
        add(f"## every question kind, {title} (seconds; unknown = undecided within the budget)")
        add("")
        add("| kind | calls | p50 | p95 | max | unknown | over budget+10 s | errors | hung (killed) |")
        add("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for kind in KINDS:
            xs = [x for r in results if sel(r) for x in r["records"] if x["kind"] == kind]
            hung = [x for r in results if sel(r) for x in r["records"] if x["kind"] == "hung" and x["what"] == kind]
            if not xs and not hung:
                continue
            ts = [x["seconds"] for x in xs] + [x["seconds"] for x in hung]
            over = sum(x["seconds"] > budget + HANG_SLACK for x in xs)
            add(
                f"| {kind} | {len(ts)} | {fmt(pct(ts, 0.5))} | {fmt(pct(ts, 0.95))} | {fmt(max(ts))} | "
                f"{sum(x['unknown'] for x in xs)} | {over} | {sum(bool(x.get('error')) for x in xs)} | {len(hung)} |"
            )
    add("")
    add(list_report(results))
    add("")
    add(bounds_report(results))
    # ---- per-domain worst cases
    add("")
    add("## per task: slowest call of each kind (seconds)")
    add("")
    add("| task | " + " | ".join(k.replace("_", " ") for k in KINDS) + " |")
    add("|---|" + "---:|" * len(KINDS))
    for r in results:
        cells = []
        for kind in KINDS:
            xs = [x["seconds"] for x in r["records"] if x["kind"] == kind]
            hung = any(x["kind"] == "hung" and x.get("what") == kind for x in r["records"])
            cells.append("HUNG" if hung else (fmt(max(xs)) if xs else "-"))
        add(f"| {r['domain']}/{r['size']} | " + " | ".join(cells) + " |")
    errors = [(r, x) for r in results for x in r["records"] if x.get("error") or x["kind"] in ("crash", "hung")]
    if errors:
        add("")
        add("## errors, crashes and hung calls")
        add("")
        for r, x in errors[:40]:
            add(
                f"- {r['domain']}/{r['size']} {x['kind']} {x.get('what', '')} state {x.get('state')}: "
                f"{(x.get('error') or '')[:200]}"
            )
    return "\n".join(lines)


def baseline_table(results: list[dict]) -> list[str]:
    """optimal_next of this checkout against the --baseline checkout on the same states."""
    out = [
        "",
        "## optimal_next: this checkout against the baseline checkout (same states, run task by task)",
        "",
        "| domain | states | ours p50 | ours p95 | base p50 | base p95 | base/ours p50 | base/ours min | "
        "ours unknown | base unknown | disagree |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    by_dom: dict[str, list] = {}
    for r in results:
        base = {x["state"]: x for x in r.get("baseline", []) if x["kind"] == "optimal_next"}
        for x in r["records"]:
            if x["kind"] == "optimal_next" and x["state"] in base:
                by_dom.setdefault(r["domain"], []).append((x, base[x["state"]]))
    speedups = []
    for dom, pairs in sorted(by_dom.items()):
        ours = [x["seconds"] for x, _ in pairs]
        base = [b["seconds"] for _, b in pairs]
        sp = [b["seconds"] / max(x["seconds"], 1e-3) for x, b in pairs]
        speedups += sp
        disagree = sum(1 for x, b in pairs if not x["unknown"] and not b["unknown"] and x.get("h") != b.get("h"))
        out.append(
            f"| {dom} | {len(pairs)} | {fmt(pct(ours, 0.5))} | {fmt(pct(ours, 0.95))} | {fmt(pct(base, 0.5))} | "
            f"{fmt(pct(base, 0.95))} | {fmt(pct(sp, 0.5))} | {fmt(min(sp))} | {sum(x['unknown'] for x, _ in pairs)} | "
            f"{sum(b['unknown'] for _, b in pairs)} | {disagree} |"
        )
    if speedups:
        out += [
            "",
            f"overall base/ours per state: median {statistics.median(speedups):.2f}, p5 {pct(speedups, 0.05):.2f}, "
            f"over {len(speedups)} states",
        ]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, 2 states, budget 10 s, no HEAVY domains")
    ap.add_argument("--domains", default=None, help="comma-separated domain folders (default: all)")
    ap.add_argument("--sizes", default=None, help="comma-separated from small,medium,large")
    ap.add_argument("--states", type=int, default=None, help="states per task (default 6, quick 2)")
    ap.add_argument("--budget", type=float, default=None, help="seconds per question (default: the library's)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, help="write every measurement here")
    ap.add_argument("--skip-questions", action="store_true", help="only optimal_next and FD h*")
    ap.add_argument("--skip-translate", action="store_true", help="no grounding comparison (FD's translator)")
    ap.add_argument("--fd-own", action="store_true", help="also FD's own pipeline on the first state")
    ap.add_argument(
        "--near-goal",
        type=int,
        default=None,
        metavar="K",
        help="states on the plan with 1..K steps left instead of walks and prefixes",
    )
    ap.add_argument("--ground-only", action="store_true", help="only parse + ground, ours and FD's translator")
    ap.add_argument("--from-json", default=None, help="print the report of a saved --json run, run nothing")
    ap.add_argument(
        "--baseline",
        default=None,
        metavar="PATH",
        help="also time optimal_next of the acptools checkout at PATH on the same states, task by task",
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--domain", help=argparse.SUPPRESS)
    ap.add_argument("--size", help=argparse.SUPPRESS)
    ap.add_argument("--kinds", default=None, help="comma-separated question kinds to run (default: all)")
    ap.add_argument("--library", default=None, metavar="PATH", help="measure the acptools checkout at PATH")
    ap.add_argument("--states-file", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args)
        return 0
    if args.from_json:
        print(report(json.loads(Path(args.from_json).read_text()), args.budget if args.budget is not None else 60.0))
        return 0
    if args.states is None:
        args.states = 2 if args.quick else 6
    if args.quick and args.budget is None:
        args.budget = 10.0
    sizes = args.sizes.split(",") if args.sizes else (["small"] if args.quick else list(SIZES))
    domains = (
        args.domains.split(",")
        if args.domains
        else sorted(p.name for p in SUITE.iterdir() if (p / "domain.pddl").exists())
    )
    if args.quick and not args.domains:
        domains = [d for d in domains if d not in HEAVY]
    load = os.getloadavg()
    print(
        f"# suite_bench: {len(domains)} domains x {sizes}, {args.states} states, budget "
        f"{args.budget if args.budget is not None else 'library default'} s, seed {args.seed}; "
        f"load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} cores",
        flush=True,
    )
    results = []
    t_all = time.perf_counter()
    for dom in domains:
        for size in sizes:
            if not (SUITE / dom / f"{size}.pddl").exists():
                continue
            t0 = time.perf_counter()
            res = run_task(args, dom, size)
            if args.baseline:
                res["baseline"] = run_baseline(args, dom, size, res["records"])
            res["fd_translate"] = (
                {} if args.skip_translate else fd_translate(SUITE / dom / "domain.pddl", SUITE / dom / f"{size}.pddl")
            )
            results.append(res)
            ld = next((x for x in res["records"] if x["kind"] == "load"), {})
            print(
                f"  {dom}/{size}: {len(res['records'])} records, ops {ld.get('operators')} vs FD "
                f"{res['fd_translate'].get('operators')}, {time.perf_counter() - t0:.0f} s",
                flush=True,
            )
            if args.json:
                Path(args.json).write_text(json.dumps(results))
    load = os.getloadavg()
    print(f"# wall {time.perf_counter() - t_all:.0f} s; load average after {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print()
    print(report(results, args.budget if args.budget is not None else 60.0, args.ground_only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
