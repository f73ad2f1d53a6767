"""What every session of one server process shares: how episodes are played (settings, the
environment's own starts), the acptools MCP server whose tools a session may call (under the tool
profile), and that server's state, whose task store grounds every task a reset asks for within the
MCP server's limits (PDDL size, load budget, ground actions, memory) and keeps it where the tools
find it by its task_id.
"""

from __future__ import annotations

from dataclasses import dataclass

from acptools_server.app import build_server
from acptools_server.config import Limits, ServerConfig
from acptools_server.state import ServerState, start_process
from mcp.server.mcpserver import MCPServer
from openenv.core.env_server.mcp_types import RESERVED_TOOL_NAMES

from acptools import Task
from acptools.environments.session import Settings
from acptools.environments.task_sources import Start

PROFILE_HELP = (
    "which acptools tools a step may call: none (default: no tool use), policy (hides the tools that "
    "give plans or optimal actions away), qa (hides every tool that answers an ACP question), "
    "qa:KIND[+KIND], or all"
)


def server_config(tool_profile: str, budget: float, cache: str | None = None) -> ServerConfig:
    """The MCP server's configuration for a tool profile ('none': it lists no tool)."""
    profile = tool_profile.strip().lower()
    limits = Limits(default_budget=budget, max_budget=max(budget, Limits().max_budget))
    if profile == "none":
        return ServerConfig(tools=(), limits=limits, cache=cache, log_level="WARNING")
    return ServerConfig(profile=None if profile == "all" else profile, limits=limits, cache=cache, log_level="WARNING")


@dataclass
class Backend:
    """One process's shared settings, starts, MCP server and state (see the module docstring)."""

    settings: Settings
    starts: list[Start]
    tools_on: bool
    config: ServerConfig
    state: ServerState
    mcp_server: MCPServer

    @classmethod
    def create(
        cls, settings: Settings, starts: list[Start], tool_profile: str = "none", cache: str | None = None
    ) -> Backend:
        """A backend for one server process; it starts the process's planners' housekeeping (and opens
        the proof store `cache` names: a file, 'default', or None for none)."""
        config = server_config(tool_profile, settings.budget, cache)
        reserved = RESERVED_TOOL_NAMES & set(config.visible_tools())
        if reserved:  # OpenEnv keeps these names for its own API
            raise ValueError(f"tools named {sorted(reserved)} clash with OpenEnv's reserved names")
        start_process(config)
        state = ServerState.create(config)
        return cls(settings, starts, bool(config.visible_tools()), config, state, build_server(config, state))

    def load(self, domain: str, problem: str, budget: float) -> Task:
        """The task of two PDDL texts, grounded within the limits and kept for the tools (blocking)."""
        return self.state.tasks.ground(domain, problem)

    def keep(self, task: Task) -> None:
        """Make sure the tools find `task` by its id (a session's task may have been evicted)."""
        self.state.tasks.add(task)

    async def shutdown(self) -> None:
        """Stop the searches in flight and the planners they started."""
        await self.state.shutdown()
