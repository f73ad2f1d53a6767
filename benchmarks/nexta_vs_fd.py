"""nexta on the nexta states of ACPBench Hard records, side by side with Fast Downward computing h*(s)
alone (its whole pipeline: translate + A*/LM-cut, A*/h^max with conditional effects, on the record's
PDDL). Per state, wall seconds of:
  * FD: h*(s) only;
  * ours, default: load + `optimal_next()` (h*, EVERY optimal next action, an optimal plan);
  * ours, table: load + `optimal_next(table=True)` (also h* after every applicable action);
and the ratios ours/FD (median, p95, max), with a check that both give the same h*.

    ACPTOOLS_CACHE=off PYTHONPATH=. python benchmarks/nexta_vs_fd.py --no-cache \\
        [--data acpbench-hard:test] [--data ../shared/acpbench-hard/test/nexta.json] [--every K] [--limit N]

Ours runs in one child process (imports paid once, as for a library user); FD starts per state.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def fd_h_star(domain: str, problem: str, conds: bool, seconds: float) -> tuple[float, int | None]:
    """Fast Downward's whole pipeline on the PDDL: (wall seconds, h* or None); A*/h^max when the
    task has conditional effects (its LM-cut rejects them), else A*/LM-cut."""
    from acptools.planners.fd import package_dir

    driver = package_dir("up_fast_downward") / "downward" / "fast-downward.py"
    with tempfile.TemporaryDirectory() as d:
        Path(d, "d.pddl").write_text(domain)
        Path(d, "p.pddl").write_text(problem)
        t0 = time.perf_counter()
        try:
            out = subprocess.run(
                [
                    sys.executable,
                    str(driver),
                    "--overall-time-limit",
                    str(int(seconds) + 1),
                    "d.pddl",
                    "p.pddl",
                    "--search",
                    f"astar({'hmax' if conds else 'lmcut'}())",
                ],
                cwd=d,
                capture_output=True,
                text=True,
                timeout=seconds + 10,
            ).stdout
        except subprocess.TimeoutExpired:
            return time.perf_counter() - t0, None
        dt = time.perf_counter() - t0
    m = re.search(r"Plan length: (\d+)", out)
    return dt, int(m.group(1)) if m else None


def worker(data: list[str], limit: int | None, every: int, seconds: float) -> None:
    """One JSON line per nexta record: FD's time and h*, ours (default and table) and their answers."""
    from acptools import load_task
    from acptools.dataset import load_records, task_of

    recs = [r for r in load_records(*data) if task_of(r) == "nexta"][::every]
    seen, n = set(), 0
    for r in recs:
        key = (r["PDDL_domain"], r["PDDL_problem"])
        if key in seen:
            continue
        seen.add(key)
        n += 1
        if limit is not None and n > limit:
            break
        row = {"id": r["id"], "domain": r["PDDL_domain"].split("(domain", 1)[1].split(")")[0].strip()}
        for name, table in (("default", False), ("table", True)):
            t0 = time.perf_counter()
            task = load_task(*key)
            rep = task.questions.optimal_next(budget=seconds, table=table)
            row[name] = time.perf_counter() - t0
            row[name + "_h"], row[name + "_known"] = rep.h_star, rep.known
            row[name + "_optimal"] = sorted(rep.optimal_actions)
        row["applicable"] = len(rep.actions)
        row["fd"], row["fd_h"] = fd_h_star(*key, any(op.conds for op in task.operators), seconds)
        print(json.dumps(row), flush=True)


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]


def report(rows: list[dict]) -> None:
    ok = [r for r in rows if r["fd_h"] is not None and r["fd"] > 0]
    print(f"{len(rows)} states ({len(ok)} solved by FD); wall seconds; ratio = ours / FD h*(s) alone")
    print("| measure | median s | p95 s | max s | ratio median | ratio p95 | ratio max | target |")
    print("|---|---|---|---|---|---|---|---|")
    for name, label, target in (
        ("fd", "FD translate + A*/LM-cut: h*(s)", ""),
        ("default", "ours: load + h* + all optimal actions + plan", "median <= 1, p95 <= 2"),
        ("table", "ours: load + full table (table=True)", "median <= 1.5, p95 <= 5"),
    ):
        t = [r[name] for r in ok]
        ratio = [r[name] / r["fd"] for r in ok]
        print(
            f"| {label} | {statistics.median(t):.3f} | {pct(t, 0.95):.3f} | {max(t):.2f} | "
            f"{statistics.median(ratio):.2f} | {pct(ratio, 0.95):.2f} | {max(ratio):.2f} | {target} |"
        )
    wrong = [r["id"] for r in ok for name in ("default", "table") if r[name + "_known"] and r[name + "_h"] != r["fd_h"]]
    differ = [
        r["id"] for r in rows if r["default_known"] and r["table_known"] and r["default_optimal"] != r["table_optimal"]
    ]
    unknown = sum(1 for r in rows for name in ("default", "table") if not r[name + "_known"])
    print(
        f"h* differing from FD's: {len(wrong)}; optimal sets differing default/table: {len(differ)}; unknown: {unknown}"
    )
    worst = sorted(ok, key=lambda r: -r["table"] / r["fd"])[:5]
    print(
        "worst table ratios: "
        + ", ".join(
            f"{r['domain']} (h* {r['fd_h']}, {r['applicable']} applicable): {r['table'] / r['fd']:.1f}" for r in worst
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", action="append", default=None, help="records (default acpbench-hard:test)")
    ap.add_argument("--limit", type=int, default=None, help="at most this many distinct states")
    ap.add_argument("--every", type=int, default=1, help="every K-th record only (a sample across domains)")
    ap.add_argument("--seconds", type=float, default=60.0, help="budget per question (default 60)")
    ap.add_argument("--no-cache", action="store_true", help="no proof store (measure the engine)")
    ap.add_argument("--json", default=None, metavar="PATH", help="write every state's row here")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    data = args.data or ["acpbench-hard:test"]
    if args.worker:
        return worker(data, args.limit, args.every, args.seconds)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if args.no_cache:
        env["ACPTOOLS_CACHE"] = "off"
    cmd = [sys.executable, __file__, "--worker", "--seconds", str(args.seconds), "--every", str(args.every)]
    for d in data:
        cmd += ["--data", d]
    if args.limit is not None:
        cmd += ["--limit", str(args.limit)]
    rows = []
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env) as p:
        for line in p.stdout:
            rows.append(json.loads(line))
            print(
                f"  {len(rows)}: {rows[-1]['domain']} FD {rows[-1]['fd']:.2f} s, default {rows[-1]['default']:.2f} s, "
                f"table {rows[-1]['table']:.2f} s",
                file=sys.stderr,
                flush=True,
            )
    if args.json:
        Path(args.json).write_text(json.dumps(rows))
    report(rows)


if __name__ == "__main__":
    main()
