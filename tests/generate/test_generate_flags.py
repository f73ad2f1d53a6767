"""`acptools generate --plan-share` and `--steps`: where the questions' states come from and how long
ActionReasoningBench's action sequences are, checked on the written records with the independent
oracle (tests/support/oracle.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import deque

from acptools import examples
from tests.support.data import ROOT
from tests.support.oracle import Oracle

FERRY = ROOT / "acptools" / "examples" / "ferry"


def _generate(tmp_path, *args, code=(0,)) -> list[dict]:
    """Records written by `acptools generate` on ferry (exit code 1: fewer records than -n of some kind)."""
    out = tmp_path / "records.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "acptools.cli",
            "generate",
            "--domain",
            str(FERRY / "domain.pddl"),
            "--problem",
            str(FERRY / "problem.pddl"),
            "--quiet",
            "--force",
            "--out",
            str(out),
            *map(str, args),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert done.returncode in code, done.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def _state(record: dict) -> frozenset[str]:
    """The record's state: its problem's init, as unified-planning reads it."""
    return Oracle(record["PDDL_domain"], record["PDDL_problem"]).init_atoms()


def _forward(oracle: Oracle, start) -> dict:
    """Steps from `start` to every reachable state (BFS over the oracle's graph)."""
    graph, dist, queue = oracle.graph(start), {start: 0}, deque([start])
    while queue:
        s = queue.popleft()
        for _, t in graph[s]:
            if t not in dist:
                dist[t] = dist[s] + 1
                queue.append(t)
    return dist


def test_plan_share_one_asks_about_states_on_optimal_plans(tmp_path):
    """With walks of length 0, --plan-share 0 can only ask about the initial state, while --plan-share 1
    asks about prefixes of optimal plans: g(s) + h*(s) = h*(init) by brute force."""
    oracle = Oracle(*examples.texts("ferry"))
    init = oracle.init_atoms()
    walks = _generate(
        tmp_path, "--form", "hard", "--tasks", "app", "-n", "5", "--walk", "0:0", "--plan-share", "0", code=(1,)
    )  # fewer distinct states than asked for
    assert {_state(r) for r in walks} == {init}
    plans = _generate(
        tmp_path, "--form", "hard", "--tasks", "app", "-n", "5", "--walk", "0:0", "--plan-share", "1", code=(1,)
    )  # a plan of 7 steps and its few prefixes
    states = {_state(r) for r in plans}
    h, g = oracle.distances(init), _forward(oracle, init)
    assert len(states) >= 3 and all(g[s] + h[s] == h[init] for s in states)


def test_steps_set_the_length_of_the_action_sequences(tmp_path):
    """Every question about the state after a sequence uses exactly --steps actions, and the oracle can
    run them from the record's state."""
    for k in (0, 3):
        recs = _generate(tmp_path, "--form", "arb", "-n", "4", "--steps", k, "--seed", "2", code=(0, 1))
        sequences = [
            part["after"]
            for r in recs
            if r["group"] != "arb_effects"  # effects: the action asked about too
            for part in (r["spec"].get("query"), r["spec"].get("claim"))
            if isinstance(part, dict) and "after" in part
        ]
        assert len(sequences) >= 4
        assert all(len(after) == k for after in sequences)
        for r in recs[:6]:
            for part in (r["spec"].get("query"), r["spec"].get("claim")):
                if isinstance(part, dict) and "after" in part:
                    assert Oracle(r["PDDL_domain"], r["PDDL_problem"]).run(_state(r), part["after"]) is not None


def test_bad_values_are_refused(tmp_path):
    for args, message in (
        (["--plan-share", "1.5"], "--plan-share must be between 0 and 1, got 1.5"),
        (["--steps", "1,x"], "expected integers separated by ','"),
    ):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "acptools.cli",
                "generate",
                "--domain",
                str(FERRY / "domain.pddl"),
                "--problem",
                str(FERRY / "problem.pddl"),
                "--out",
                str(tmp_path / "x.jsonl"),
                *args,
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=600,
        )
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
