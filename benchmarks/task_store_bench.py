#!/usr/bin/env python3
"""Reading a kept grounded task (acptools.proofs.kept_tasks) against loading it from its PDDL, in CPU seconds
of this process, on the distinct tasks of the bundled test split, the alfred-size household task and
the public suite's tasks (folding and slitherlink when --heavy).

    python benchmarks/task_store_bench.py [--heavy] [--repeat 3]

Per set: tasks, load (parse + ground) in all, restore (read the row, check its HMAC, unzip, decode the data and rebuild the task)
in all, the ratio, and the bytes kept. Restoring is timed through the store the way a run reads a
task (a fresh store file and key in a temporary folder; the domain's parse is shared per process in
both, as `load_task` shares it).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from acptools import load_task  # noqa: E402
from acptools.dataset import load_records  # noqa: E402
from acptools.ground import snapshot  # noqa: E402
from acptools.proofs import store  # noqa: E402
from acptools.util.hashing import code_version, task_key  # noqa: E402

SUITE = ROOT / "benchmarks" / "suite"
HEAVY = ("folding", "slitherlink")


def task_sets(heavy: bool) -> dict[str, list[tuple[str, str]]]:
    split = {}
    for r in load_records("acpbench-hard:test"):
        split.setdefault((r["PDDL_domain"], r["PDDL_problem"]), None)
    household = ROOT / "tests" / "pddl" / "household"
    suite = [
        ((d / "domain.pddl").read_text(), (d / f"{size}.pddl").read_text())
        for d in sorted(SUITE.iterdir())
        if (d / "domain.pddl").exists() and (heavy or d.name not in HEAVY)
        for size in ("small", "medium", "large")
        if (d / f"{size}.pddl").exists()
    ]
    return {
        "test split": list(split),
        "household": [((household / "domain.pddl").read_text(), (household / "problem.pddl").read_text())],
        "suite": suite,
    }


def measure(tasks: list[tuple[str, str]], found, repeat: int) -> tuple[float, float, int]:
    """(load CPU s, restore CPU s, bytes kept), each the best of `repeat` passes over the tasks."""
    version = code_version()
    size = 0
    for d, p in tasks:
        blob = snapshot.dumps(load_task(d, p))
        found.put_grounded(task_key(d, p), version, blob)
        size += len(blob)
    loading, restoring = [], []
    for _ in range(repeat):
        t0 = time.process_time()
        for d, p in tasks:
            load_task(d, p)
        loading.append(time.process_time() - t0)
        t0 = time.process_time()
        for d, p in tasks:
            snapshot.loads(found.get_grounded(task_key(d, p), version), d)
        restoring.append(time.process_time() - t0)
    return min(loading), min(restoring), size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--heavy", action="store_true", help="also the suite's folding and slitherlink tasks")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        found = store.ProofStore(Path(tmp) / "proofs.sqlite", key=b"bench-key")
        print("| tasks | n | load CPU s | restore CPU s | load / restore | kept MB |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, tasks in task_sets(args.heavy).items():
            loading, restoring, size = measure(tasks, found, args.repeat)
            print(
                f"| {name} | {len(tasks)} | {loading:.3f} | {restoring:.3f} | {loading / restoring:.1f} | "
                f"{size / 1e6:.1f} |",
                flush=True,
            )
        found.close()


if __name__ == "__main__":
    main()
