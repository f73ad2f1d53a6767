#!/usr/bin/env python3
"""Steps/s of the OpenEnv environment over the WebSocket, beside the in-process Gymnasium environment.

    python benchmarks/openenv_bench.py                      # ferry, 2000 steps, 1 and 4 sessions
    python benchmarks/openenv_bench.py --domain grid --steps 1000 --sessions 1,2,8

A scripted policy plays an optimal plan of a bundled example (found once, untimed), resetting at the
goal, so every episode is reset + h* graded steps. Side by side:
  * OpenEnv over the WebSocket: OpenEnv's GenericEnvClient against a real `acptools-openenv` process on
    loopback (steps per wall second; the server's CPU per step read from /proc; with several sessions,
    each in its own thread and summed);
  * the OpenEnv Environment object called in this process (no server, no transport);
  * the Gymnasium env acptools/Planning-v0 in this process and a bare acptools Episode.step (steps per
    CPU second: both run here).
The truths are warm after the first episode in every row (a trainer replays the same tasks).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from rl_bench import gym_rate, optimal_plan, replay, timed  # noqa: E402


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def play(url: str, domain: str, plan: list[str], steps: int) -> int:
    """Episodes of `plan` over one WebSocket session until `steps` steps are taken."""
    from openenv.core import GenericEnvClient

    done = 0
    with GenericEnvClient(base_url=url, message_timeout_s=300).sync() as env:
        while done < steps:
            env.reset(example=domain)
            for a in plan:
                result = env.step({"action": a})
                assert result.observation["verdict"] == "applied", result.observation
                done += 1
            assert result.done and result.observation["done_reason"] == "goal"
    return done


def websocket_rate(url: str, pid: int, domain: str, plan: list[str], steps: int, sessions: int) -> tuple[float, float]:
    """(steps per wall second, steps per server CPU second) with `sessions` sessions playing at once."""
    play(url, domain, plan, len(plan))  # warm the server's truths (untimed)
    counts = [0] * sessions

    def run(k):
        counts[k] = play(url, domain, plan, steps // sessions)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(sessions)]
    c0, w0 = cpu_seconds(pid), time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall, cpu = time.perf_counter() - w0, cpu_seconds(pid) - c0
    return sum(counts) / wall, sum(counts) / max(cpu, 1e-9)


def in_process_rate(domain: str, plan: list[str], steps: int) -> tuple[float, float]:
    """Steps/s of the OpenEnv Environment object called directly (CPU, wall)."""
    from acptools_openenv import AcptoolsAction
    from acptools_openenv.server.acptools_environment import AcptoolsEnvironment
    from acptools_openenv.server.backend import Backend

    from acptools.environments.session import Settings

    env = AcptoolsEnvironment(Backend.create(Settings(max_steps=10_000), []))
    actions = [AcptoolsAction(action=a) for a in plan]
    replay(lambda: env.reset(example=domain), env.step, actions, len(plan))  # warm the truths (untimed)
    n, cpu, wall = timed(lambda: replay(lambda: env.reset(example=domain), env.step, actions, steps))
    return n / cpu, n / wall


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--domain", default="ferry", help="a bundled example")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--sessions", default="1,4", help="concurrent WebSocket sessions, comma-separated")
    args = ap.parse_args(argv)
    os.environ.setdefault("ACPTOOLS_CACHE", "off")
    from tests.support.openenv_server import OpenEnvServer

    plan = optimal_plan(args.domain)
    print(f"{args.domain}: an optimal plan of {len(plan)} steps, replayed; {args.steps} steps per row")
    g_cpu, g_wall, bare, _ = gym_rate(args.domain, args.steps)
    e_cpu, e_wall = in_process_rate(args.domain, plan, args.steps)
    print(f"  bare Episode.step (in process)        {bare:8.0f} steps/s (CPU)")
    print(f"  Gymnasium acptools/Planning-v0        {g_cpu:8.0f} steps/s (CPU) {g_wall:8.0f} (wall)")
    print(f"  OpenEnv Environment (in process)      {e_cpu:8.0f} steps/s (CPU) {e_wall:8.0f} (wall)")
    with tempfile.TemporaryDirectory() as tmp, OpenEnvServer(Path(tmp), "--max-steps", "10000") as server:
        for n in (int(x) for x in args.sessions.split(",")):
            wall, server_cpu = websocket_rate(server.url, server.proc.pid, args.domain, plan, args.steps, n)
            print(
                f"  OpenEnv WebSocket, {n} session(s)       {wall:8.0f} steps/s (wall) "
                f"{server_cpu:8.0f} per server CPU s; WebSocket/Gym (wall) = {wall / g_wall:.2f}"
            )


if __name__ == "__main__":
    main()
