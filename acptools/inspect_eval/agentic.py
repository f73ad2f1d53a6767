"""The acptools MCP server as Inspect tools (stdio), under a tool allow-list."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import mcp_connection, mcp_server_stdio, mcp_tools

# tools that simulate the task (load it, list applicable actions, apply one, replay a plan) without
# answering the benchmark's questions for the model
DEFAULT_TOOLS = ("load_task", "list_applicable", "progress", "validate_plan")

SYSTEM = (
    "You may call tools that simulate the planning task. Call load_task with the PDDL domain and "
    "problem texts from the question (copy them exactly) to get a task_id, then pass that task_id to "
    "the other tools. When you are done, reply with the final answer only, in the format the question "
    "asks for."
)


def acptools_mcp(tools=DEFAULT_TOOLS, server_args: list[str] | None = None):
    """Inspect tools from the acptools MCP server, run over stdio with this Python (`python -m acptools_server`).
    tools: names or globs the model may call ("all" for every tool); server_args: extra command-line
    flags for the server."""
    server = mcp_server_stdio(
        name="acptools", command=sys.executable, args=["-m", "acptools_server", *(server_args or [])], env=_server_env()
    )
    return mcp_tools(server, tools="all" if tools == "all" else list(tools))


def _server_env() -> dict[str, str]:
    """The server runs from the source tree this acptools comes from (the subprocess gets only a few
    environment variables, so PYTHONPATH is set explicitly)."""
    root = Path(__file__).resolve().parents[2]
    paths = [str(root)] if (root / "server").is_dir() else []
    paths += [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return {"PYTHONPATH": os.pathsep.join(paths)} if paths else {}


@solver
def generate_with_server(source):
    """generate() with the tools of `source` (an MCP tool source already given to use_tools) served by
    one server process for the whole sample: the server keeps the tasks the model loaded between
    calls. Without the connection, Inspect would start a fresh server for every tool call."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        async with mcp_connection([source]):
            return await generate(state)

    return solve
