#!/usr/bin/env python3
"""RL environments' throughput: reasoning-gym entries/s per acp family, reward (score_answer) calls/s,
Gymnasium steps/s; side by side with reasoning-gym's own planning puzzles and a bare acptools Episode.

    python benchmarks/rl_bench.py                        # ferry, 16 entries per family, no proof store
    python benchmarks/rl_bench.py --domain grid --entries 8 --families acp_hard_nexta,acp_mcq_land
    python benchmarks/rl_bench.py --verifiers 16         # the verifiers environments' rollouts/s (needs [verifiers])

Rates are per CPU second of this process (a busy machine cannot inflate them) and per wall second.
Entries are generated from a fresh seed and fresh caches per family (the first entries of a family
pay for parsing, grounding and the first proofs). Reward calls grade the stored answer and a
corrupted one for every generated entry, with the truths warm (as a trainer grades many completions
per prompt). Gym steps: an optimal policy (the stored nexta answers are not used: the env's own h*)
plays until the goal, then resets.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, max(time.process_time() - c0, 1e-9), max(time.perf_counter() - w0, 1e-9)


def entries_rate(name: str, n: int, seed: int, **kw):
    import reasoning_gym

    from acptools.truth import clear_caches

    clear_caches()
    data = reasoning_gym.create_dataset(name, size=n, seed=seed, **kw)
    entries, cpu, wall = timed(lambda: list(data))
    return data, entries, n / cpu, n / wall


def reward_rate(data, entries, rounds: int = 5):
    wrong = [e["answer"][::-1] or "x" for e in entries]

    def grade():
        for _ in range(rounds):
            for e, w in zip(entries, wrong):
                data.score_answer(e["answer"], e)
                data.score_answer(w, e)

    _, cpu, wall = timed(grade)
    calls = 2 * rounds * len(entries)
    return calls / cpu, calls / wall


def gym_rate(domain: str, steps: int):
    """Steps/s of the Gym env under a policy that takes the first action lowering h* (h* from the env's
    info), and of bare Episode.step over the same actions."""
    import gymnasium

    import acptools.environments.gymnasium_env  # noqa: F401
    from acptools import examples
    from acptools.episode import Episode
    from acptools.truth import task_for

    env = gymnasium.make("acptools/Planning-v0", source=domain, max_steps=10_000)
    task = task_for(*examples.texts(domain))
    plan = []
    ep = Episode(task)
    while not ep.solved:  # an optimal plan, found once (untimed): the first applicable action with regret 0
        for a in task.questions.applicable(ep.state):
            probe = Episode(task, ep.state)
            if probe.step(a).regret == 0:
                ep.step(a)
                plan.append(a)
                break
    n, cpu, wall = timed(lambda: replay(lambda: env.reset(seed=0), env.step, plan, steps))
    episode = [Episode(task)]

    def fresh():
        episode[0] = Episode(task)

    m, bcpu, bwall = timed(lambda: replay(fresh, lambda a: episode[0].step(a), plan, steps))
    return n / cpu, n / wall, m / bcpu, len(plan)


def replay(reset, step, plan: list, steps: int) -> int:
    """Episodes of `plan` (reset, then each action) until `steps` steps are taken; returns them."""
    done = 0
    while done < steps:
        reset()
        for a in plan:
            step(a)
            done += 1
    return done


def optimal_plan(domain: str) -> list[str]:
    """An optimal plan of a bundled example: the first applicable action of regret 0, step by step."""
    from acptools import examples
    from acptools.episode import Episode
    from acptools.truth import task_for

    task = task_for(*examples.texts(domain))
    ep, plan = Episode(task), []
    while not ep.solved:
        a = next(a for a in task.questions.applicable(ep.state) if Episode(task, ep.state).step(a).regret == 0)
        ep.step(a)
        plan.append(a)
    return plan


def verifiers_rates(domain: str, questions: int, episodes: int) -> list[tuple[str, int, float, float]]:
    """(what, rollouts, per CPU s, per wall s) of run_eval over acptools-qa (gold answers to bundled app
    records) and acptools-policy (an optimal plan replayed, `episodes` times) against a loopback
    OpenAI-compatible server; the server, the interception and the grading all count (one process)."""
    import asyncio
    import json
    import tempfile

    sys.path.insert(0, str(ROOT / "tests"))
    from support.scripted_api import ScriptedModel
    from verifiers.v1.cli.eval.runner import run_eval
    from verifiers.v1.configs.cli.eval import EvalConfig

    from acptools.dataset import acpbench_hard
    from acptools.environments.prompting import prompt
    from acptools.scoring import gold_response

    os.environ.setdefault("BENCH_KEY", "k")
    chosen = acpbench_hard("test", "app")[:questions]
    plan = optimal_plan(domain)

    def answer(api, body):
        text = body["messages"][-1]["content"]
        return gold_response(next(r for r in chosen if prompt(r) in text))

    def act(api, body):
        return plan[sum(1 for m in body["messages"] if m["role"] == "assistant")]

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "app.jsonl"
        data.write_text("".join(json.dumps(r) + "\n" for r in chosen))
        for what, env, script, n in (
            ("acptools-qa (app, 1 turn)", {"taskset": {"id": "acptools-qa", "data": str(data)}}, answer, 1),
            (
                f"acptools-policy ({domain}, {len(plan)} turns)",
                {"taskset": {"id": "acptools-policy", "source": domain}},
                act,
                episodes,
            ),
        ):
            with ScriptedModel(script) as model:
                config = EvalConfig.model_validate(
                    {
                        "env": env,
                        "model": "bench",
                        "num_rollouts": n,
                        "push": False,
                        "rich": None,
                        "client": {"base_url": model.openai_url, "api_key_var": "BENCH_KEY"},
                        "output_dir": tmp,
                    }
                )
                done, cpu, wall = timed(lambda: asyncio.run(run_eval(config)))
            rollouts = sum(len(e.traces) for e in done)
            assert all(t.reward == 1.0 for e in done for t in e.traces), "a scripted right answer did not reward 1"
            out.append((what, rollouts, rollouts / cpu, rollouts / wall))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--domain", default="ferry", help="a bundled example (default ferry)")
    ap.add_argument("--entries", type=int, default=16, help="entries per family (default 16)")
    ap.add_argument("--families", default="", help="comma-separated acp_* names (default: all 30)")
    ap.add_argument("--gym-steps", type=int, default=2000)
    ap.add_argument("--cache", action="store_true", help="use the proof store (default: off, --no-cache)")
    ap.add_argument(
        "--verifiers",
        type=int,
        default=0,
        metavar="N",
        help="only the verifiers environments: N questions and N episodes through run_eval",
    )
    args = ap.parse_args(argv)
    if not args.cache:
        os.environ["ACPTOOLS_CACHE"] = "off"
    if args.verifiers:
        print("verifiers run_eval against a loopback OpenAI-compatible server (rollouts per CPU s / per wall s):")
        for what, n, cpu_rate, wall_rate in verifiers_rates(args.domain, args.verifiers, args.verifiers):
            print(f"  {what:34s} {n:4d} rollouts {cpu_rate:8.1f} /s  {wall_rate:8.1f} /s")
        return
    import acptools.environments.reasoning_gym_datasets as rgd

    names = [n for n in args.families.split(",") if n] or list(rgd.families())
    print(
        f"reasoning-gym entries on {args.domain}, {args.entries} per family (per CPU s / per wall s); "
        f"reward calls/s (CPU)"
    )
    for name in names:
        data, entries, cpu_rate, wall_rate = entries_rate(name, args.entries, 1, domain=args.domain)
        rcpu, _ = reward_rate(data, entries)
        print(f"  {name:28s} {cpu_rate:8.1f} /s  {wall_rate:8.1f} /s   rewards {rcpu:8.0f} /s")
    print("reasoning-gym's own planning puzzles, for comparison:")
    for name in ("tower_of_hanoi", "sokoban", "maze"):
        data, entries, cpu_rate, wall_rate = entries_rate(name, args.entries, 1)
        rcpu, _ = reward_rate(data, entries)
        print(f"  {name:28s} {cpu_rate:8.1f} /s  {wall_rate:8.1f} /s   rewards {rcpu:8.0f} /s")
    g_cpu, g_wall, bare, length = gym_rate(args.domain, args.gym_steps)
    print(
        f"Gymnasium acptools/Planning-v0 on {args.domain} (optimal plan of {length} steps, repeated): "
        f"{g_cpu:.0f} steps/s (CPU), {g_wall:.0f} steps/s (wall); bare Episode.step {bare:.0f} steps/s; "
        f"env/bare = {g_cpu / bare:.2f}"
    )


if __name__ == "__main__":
    main()
