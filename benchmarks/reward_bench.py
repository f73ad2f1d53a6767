#!/usr/bin/env python3
"""RL reward throughput: graded completions per second, called as TRL's GRPOTrainer calls a reward function.

    python benchmarks/reward_bench.py                   # 64 nexta prompts x 16 completions = 1,024
    python benchmarks/reward_bench.py --prompts 16 --generations 8 --credit partial

The prompts are the first N nexta records of the bundled test split, carried as a JSON `record`
column. Each prompt gets G distinct completions (every one different text, so none is graded
from the per-call duplicate memo): the stored optimal action, the record's other listed actions
(suboptimal, or inapplicable), prose around them, and text with no action. A first call computes
the states' truths (h* of each state and of the successors the completions reach: the cost of
the first batch that sees a prompt); the timed calls then grade the same prompts' fresh
completions with those truths cached, which is what a GRPO run does from its second epoch, or
within a batch once a prompt's first completion was graded. Target: >= 1,000 completions/s. Rates
are given per wall second and per CPU second of the process (the second is what a busy machine
cannot inflate); first with a new reward function each round (only the truths are warm), then with
one reward function whose memo of decided outcomes (per question and answer as read) is warm.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from acptools.dataset import acpbench_hard  # noqa: E402
from acptools.rewards import AcpReward  # noqa: E402

FRAMES = (
    "{a}",
    "The next action is {a}.",
    "I choose {a}",
    "**Final Answer**: {a}",
    "{a} (then keep going)",
    "Let me see: {a}",
    "Answer: {a}\n",
    "{A}",
)


def completions_for(record: dict, g: int, round_: int) -> list[str]:
    """g distinct completion texts for a record (round_ makes every round's texts new)."""
    ans = record["answer"]
    actions = [ans["yes"][0]] + list(ans.get("no") or []) + list(ans.get("maybe") or [])
    out = []
    k = 0
    while len(out) < g:
        a = actions[k % len(actions)]
        frame = FRAMES[(k // len(actions) + round_) % len(FRAMES)]
        text = frame.format(a=a, A=a.upper()) + " " * round_
        out.append(text if k % 7 != 6 else f"I am not sure (try {round_}.{k}).")
        k += 1
    return out


def call(reward, rows: list[dict], g: int, round_: int) -> tuple[list, float, float]:
    """One TRL-style call: columns repeated per generation, prompts and completions as lists; returns
    the rewards, wall seconds and CPU seconds of the process (what the machine's load cannot inflate)."""
    inputs = [row for row in rows for _ in range(g)]
    completions = [c for row in rows for c in completions_for(json.loads(row["record"]), g, round_)]
    kwargs = {k: [x[k] for x in inputs] for k in inputs[0] if k not in ("prompt", "completion")}
    t0, c0 = time.perf_counter(), time.process_time()
    out = reward(prompts=[x["prompt"] for x in inputs], completions=completions, **kwargs)
    return out, time.perf_counter() - t0, time.process_time() - c0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompts", type=int, default=64)
    ap.add_argument("--generations", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3, help="timed calls after the warm-up call")
    ap.add_argument("--credit", default="exact", choices=("exact", "partial"))
    ap.add_argument("--budget", type=float, default=60.0, help="CPU seconds per completion")
    args = ap.parse_args()
    records = acpbench_hard("test", "nexta")[: args.prompts]
    rows = [{"prompt": r["question"], "record": json.dumps(r)} for r in records]
    make = lambda: AcpReward(credit=args.credit, budget=args.budget)  # noqa: E731
    n = len(rows) * args.generations
    out, warm, _ = call(make(), rows, args.generations, 0)
    known = [x for x in out if x is not None]
    print(
        f"warm-up: {n} completions over {len(rows)} nexta prompts in {warm:.1f} s (truths computed: h* of "
        f"each state and of the successors reached); rewards: mean {statistics.fmean(known):.3f}, "
        f"unknown {n - len(known)}"
    )
    kept = make()
    for label, fresh in (
        ("a new reward function per round (truths cached, no outcome memo)", True),
        ("one reward function (its memo of decided outcomes warm after round 1)", False),
    ):
        rates, cpu_rates = [], []
        for r in range(1, args.rounds + 1):
            out, secs, cpu = call(make() if fresh else kept, rows, args.generations, r)
            rates.append(n / secs)
            cpu_rates.append(n / cpu)
        print(
            f"{label}:\n  {n} fresh completion texts per round: {', '.join(f'{x:,.0f}' for x in rates)} "
            f"completions/s wall; {', '.join(f'{x:,.0f}' for x in cpu_rates)} per CPU second"
        )
        print(
            f"  median {statistics.median(rates):,.0f}/s wall, {statistics.median(cpu_rates):,.0f}/CPU-s "
            f"(target >= 1,000/s: {'met' if statistics.median(rates) >= 1000 else 'NOT met'} on the wall clock)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
