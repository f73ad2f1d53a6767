"""Outside planners (Fast Downward, SymK) run as processes under a Budget.

The package's face is what a long-running host (the MCP server) needs to keep planner processes in
check: how many run, kill them all, wait for a budget's planners to stop, their failures, the memory
cap, and the removal of work folders a crashed run left. The engines themselves are `fd` and `symk`.
"""

from __future__ import annotations

from .process import (
    failures,
    kill_all,
    limit_memory,
    memory_hint,
    memory_limit,
    remove_stale_folders,
    running,
    wait_stopped,
)

__all__ = [
    "failures",
    "kill_all",
    "limit_memory",
    "memory_hint",
    "memory_limit",
    "remove_stale_folders",
    "running",
    "wait_stopped",
]
