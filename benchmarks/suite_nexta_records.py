#!/usr/bin/env python3
"""The states a suite_bench run sampled, as nexta records (the state is the problem's init), so that
benchmarks/nexta_vs_fd.py measures them the way it measures ACPBench Hard's: ours = load + the
question, FD = its whole pipeline (translate + A*) on the same PDDL.

    PYTHONPATH=. python benchmarks/suite_bench.py --states 6 --near-goal 7 --skip-questions \\
        --skip-translate --json near.json
    PYTHONPATH=. python benchmarks/suite_nexta_records.py near.json --out near-nexta.jsonl
    ACPTOOLS_CACHE=off PYTHONPATH=. python benchmarks/nexta_vs_fd.py --no-cache --data near-nexta.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

SUITE = Path(__file__).resolve().parent / "suite"


def records(results: list[dict]) -> list[dict]:
    """One record per sampled state of every task in a suite_bench JSON."""
    from acptools import load_task

    out = []
    for r in results:
        states = [x for x in r["records"] if x["kind"] == "state"]
        if not states:
            continue
        folder = SUITE / r["domain"]
        task = load_task(folder / "domain.pddl", folder / f"{r['size']}.pddl")
        domain = task.written_domain_text
        for x in states:
            out.append(
                {
                    "id": f"{r['domain']}/{r['size']}/{x['state']}:{x['origin']}",
                    "group": "nexta",
                    "context": "",
                    "question": "",
                    "answer": "",
                    "PDDL_domain": domain,
                    "PDDL_problem": task.problem_for(task.parse_state(x["atoms"])),
                }
            )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="a suite_bench --json file")
    ap.add_argument("--out", required=True, help="the records (JSON lines)")
    args = ap.parse_args()
    recs = records(json.loads(Path(args.results).read_text()))
    Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in recs))
    print(f"{len(recs)} records -> {args.out}")


if __name__ == "__main__":
    main()
