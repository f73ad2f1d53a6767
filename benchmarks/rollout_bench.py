#!/usr/bin/env python3
"""Rollout benchmark: what the harness costs per step, and API episodes in flight side by side.

    python benchmarks/rollout_bench.py                    # the shared nexta states, test split
    python benchmarks/rollout_bench.py --split dev --latency 0.3 --steps 10

1. Overhead per step, excluding the model's own time, on every shared nexta state. A first pass
   with the `optimal` policy computes h* per state (acptools.truth caches it), 8 episodes at a
   time so they all stay in its bounded cache; the timed passes replay those plans through a
   python: policy that renders the prompt (as an API policy would), so a step costs: the
   observation, the prompt, grading the reply (h* cached), the trace row.
   Overhead = the runner's harness_seconds + the prompt rendering. Target: p50 <= 5 ms.

2. Episodes in flight: 8 episodes against a scripted OpenAI-compatible server (a real local HTTP
   server in its own process, through the openai SDK) that waits --latency seconds and then picks
   an applicable action with a seeded draw (so every run sees the same replies), with --jobs 1 and
   --jobs 8.
   Each step is graded for real (h* of fresh states). Printed: wall time and its ratio, grading
   seconds per step (p50, p90) in both runs and their ratio, and whether the verdicts are identical
   (CPU budgets: the load of 8 episodes must not change them).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import multiprocessing
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from scripted_api import ScriptedModel, request_text  # noqa: E402

from acptools import rollout  # noqa: E402
from acptools.budget import Budget
from acptools.truth import truth_for  # noqa: E402


def pct(values, q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def ms(x: float) -> str:
    return f"{1000 * x:7.2f} ms"


# ---- 1. overhead per step ------------------------------------------------------------------------


def replay_policy(render_times: list[float]):
    """A python: policy that renders the prompt, then answers with the first action of the cached
    optimal plan (the model's own time is this function's, and is not counted)."""

    def act(obs):
        t0 = time.perf_counter()
        _ = obs.system, obs.prompt
        render_times.append(time.perf_counter() - t0)
        h = truth_for(obs.task, obs.state).h_star(Budget(None, cpu=60))
        return obs.task.action_names[h.plan[0]]

    return act


def overhead(split: str, show_applicable: bool, chunk: int = 8) -> None:
    """Warm-up and timed passes chunk by chunk: acptools.truth keeps a bounded number of states
    (MAX_TRUTHS), and a chunk's states all fit, so the timed pass meets h* cached."""
    tasks = rollout.load_tasks(f"acpbench-hard:{split}:nexta")
    warm = timed = 0.0
    renders: list[float] = []
    steps, episodes = [], []
    for i in range(0, len(tasks), chunk):
        part = tasks[i : i + chunk]
        t0 = time.perf_counter()
        rollout.run(part, "optimal", rollout.RolloutConfig())
        t1 = time.perf_counter()
        result = rollout.run(
            part, rollout.PythonPolicy(replay_policy(renders)), rollout.RolloutConfig(show_applicable=show_applicable)
        )
        warm, timed = warm + t1 - t0, timed + time.perf_counter() - t1
        steps += result.steps
        episodes += result.episodes
    harness = [s["harness_seconds"] for s in steps]
    total = [h + r for h, r in zip(harness, renders)]
    grading = [s["grading_seconds"] for s in steps]
    starts = [e["start_seconds"] for e in episodes]
    solved = sum(e["solved"] for e in episodes)
    print(
        f"--show-applicable {show_applicable}: {len(tasks)} episodes, {len(steps)} steps, {solved} solved; "
        f"warm-up (h* of every state) {warm:.1f} s, timed pass {timed:.2f} s wall"
    )
    print(
        f"  overhead per step  p50 {ms(pct(total, 0.5))}  p90 {ms(pct(total, 0.9))}  max {ms(max(total))}  "
        f"(target p50 <= 5 ms: {pct(total, 0.5) <= 0.005})"
    )
    print(
        f"    of which grading p50 {ms(pct(grading, 0.5))}, prompt p50 {ms(pct(renders, 0.5))}, "
        f"the rest p50 {ms(pct([h - g for h, g in zip(harness, grading)], 0.5))}"
    )
    print(f"  episode start (load + h* of the start, cached) p50 {ms(pct(starts, 0.5))}  max {ms(max(starts))}")


# ---- 2. episodes in flight -----------------------------------------------------------------------

_APPLICABLE = re.compile(r"Actions applicable in the current state:\n(.*?)\n\n", re.S)


def seeded_pick(api, body) -> str:
    """An applicable action drawn with a seed taken from the prompt (the same prompt, the same reply)."""
    text = request_text(api, body)
    actions = _APPLICABLE.search(text).group(1).splitlines()
    seed = hashlib.sha256(text.encode()).hexdigest()
    return f"I will take {random.Random(seed).choice(actions)}"


def _serve(latency: float, port, stop) -> None:
    with ScriptedModel(seeded_pick, latency=latency) as model:
        port.put(model.openai_url)
        stop.wait()


@contextlib.contextmanager
def scripted_server(latency: float):
    """The scripted model in its own process, so its work does not share this one's GIL."""
    ctx = multiprocessing.get_context("fork")
    port, stop = ctx.Queue(), ctx.Event()
    proc = ctx.Process(target=_serve, args=(latency, port, stop), daemon=True)
    proc.start()
    try:
        yield port.get(timeout=30)
    finally:
        stop.set()
        proc.join(10)


def in_flight(split: str, latency: float, steps: int, grading_threads: int | None) -> None:
    records = rollout.load_tasks(f"acpbench-hard:{split}:nexta")
    tasks = [next(t for t in records if t.domain_text == d) for d in dict.fromkeys(t.domain_text for t in records)]
    tasks = (tasks * 2)[:8] if len(tasks) < 8 else tasks[:8]
    runs = {}
    for jobs in (1, 8):
        from acptools.truth import clear_caches

        clear_caches()  # both runs grade from scratch
        with scripted_server(latency) as url:
            policy = rollout.make_policy("openai:scripted", base_url=url)
            config = rollout.RolloutConfig(jobs=jobs, max_steps=steps, show_applicable=True)
            config.grading_threads = grading_threads or config.grading_threads
            t0 = time.perf_counter()
            result = rollout.run(tasks, policy, config)
            runs[jobs] = (time.perf_counter() - t0, result)
    (w1, r1), (w8, r8) = runs[1], runs[8]
    g1 = [s["grading_seconds"] for s in r1.steps]
    g8 = [s["grading_seconds"] for s in r8.steps]
    same = sorted(
        (s["episode"], s["step"], s["action"], s["verdict"], s["regret"], s["known"]) for s in r1.steps
    ) == sorted((s["episode"], s["step"], s["action"], s["verdict"], s["regret"], s["known"]) for s in r8.steps)
    print(
        f"8 episodes x {steps} steps, model latency {latency:g} s, {len(r1.steps)} steps graded per run, "
        f"grading threads {config.grading_threads}"
    )
    print(f"  wall       --jobs 1 {w1:6.2f} s   --jobs 8 {w8:6.2f} s   ratio {w1 / w8:5.2f}x")
    for q in (0.5, 0.9):
        print(
            f"  grading p{100 * q:.0f}  --jobs 1 {ms(pct(g1, q))}  --jobs 8 {ms(pct(g8, q))}  "
            f"ratio {pct(g8, q) / pct(g1, q):5.2f}"
        )
    print(f"  grading total --jobs 1 {sum(g1):6.2f} s  --jobs 8 {sum(g8):6.2f} s")
    print(f"  verdicts, regrets and unknowns identical in both runs: {same}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--split", default="test", choices=("dev", "test"))
    p.add_argument("--latency", type=float, default=0.3, help="seconds the scripted model waits per reply")
    p.add_argument("--steps", type=int, default=10, help="steps per episode in part 2")
    p.add_argument("--part", type=int, choices=(1, 2), help="run one part only")
    p.add_argument("--grading-threads", type=int, help="part 2: gradings at once (default: RolloutConfig's)")
    args = p.parse_args()
    if args.part in (None, 1):
        print("== 1. overhead per step (h* cached) ==")
        overhead(args.split, show_applicable=False)
        overhead(args.split, show_applicable=True)
    if args.part in (None, 2):
        print("\n== 2. API episodes in flight ==")
        in_flight(args.split, args.latency, args.steps, args.grading_threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
