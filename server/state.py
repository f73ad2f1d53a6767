"""What the tools share while the server runs (the task and episode stores, the search runner, the
configuration), handed to them through the MCP SDK's lifespan context.

A tool function takes a ``Context`` and calls :func:`state_of` on it. To call a tool function without
a client (tests, scripts), build a state with :meth:`ServerState.create` and pass
``local_context(state)``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from server.config import ServerConfig
from server.runner import SearchRunner
from server.stores import EpisodeStore, TaskStore


@dataclass
class ServerState:
    config: ServerConfig
    tasks: TaskStore
    episodes: EpisodeStore
    runner: SearchRunner

    @classmethod
    def create(cls, config: ServerConfig) -> ServerState:
        limits = config.limits
        return cls(config, TaskStore(config), EpisodeStore(limits), SearchRunner(limits.max_concurrent_searches))

    def seconds(self, budget: float | None) -> float:
        """A tool's budget argument in seconds: the default when absent, never above the maximum."""
        limits = self.config.limits
        if budget is None:
            return float(limits.default_budget)
        if budget > limits.max_budget:
            raise ToolError(f"budget: {budget:g} s is more than the server allows ({limits.max_budget:g} s); "
                            "pass a smaller budget, or start the server with a larger --max-budget")
        return float(budget)


def lifespan(config: ServerConfig) -> Callable[[Any], AbstractAsyncContextManager[ServerState]]:
    """The SDK lifespan: one state per running server; searches still in flight at shutdown are stopped."""

    @asynccontextmanager
    async def run(_server: Any) -> AsyncIterator[ServerState]:
        state = ServerState.create(config)
        try:
            yield state
        finally:
            state.runner.cancel_all()

    return run


def state_of(ctx: Context) -> ServerState:
    return ctx.request_context.lifespan_context


def local_context(state: ServerState) -> Context:
    """A Context carrying ``state``, for calling tool functions directly (no client, no session)."""
    request = ServerRequestContext(session=None, lifespan_context=state, protocol_version="", method="tools/call")
    return Context(request_context=request)
