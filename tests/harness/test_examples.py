"""The scripts in examples/ run end to end: real processes, a real acptools MCP server over stdio,
and scripted models behind the official openai and anthropic SDKs (a real local HTTP server).

What the scripted models are told is checked against pyperplan's grounding and unified-planning's
oracle, never against acptools itself; every plan an example prints is replayed by pyperplan."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from acptools import examples
from tests.support.data import ROOT
from tests.support.oracle import Oracle
from tests.support.scripted_api import FERRY_SCRIPT, KEYS, ScriptedModel, in_order, request_text
from tests.support.simulator import goal_reached, strips_task, trajectory

SERVER = f"{sys.executable} -m acptools_server --log-level WARNING --profile policy"  # the repository's server, as agents under test see it


def run_example(name: str, *args, env: dict) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in KEYS}
    environ.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), *args],
        capture_output=True,
        text=True,
        env=environ,
        cwd=ROOT,
        timeout=300,
    )


def ferry_plan() -> list[str]:
    """A shortest plan of the bundled ferry task, walked down the oracle's distances."""
    oracle = Oracle(*examples.texts("ferry"))
    state = oracle.init_atoms()
    graph, dist = oracle.graph(state), oracle.distances(state)
    plan = []
    while dist[state]:
        action, state = next((a, t) for a, t in graph[state] if dist.get(t) == dist[state] - 1)
        plan.append(action)
    return plan


def _replays(plan: list[str]) -> bool:
    domain, problem = examples.texts("ferry")
    states = trajectory(domain, problem, plan)
    return states is not None and goal_reached(domain, problem, states[-1])


def test_openai_policy_example(tmp_path):
    with ScriptedModel(in_order(FERRY_SCRIPT)) as model:
        proc = run_example(
            "openai_policy.py",
            "--model",
            "scripted",
            "--base-url",
            model.openai_url,
            "--tasks",
            "ferry",
            "--out",
            str(tmp_path / "t.jsonl"),
            env={},
        )
    assert proc.returncode == 0, proc.stderr
    ferry_row = next(line for line in proc.stdout.splitlines() if line.startswith("ferry "))
    assert ferry_row.split()[1:6] == ["1", "100.0", "0", "80.0", "0.20"]  # episodes, solved%, dead, optimal%, regret
    assert "solved 1/1 episodes; 4/5 applied steps optimal" in proc.stdout
    assert "{'inapplicable': 1, 'unparsed': 1, 'hallucinated': 1}" in proc.stdout
    steps = [json.loads(line) for line in open(tmp_path / "t.jsonl") if '"kind": "step"' in line]
    assert _replays([s["action"] for s in steps if s["verdict"] == "applied"])
    assert all(body["temperature"] == 0 for _, body in model.requests) and len(model.requests) == len(FERRY_SCRIPT)


def test_agent_as_validator_repairs_rejected_steps():
    replies = [
        "I'll debark first: (debark c1 l1)",
        "(sail l0 l1)",
        "Board the car now.\n(board c1 l1)",
        "(sail l1 l9)",
        "(sail l1 l2)",
        "(debark c1 l2)",
    ]
    with ScriptedModel(in_order(replies)) as model:
        proc = run_example(
            "agent_as_validator.py",
            "--example",
            "ferry",
            "--model",
            "scripted",
            "--base-url",
            model.openai_url,
            "--server",
            SERVER,
            env={"OPENAI_API_KEY": "test-key"},
        )
    assert proc.returncode == 0, proc.stderr
    plan = ["(sail l0 l1)", "(board c1 l1)", "(sail l1 l2)", "(debark c1 l2)"]
    assert f"goal reached with 4 actions, 2 rejected proposals: {json.dumps(plan)}" in proc.stdout
    assert _replays(plan) and set(model.keys) == {"test-key"}
    # the repair prompts say why, as pyperplan's grounding sees it
    task, ops = strips_task(*examples.texts("ferry"))
    missing = {p.lower() for p in ops["(debark c1 l1)"].preconditions} - {a.lower() for a in task.initial_state}
    second = request_text("openai", model.requests[1][1])
    assert "(debark c1 l1) cannot be applied here (unsatisfied preconditions:" in second
    assert all(atom in second.split("cannot be applied here")[1].split("\n")[0] for atom in missing)
    assert "unknown object 'l9'" in request_text("openai", model.requests[4][1])
    assert "Plan so far: (sail l0 l1) (board c1 l1)" in request_text("openai", model.requests[4][1])


def test_claude_agent_uses_the_mcp_tools_and_submits_a_valid_plan():
    plan = ferry_plan()
    wrong = plan[1:]  # starts with an action that is not applicable yet

    def script(api, body):
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        task_id = re.search(r"task_id on the acptools tools is (\w+)", body["messages"][0]["content"]).group(1)
        return [
            [
                {"type": "text", "text": "Let me look around."},
                {"type": "tool_use", "name": "list_applicable", "input": {"task_id": task_id}},
            ],
            [{"type": "tool_use", "name": "progress", "input": {"task_id": task_id, "action": plan[0]}}],
            [{"type": "tool_use", "name": "submit_plan", "input": {"plan": wrong}}],
            [{"type": "tool_use", "name": "validate_plan", "input": {"task_id": task_id, "plan": plan}}],
            [{"type": "tool_use", "name": "submit_plan", "input": {"plan": plan}}],
        ][turn]

    with ScriptedModel(script) as model:
        proc = run_example(
            "claude_agent.py",
            "--example",
            "ferry",
            "--model",
            "scripted-claude",
            "--base-url",
            model.url,
            "--server",
            SERVER,
            env={"ANTHROPIC_API_KEY": "test-key"},
        )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [f"valid plan of {len(plan)} actions:", *plan] and _replays(plan)
    bodies = [body for _, body in model.requests]
    assert len(bodies) == 5 and set(model.keys) == {"test-key"}
    assert {t["name"] for t in bodies[0]["tools"]} == {"list_applicable", "progress", "validate_plan", "submit_plan"}
    results = [
        json.loads(m["content"][0]["content"])
        for m in bodies[-1]["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
    ]
    oracle = Oracle(*examples.texts("ferry"))
    assert results[0]["actions"] == oracle.applicable(oracle.init_atoms())  # list_applicable, from the server
    assert (
        results[1]["applicable"]
        and set(results[1]["state"]) == set(oracle.successor(oracle.init_atoms(), plan[0])) - _statics()
    )
    assert results[2]["valid"] is False and results[2]["first_inapplicable"] == 0  # the wrong plan came back
    assert results[3]["valid"] is True


def _statics() -> set[str]:
    """Atoms of the initial state that no action adds or deletes (pyperplan's grounding)."""
    task, ops = strips_task(*examples.texts("ferry"))
    changed = {a.lower() for op in ops.values() for a in op.add_effects | op.del_effects}
    return {a.lower() for a in task.initial_state} - changed
