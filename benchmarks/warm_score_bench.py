#!/usr/bin/env python3
"""Grading speed, cold and warm, side by side with the published reference scorer (lm-eval's
acp_utils, run from the reference venv: $ACP_REFVENV, default .refvenv, see docs/reference-scorer.md
section 6), on the same responses, with an identical-items check.

    python benchmarks/warm_score_bench.py                          # 2 records per task x domain of the test split
    python benchmarks/warm_score_bench.py --per-cell 0             # the whole test split
    python benchmarks/warm_score_bench.py --data FOLDER --per-cell 3 --workdir /tmp/wsb

Every run is one process timed from outside (start-up, reading the data, scoring, writing items), one
after another, each with the CPU seconds it and its children used (a busy shared machine stretches wall
time, not CPU time):

  reference   the reference scorer, --jobs 1 (or --ref-jobs)
  cold-j2     acptools score --jobs 2 --no-cache             everything proven afresh
  fill-j2     acptools score --jobs 2 --cache WORKDIR/...    the same, filling a fresh proof store
  warm-j2     the same command again                         proofs and grades stored: a lookup
  warm-new    other responses to the same records (each response with a blank line added: the
              grades are not stored, the proofs are): what a second model's answers cost

The store is a fresh file in WORKDIR with a fresh key (never the user's). Identical items: warm-j2
against fill-j2 on every field but `seconds`; cold-j2 against fill-j2 and warm-new on (score, verdict).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import secrets
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REF_PY = Path(os.environ.get("ACP_REFVENV", ROOT / ".refvenv")) / "bin" / "python"
sys.path.insert(0, str(ROOT))


def run(cmd, log: Path, env=None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(log, "w") as fh:
        proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, cwd=ROOT, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        sys.exit(f"failed ({proc.returncode}): {' '.join(map(str, cmd))}\n{log.read_text()[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def sample_records(data: str, per_cell: int, seed: int) -> list[dict]:
    """`per_cell` records of every task x domain (0: all), in a fixed random order."""
    from acptools.dataset import domain_name, load_records, task_of

    cells = defaultdict(list)
    for r in load_records(data):
        cells[(task_of(r), domain_name(r))].append(r)
    rng = random.Random(seed)
    out = []
    for key in sorted(cells):
        recs = cells[key]
        out += recs if per_cell <= 0 else rng.sample(recs, min(per_cell, len(recs)))
    return out


def same(a: list[dict], b: list[dict], fields=None) -> int:
    strip = (
        (lambda d: {k: v for k, v in d.items() if k != "seconds"})
        if fields is None
        else (lambda d: tuple(d.get(k) for k in fields))
    )
    return sum(1 for x, y in zip(a, b) if strip(x) == strip(y))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT / "acptools" / "data" / "acpbench_hard" / "test"))
    ap.add_argument("--per-cell", type=int, default=2, help="records per task x domain (0: all; default 2)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", help="where outputs go (default: a fresh temporary folder)")
    ap.add_argument("--ref-jobs", type=int, default=1)
    ap.add_argument("--skip-reference", action="store_true", help="reuse WORKDIR/ref_items.jsonl and its times")
    ap.add_argument("--skip-cold", action="store_true", help="no cold-j2 run (fill-j2 does the same work)")
    a = ap.parse_args()
    if not REF_PY.exists():
        sys.exit(f"the reference venv is missing: {REF_PY} (see docs/reference-scorer.md section 6)")
    work = Path(a.workdir or tempfile.mkdtemp(prefix="acptools-warm-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    records = sample_records(a.data, a.per_cell, a.seed)
    data = work / "records.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records))
    resp = work / "responses.jsonl"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "make_reference_responses.py"),
            "--data",
            str(data),
            "--out",
            str(resp),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    other = work / "responses-other.jsonl"
    other.write_text("".join(json.dumps(dict(r, response=r["response"] + "\n")) + "\n" for r in read(resp)))
    n = len(read(resp))
    print(
        f"{n} responses to {len(records)} records ({a.per_cell or 'all'} per task x domain of {a.data}); "
        f"outputs in {work}"
    )

    key = work / "store.key"
    key.write_text(secrets.token_hex(32) + "\n")
    key.chmod(0o600)
    env = {**os.environ, "ACPTOOLS_STORE_KEY_FILE": str(key)}
    env.pop("ACPTOOLS_CACHE", None)
    times = {}
    timed = work / "times.json"
    if a.skip_reference and timed.exists():
        times["reference"] = json.loads(timed.read_text())["reference"]
    else:
        times["reference"] = run(
            [
                str(REF_PY),
                str(ROOT / "benchmarks" / "reference_scorer.py"),
                "--data",
                str(data),
                "--responses",
                str(resp),
                "--out",
                str(work / "ref_items.jsonl"),
                "--jobs",
                str(a.ref_jobs),
                "--quiet",
            ],
            work / "ref.log",
        )
    print(f"reference: {times['reference'][0]:.1f} s wall, {times['reference'][1]:.1f} s CPU")
    us = [sys.executable, "-m", "acptools.cli", "score", "--data", str(data), "--quiet", "--jobs", "2", "--force"]
    cache = work / "proofs.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(str(cache) + suffix).unlink(missing_ok=True)
    runs = [
        ("cold-j2", resp, ["--no-cache"]),
        ("fill-j2", resp, ["--cache", str(cache)]),
        ("warm-j2", resp, ["--cache", str(cache)]),
        ("warm-new", other, ["--cache", str(cache)]),
    ]
    if a.skip_cold:
        runs = runs[1:]
    for name, responses, flags in runs:
        times[name] = run(
            us + ["--responses", str(responses), "--out", str(work / f"{name}.jsonl")] + flags,
            work / f"{name}.log",
            env,
        )
        print(f"acptools {name}: {times[name][0]:.1f} s wall, {times[name][1]:.1f} s CPU")
    timed.write_text(json.dumps(times))

    items = {name: read(work / f"{name}.jsonl") for name, _, _ in runs}
    cold = "fill-j2" if a.skip_cold else "cold-j2"  # the run that proved everything afresh
    ref_wall, ref_cpu = times["reference"]
    print(f"\n== {n} responses, each scorer one process end to end (2 shared cores) ==")
    print(f"{'run':44} {'wall s':>8} {'CPU s':>8} {'x ref (wall)':>13} {'x ref (CPU)':>12}")
    labels = {
        "reference": f"reference scorer (lm-eval acp_utils, --jobs {a.ref_jobs})",
        "cold-j2": "acptools exact, --jobs 2, no store (cold)",
        "fill-j2": "acptools, --jobs 2, store fills",
        "warm-j2": "acptools, --jobs 2, warm (same responses)",
        "warm-new": "acptools, --jobs 2, warm proofs, new responses",
    }
    for name, label in labels.items():
        if name not in times:
            continue
        wall, cpu = times[name]
        print(f"{label:44} {wall:8.2f} {cpu:8.2f} {ref_wall / wall:12.1f}x {ref_cpu / max(cpu, 1e-9):11.1f}x")
    checks = {
        "warm-j2 = fill-j2 (every field but seconds)": same(items["warm-j2"], items["fill-j2"]),
        f"warm-new = {cold} (score, verdict)": same(items["warm-new"], items[cold], ("score", "verdict")),
    }
    if not a.skip_cold:
        checks["cold-j2 = fill-j2 (score, verdict)"] = same(items["cold-j2"], items["fill-j2"], ("score", "verdict"))
    print("\n== identical items ==")
    for what, k in checks.items():
        print(f"{what:46} {k}/{n}")
    unknown = {name: sum(1 for it in v if it["verdict"] in ("unknown", "error")) for name, v in items.items()}
    print(f"unknown or error items: {unknown}")
    (work / "bench.json").write_text(
        json.dumps(
            {
                "n": n,
                "records": len(records),
                "data": a.data,
                "per_cell": a.per_cell,
                "times": times,
                "same": checks,
                "unknown": unknown,
            },
            indent=1,
        )
    )
    print(f"\nresults -> {work / 'bench.json'}")
    return 0 if all(k == n for k in checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
