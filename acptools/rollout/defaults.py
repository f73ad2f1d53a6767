"""The rollout defaults and the forms --tasks and --policy take, in one import-free module so the
command line can describe them without loading the engines."""

from __future__ import annotations

from .. import examples

MAX_STEPS_UNKNOWN = 100  # the step limit when h* of the start is unknown or the goal unreachable
MAX_INVALID_REPLIES = 5  # invalid replies in a row that end an episode
BUDGET = 60.0  # CPU seconds to grade one step
TIMEOUT = 600.0  # seconds a model API or a command may take per reply
MAX_ERRORS = 5  # requests in a row that cannot reach a model API (after the SDK's retries): the run stops
MAX_ERRORS_HELP = (
    "stop the run after K requests in a row could not reach the model API (connection errors "
    "and timeouts, after the SDK's retries; default %(default)s; 0: never); --resume goes on"
)

POLICY_FORMS = "optimal, random, openai:MODEL, anthropic:MODEL, cmd:COMMAND, python:MODULE:FUNCTION"
TASKS_HELP = (
    "pass a named source (acpbench-hard:test, acpbench-hard:dev:nexta), record files (.json, .jsonl, "
    ".json.gz), a folder with domain.pddl and problem files, a problem .pddl file, or a bundled example "
    f"({', '.join(examples.names())})"
)


def default_max_steps(h_star: int | None) -> int:
    """2*h* + 10: room for a detour as long as the optimal plan, plus a few repairs."""
    return MAX_STEPS_UNKNOWN if h_star is None else 2 * h_star + 10
