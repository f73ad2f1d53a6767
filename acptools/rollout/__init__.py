"""Evaluate a model or an agent as a policy: episodes on planning tasks, every step graded against h*.

    from acptools import rollout
    result = rollout.run(["acpbench-hard:dev:nexta"], "random", rollout.RolloutConfig(jobs=4), out="traces.jsonl")
    summary = rollout.summarize(result.rows)       # {"overall": {...}, "by_domain": {...}}
    print(rollout.table(summary))

    policy = rollout.make_policy("openai:my-model", base_url="http://localhost:8000/v1")
    rollout.run(rollout.load_tasks("example:NAME", "tasks/"), policy, rollout.RolloutConfig(show_applicable=True))

One module per job: `start_states` (what to roll out), `policies` (who chooses the actions),
`observations` (what a policy sees; template files you can replace), `run_episodes` (episodes in flight,
grading, ending), `inflight` (items in flight against one policy), `traces` (the JSONL file and
--resume), `rollout_report` (figures, table, JSON, plots), `defaults`; the command line is acptools.cli.rollout. docs/evaluating.md explains the metrics.

The names below load on first use, so `acptools --help` does not pay for the engines.
"""

from __future__ import annotations

import importlib

_HOME = {
    "run": "run_episodes",
    "run_async": "run_episodes",
    "RolloutConfig": "run_episodes",
    "RolloutResult": "run_episodes",
    "default_max_steps": "defaults",
    "RolloutTask": "start_states",
    "load_tasks": "start_states",
    "Policy": "policies",
    "Reply": "policies",
    "PolicyError": "policies",
    "FatalPolicyError": "policies",
    "make_policy": "policies",
    "FORMS": "policies",
    "OptimalPolicy": "policies",
    "RandomPolicy": "policies",
    "OpenAIPolicy": "policies",
    "AnthropicPolicy": "policies",
    "CommandPolicy": "policies",
    "PythonPolicy": "policies",
    "Observation": "observations",
    "Prompts": "observations",
    "summarize": "rollout_report",
    "table": "rollout_report",
    "json_report": "rollout_report",
    "write_plots": "rollout_report",
    "DEFINITIONS": "rollout_report",
    "TraceFile": "traces",
    "read_rows": "traces",
}
__all__ = list(_HOME)


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_HOME))
