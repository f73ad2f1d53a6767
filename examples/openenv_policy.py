#!/usr/bin/env python3
"""A scripted policy playing the acptools OpenEnv environment through OpenEnv's GenericEnvClient (it
knows nothing of acptools: plain dicts over the WebSocket).

    pip install 'acptools[openenv]'
    acptools-openenv --port 8000 &                       # the environment server
    python examples/openenv_policy.py --url http://localhost:8000 --episodes 3

Each episode starts on a bundled example's PDDL (reset(domain=..., problem=...)); the policy plays a
seeded random applicable action (and, once per episode, a made-up one, to show its verdict) until the
episode ends. Every step prints the verdict, the regret against h* and the reward; every episode its
return and why it ended. Swap `choose` for a model to evaluate or train it.
"""

from __future__ import annotations

import argparse
import random

from openenv.core import GenericEnvClient

from acptools import examples


def choose(observation: dict, rng: random.Random, step: int) -> str:
    """The policy: a made-up action on the second step, else a random applicable one."""
    if step == 1:
        return "(teleport ferry home)"
    return rng.choice(observation["applicable_actions"])


def play(env, domain: str, problem: str, rng: random.Random) -> float:
    """One episode; returns its return."""
    result = env.reset(domain=domain, problem=problem)
    obs, total, step = result.observation, 0.0, 0
    print(f"start: h* = {obs['h_star_after']}; goal {obs['goal']}")
    while not result.done:
        action = choose(obs, rng, step)
        result = env.step({"action": action})
        obs, total, step = result.observation, total + result.reward, step + 1
        print(
            f"  {obs['action']:<28} {obs['verdict']:<12} regret {obs['regret']!s:<4} h* {obs['h_star_after']!s:<4} "
            f"reward {result.reward:+.1f}"
        )
    print(f"return {total:+.1f} after {obs['steps']} steps: {obs['done_reason']}")
    return total


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", default="http://localhost:8000", help="the environment server")
    ap.add_argument("--example", default="ferry", help="a bundled example's name")
    ap.add_argument("--episodes", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    domain, problem = examples.texts(args.example)
    rng = random.Random(args.seed)
    with GenericEnvClient(base_url=args.url).sync() as env:
        returns = [play(env, domain, problem, rng) for _ in range(args.episodes)]
    print(f"mean return over {len(returns)} episodes: {sum(returns) / len(returns):+.2f}")


if __name__ == "__main__":
    main()
