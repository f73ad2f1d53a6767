"""What the tools share while the server runs (the truth service, the task and episode stores, the
search runner, the configuration), handed to them through the MCP SDK's lifespan context.

A tool function takes a ``Context`` and calls :func:`state_of` on it. To call a tool function without
a client (tests, scripts), build a state with :meth:`ServerState.create` and pass
``local_context(state)``.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
from acptools_server.config import ServerConfig
from acptools_server.holdings import EpisodeStore, Memory, TaskStore
from acptools_server.search_runner import SearchRunner
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from acptools import planners, truth
from acptools.proofs import store

log = logging.getLogger("acptools.server")
_states: weakref.WeakSet[ServerState] = weakref.WeakSet()
SHUTDOWN_WAIT = 20.0  # seconds the server waits at exit for cancelled calls to stop their planners


@dataclass
class ServerState:
    """What the server holds across calls: its config, truth service, task and episode stores, search
    runner and memory."""

    config: ServerConfig
    tasks: TaskStore
    episodes: EpisodeStore
    runner: SearchRunner
    memory: Memory
    truth: truth.TruthService

    @classmethod
    def create(cls, config: ServerConfig) -> ServerState:
        """A new state for `config`: a truth service bound to the --cache store (the active one, which
        start_process opened; none without --cache) holding the server's tasks, and stores sharing one
        memory budget."""
        limits = config.limits
        memory = Memory(limits.max_memory)
        service = truth.TruthService(store.active() if config.cache is not None else None, limits.max_tasks)
        state = cls(
            config,
            TaskStore(config, memory, service),
            EpisodeStore(limits, memory),
            SearchRunner(limits.max_concurrent_searches),
            memory,
            service,
        )
        _states.add(state)
        return state

    def __hash__(self) -> int:  # held in a WeakSet (by identity)
        return id(self)

    def seconds(self, budget: float | None) -> float:
        """A tool's budget argument in seconds: the default when absent, never above the maximum."""
        limits = self.config.limits
        if budget is None:
            return float(limits.default_budget)
        if budget > limits.max_budget:
            raise ToolError(
                f"budget: {budget:g} s is more than the server allows ({limits.max_budget:g} s); "
                "pass a smaller budget, or start the server with a larger --max-budget"
            )
        return float(budget)

    async def run(self, fn: Callable[[Any], Any], seconds: float) -> Any:
        """``fn(budget)`` in the search runner; afterwards the tasks held fit the memory budget again
        (the call may have grown its task's engines and caches)."""
        try:
            return await self.runner.run(fn, seconds)
        finally:
            self.memory.settle()

    @property
    def runners(self) -> tuple[SearchRunner, ...]:
        """Every search runner: the searches', and the task stores' quick and big loads."""
        return self.runner, self.tasks.quick_loads, self.tasks.big_loads

    async def shutdown(self) -> None:
        """Cancel every call in flight and wait until their threads and planners are gone."""
        for runner in self.runners:
            if not await runner.shutdown(SHUTDOWN_WAIT):
                log.warning("calls still running at shutdown; their planners are killed at exit")
        planners.kill_all()


def stop_everything(timeout: float = SHUTDOWN_WAIT) -> None:
    """Cancel every call of every server in this process, kill every planner, and wait (at most ``timeout``
    seconds) until their threads have returned and removed their work folders. Blocking: for a signal
    handler, when the event loop cannot run any more."""
    runners = [runner for state in list(_states) for runner in state.runners]
    for runner in runners:
        runner.cancel_all()
    planners.kill_all()
    end = time.monotonic() + timeout
    while any(runner.running for runner in runners) and time.monotonic() < end:
        time.sleep(0.02)


def start_process(config: ServerConfig) -> None:
    """What the process does once at start: remove work folders a crashed run left, cap planner memory,
    open the proof store when asked to."""
    removed = planners.remove_stale_folders()
    if removed:
        log.info("removed %d work folders that earlier runs left behind", removed)
    planners.limit_memory(config.limits.max_planner_memory)
    if config.cache is not None:
        found = store.use(config.cache)
        if found is not None and found.broken:
            log.warning("the proof store is not used: %s", found.broken)


def lifespan(config: ServerConfig) -> Callable[[Any], AbstractAsyncContextManager[ServerState]]:
    """The SDK lifespan: one state per running server; calls still in flight at shutdown are stopped."""

    @asynccontextmanager
    async def run(_server: Any) -> AsyncIterator[ServerState]:
        start_process(config)
        state = ServerState.create(config)
        previous = truth.use_service(state.truth)  # every door of the process asks the server's service
        try:
            yield state
        finally:
            with anyio.CancelScope(shield=True):  # the server may be stopping because it was cancelled
                await state.shutdown()
            truth.use_service(previous)
            if config.cache is not None:
                store.use(None)

    return run


def shared_lifespan(state: ServerState) -> Callable[[Any], AbstractAsyncContextManager[ServerState]]:
    """A lifespan that hands every connection the same state, which its owner created and shuts down
    (a process that serves several in-process MCP sessions over one set of stores)."""

    @asynccontextmanager
    async def run(_server: Any) -> AsyncIterator[ServerState]:
        yield state

    return run


def state_of(ctx: Context) -> ServerState:
    """The server's state from a tool call's context."""
    return ctx.request_context.lifespan_context


def local_context(state: ServerState) -> Context:
    """A Context carrying ``state``, for calling tool functions directly (no client, no session)."""
    request = ServerRequestContext(session=None, lifespan_context=state, protocol_version="", method="tools/call")
    return Context(request_context=request)
