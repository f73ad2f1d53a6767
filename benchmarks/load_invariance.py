"""Same input, same verdict, on a quiet or a busy machine: `acptools score --gold` twice.

    python benchmarks/load_invariance.py [--data acpbench-hard:test] [--jobs 2] [--hogs N]

Runs the gold check once as the machine is, then again with N CPU hogs (default: one per core)
spinning beside it, and compares every item's (score, verdict). Prints both wall times, the
unknown counts and every item whose verdict differs (there should be none).
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


def score(data: str, jobs: int, out: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "acptools.cli",
            "score",
            "--data",
            data,
            "--gold",
            "--jobs",
            str(jobs),
            "--quiet",
            "--no-cache",
            "--out",
            str(out),
        ],
        check=False,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def verdicts(path: Path) -> dict:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {(r["task"], str(r["id"])): (r["score"], r["verdict"]) for r in rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="acpbench-hard:test")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--hogs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="load-invariance-"))
    quiet_out, busy_out = folder / "quiet.jsonl", folder / "busy.jsonl"
    quiet = score(args.data, args.jobs, quiet_out)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.hogs)]
    try:
        busy = score(args.data, args.jobs, busy_out)
    finally:
        for h in hogs:
            h.kill()
    a, b = verdicts(quiet_out), verdicts(busy_out)
    differ = sorted(k for k in a if a[k] != b.get(k))
    unknown = [sum(1 for v in d.values() if v[1] == "unknown") for d in (a, b)]
    print(
        f"{len(a)} items, --jobs {args.jobs}: as is {quiet:.1f} s, with {args.hogs} CPU hogs {busy:.1f} s "
        f"({busy / quiet:.2f}x)"
    )
    print(f"unknown: {unknown[0]} / {unknown[1]}; items whose (score, verdict) differ: {len(differ)}")
    for k in differ:
        print(f"  {k}: {a[k]} vs {b.get(k)}")


if __name__ == "__main__":
    main()
