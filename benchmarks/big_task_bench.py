"""Time and peak memory of every tool and command on a task at the sizes users bring (issue 39).

    python benchmarks/big_task_bench.py [--budget 1] [--only library|server|cli]

The task is the test tier's (tests/support/big_tasks.py): a ferry with 160 cars and 130 locations,
21,091 ground atoms and 58,370 ground actions, questions asked in the initial state or near the goal.
Every process runs with Python's int-to-text limit at its lowest (640 digits), as the tests do.

* library: the eight questions (and h*, plan) in one process: seconds per call;
* server: every MCP tool over stdio in one `acptools-server` process: seconds per call;
* cli: every command in its own process, sharing one proof store: seconds per command.

Each part prints its process's peak RSS (VmHWM; GNU time's for a command). The budget given is per question, so
`seconds` far above it is a budget overrun. Before issue 39, optimal_next_action, unreachable_atoms,
unreachable_actions and every `generate` form raised on this task (a state written in decimal).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.big_tasks import (
    CARS,
    LOCATIONS,
    LOW_DIGITS,
    acpbench_records,
    big_ferry,
    low_digit_env,  # noqa: E402
    near_goal,
    write_big_files,
)
from tests.support.server_procs import StdioServer, peak_rss_mb  # noqa: E402


def timed(rows: list, name: str, call):
    """Run call(), note (name, seconds, outcome); an exception is the outcome, never the end of the run."""
    t0 = time.perf_counter()
    try:
        out, how = call(), "ok"
    except Exception as e:  # noqa: BLE001 -- the figure to report
        out, how = None, f"raised {type(e).__name__}: {str(e)[:60]}"
    rows.append((name, time.perf_counter() - t0, how))
    return out


def library(budget: float, atoms: list[str], rest: list[str]) -> list:
    """The questions in this process (run as its own child, given the near-goal state, so that its peak
    memory is the library's alone)."""
    from acptools import load_task

    sys.set_int_max_str_digits(LOW_DIGITS)
    rows: list = []
    domain, problem, _ = big_ferry()
    task = timed(rows, "load_task", lambda: load_task(domain, problem))
    q = task.questions
    target = rest[0].split()[2].rstrip(")")
    asks = [
        ("applicable", lambda: q.applicable(atoms)),
        ("progress", lambda: q.progress(rest[0], atoms)),
        ("validate", lambda: q.validate(list(big_ferry()[2]))),
        ("simplify", lambda: q.simplify(rest + rest[2:], atoms, budget=budget)),
        ("is_reachable", lambda: q.is_reachable("(at-ferry l5)", budget=budget)),
        ("unreachable_atoms", lambda: q.unreachable_atoms(budget=budget)),
        ("is_action_reachable", lambda: q.is_action_reachable(f"(debark c0 {target})", atoms, budget=budget)),
        ("unreachable_actions", lambda: q.unreachable_actions(budget=budget)),
        ("is_landmark", lambda: q.is_landmark(f"(at-ferry {target})", atoms, budget=budget)),
        ("landmarks", lambda: q.landmarks(budget=budget)),
        ("optimal_next (init)", lambda: q.optimal_next(budget=budget)),
        ("optimal_next (near goal)", lambda: q.optimal_next(atoms, budget=budget)),
        ("optimal_next table", lambda: q.optimal_next(atoms, budget=budget, table=True)),
        ("h_star (near goal)", lambda: q.h_star(atoms, budget=budget)),
        ("plan greedy (near goal)", lambda: q.plan(atoms, optimal=False, budget=budget)),
    ]
    for name, ask in asks:
        timed(rows, name, ask)
    return rows


def server(budget: float) -> tuple[list, float]:
    rows: list = []
    domain, problem, plan = big_ferry()
    atoms, rest = near_goal()
    target = rest[0].split()[2].rstrip(")")
    with (
        tempfile.TemporaryDirectory() as tmp,
        StdioServer(Path(tmp), PYTHONINTMAXSTRDIGITS=str(LOW_DIGITS), ACPTOOLS_CACHE="off") as s,
    ):

        def call(name, tool, **args):
            def ask():
                result = s.call(tool, timeout=900, **args)
                if result.get("isError"):
                    raise RuntimeError(result["content"][0]["text"])
                return result["structuredContent"]

            return timed(rows, name, ask)

        tid = call("load_task", "load_task", domain=domain, problem=problem)["task_id"]
        b = {"task_id": tid, "budget": budget}
        call("list_applicable", "list_applicable", task_id=tid, state=atoms)
        call("progress", "progress", task_id=tid, action=rest[0], state=atoms)
        call("validate_plan", "validate_plan", task_id=tid, plan=list(plan))
        call("simplify_plan", "simplify_plan", plan=rest + rest[2:], state=atoms, **b)
        call("is_reachable", "is_reachable", atom="(at-ferry l5)", **b)
        call("unreachable_atoms", "unreachable_atoms", **b)
        call("is_action_reachable", "is_action_reachable", action=f"(debark c0 {target})", state=atoms, **b)
        call("unreachable_actions", "unreachable_actions", **b)
        call("is_landmark", "is_landmark", atom=f"(at-ferry {target})", state=atoms, **b)
        call("landmarks", "landmarks", **b)
        call("optimal_next_action (init)", "optimal_next_action", **b)
        call("optimal_next_action (near)", "optimal_next_action", state=atoms, **b)
        call("optimal_next_action table", "optimal_next_action", state=atoms, table=True, **b)
        call("plan", "plan", state=atoms, **b)
        call("score_answer nexta", "score_answer", task="nexta", response=rest[0], state=atoms, **b)
        episode = call("start_episode", "start_episode", state=atoms, **b)["episode_id"]
        for action in rest[:2]:
            call("step_episode", "step_episode", episode_id=episode, action=action, budget=budget)
        call("episode_summary", "episode_summary", episode_id=episode)
        return rows, peak_rss_mb(s.pid)


def cli(budget: float) -> list:
    """Each command in its own process: (name, seconds, exit code, peak RSS MB)."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = write_big_files(tmp / "task")
        env = low_digit_env(ACPTOOLS_CACHE=str(tmp / "proofs.sqlite"), PYTHONPATH=str(ROOT))
        agent = tmp / "agent.py"
        agent.write_text("def answer(q):\n    return 'None'\n")
        b = ["--budget", str(budget)]
        gen = [
            "generate",
            "--domain",
            files["domain"],
            "--problem",
            files["problem"],
            "-n",
            "1",
            "--walk",
            "1:3",
            "--quiet",
            *b,
        ]
        commands = [
            (
                "score --gold",
                ["score", "--data", files["records"], "--gold", "--out", tmp / "items.jsonl", "--quiet", *b],
            ),
            (
                "eval (python: policy)",
                [
                    "eval",
                    "--data",
                    files["records"],
                    "--policy",
                    f"python:{agent}:answer",
                    "--out",
                    tmp / "eval.jsonl",
                    "--quiet",
                    *b,
                ],
            ),
            (
                "rollout (random, 2 steps)",
                [
                    "rollout",
                    "--tasks",
                    files["folder"],
                    "--policy",
                    "random",
                    "--max-steps",
                    "2",
                    "--out",
                    tmp / "traces.jsonl",
                    "--quiet",
                    *b,
                ],
            ),
            ("cache verify", ["cache", "verify", "--cache", tmp / "proofs.sqlite", *b]),
            ("report", ["report", "--html", tmp / "r.html", tmp / "items.jsonl", tmp / "traces.jsonl"]),
        ]
        commands += [
            (
                f"generate {form} (app, prog)",
                [*gen, "--form", form, "--tasks", "app,prog", "--out", tmp / f"{form}.jsonl"],
            )
            for form in ("hard", "bool", "mcq")
        ]
        commands += [
            ("generate arb (state, exec)", [*gen, "--form", "arb", "--tasks", "state,exec", "--out", tmp / "arb.jsonl"])
        ]
        for name, args in commands:
            t0 = time.perf_counter()
            proc = subprocess.run(
                [*TIME, sys.executable, "-m", "acptools.cli", *map(str, args)],
                env=env,
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            code = proc.returncode if "Traceback" not in proc.stderr else "traceback"
            peak = int(proc.stderr.split()[-1]) / 1024 if TIME else float("nan")
            rows.append((name, time.perf_counter() - t0, code, peak))
    return rows


# A child's ru_maxrss on Linux starts from its parent's at the fork (this process holds pyperplan's
# grounding), so each command is started by GNU time, a small process, which prints the peak (KB).
TIME = ["/usr/bin/time", "-f", "%M"] if os.path.exists("/usr/bin/time") else []


def vm_hwm_mb() -> float:
    """This process's peak resident memory since its exec (VmHWM)."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM:"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=float, default=1.0, help="seconds per question (default 1)")
    ap.add_argument("--only", choices=("library", "server", "cli"))
    ap.add_argument("--child-library", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_library:
        rows = library(args.budget, *json.loads(sys.stdin.read()))
        print(json.dumps({"rows": rows, "peak": vm_hwm_mb()}))
        return
    acpbench_records()  # pyperplan's grounding of the task, once, before anything is timed
    print(
        f"task: ferry, {CARS} cars and {LOCATIONS} locations (21,091 ground atoms, 58,370 ground actions); "
        f"budget {args.budget} s per question; int-to-text limit {LOW_DIGITS} digits in every process\n"
    )
    if args.only in (None, "library"):
        proc = subprocess.run(
            [sys.executable, __file__, "--child-library", "--budget", str(args.budget)],
            input=json.dumps(near_goal()),
            capture_output=True,
            text=True,
            env=low_digit_env(),
        )
        out = json.loads(proc.stdout.splitlines()[-1])
        _table("library (one process)", out["rows"], out["peak"])
    if args.only in (None, "server"):
        rows, peak = server(args.budget)
        _table("server (stdio, one process)", rows, peak)
    if args.only in (None, "cli"):
        rows = cli(args.budget)
        print("cli (one process per command)")
        print(f"  {'command':34s} {'seconds':>8s} {'exit':>9s} {'peak RSS MB':>12s}")
        for name, seconds, code, peak in rows:
            print(f"  {name:34s} {seconds:8.1f} {code!s:>9s} {peak:12.0f}")
        print()


def _table(title: str, rows: list, peak: float) -> None:
    print(title)
    print(f"  {'call':34s} {'seconds':>8s}  outcome")
    for name, seconds, how in rows:
        print(f"  {name:34s} {seconds:8.1f}  {how}")
    print(f"  peak RSS: {peak:.0f} MB\n")


if __name__ == "__main__":
    main()
