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
within a batch once a prompt's first completion was graded. Target: >= 1,000 completions/s.
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

FRAMES = ("{a}", "The next action is {a}.", "I choose {a}", "**Final Answer**: {a}", "{a} (then keep going)",
          "Let me see: {a}", "Answer: {a}\n", "{A}")


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


def call(reward, rows: list[dict], g: int, round_: int) -> tuple[list, float]:
    """One TRL-style call: columns repeated per generation, prompts and completions as lists."""
    inputs = [row for row in rows for _ in range(g)]
    completions = [c for row in rows for c in completions_for(json.loads(row["record"]), g, round_)]
    kwargs = {k: [x[k] for x in inputs] for k in inputs[0] if k not in ("prompt", "completion")}
    t0 = time.perf_counter()
    out = reward(prompts=[x["prompt"] for x in inputs], completions=completions, **kwargs)
    return out, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompts", type=int, default=64)
    ap.add_argument("--generations", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3, help="timed calls after the warm-up call")
    ap.add_argument("--credit", default="exact", choices=("exact", "partial"))
    ap.add_argument("--budget", type=float, default=60.0, help="CPU seconds per completion")
    args = ap.parse_args()
    records = acpbench_hard("test", "nexta")[:args.prompts]
    rows = [{"prompt": r["question"], "record": json.dumps(r)} for r in records]
    reward = AcpReward(credit=args.credit, budget=args.budget)
    n = len(rows) * args.generations
    out, warm = call(reward, rows, args.generations, 0)
    known = [x for x in out if x is not None]
    print(f"warm-up: {n} completions over {len(rows)} nexta prompts in {warm:.1f} s (truths computed: h* of "
          f"each state and of the successors reached); rewards: mean {statistics.fmean(known):.3f}, "
          f"unknown {n - len(known)}")
    rates = []
    for r in range(1, args.rounds + 1):
        out, secs = call(reward, rows, args.generations, r)
        rates.append(n / secs)
        print(f"round {r}: {n} fresh completions graded in {secs:.3f} s = {n / secs:,.0f} completions/s "
              f"(unknown {sum(x is None for x in out)})")
    best, med = max(rates), statistics.median(rates)
    print(f"\nreward throughput with cached truths: median {med:,.0f} completions/s, best {best:,.0f} "
          f"(target >= 1,000: {'met' if med >= 1000 else 'NOT met'}); stats {dict(reward.stats)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
