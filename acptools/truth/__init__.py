"""The one door to the truth about a task's states (see service.py and state_truth.py).

    from acptools import truth
    task = truth.task_for(domain_text, problem_text)   # loaded once (or read from the proof store)
    truth.truth_for(task, state).h_star(budget)         # proven once, kept, stored
    truth.service()                                     # the process's TruthService

`truth_for` asks the service that holds the task (the one that loaded or adopted it: the MCP server's
for its tasks), else the process's; `task_for` and the rest ask the process's service, which follows
the active proof store (acptools.proofs.store.use). A server that installs its own (`use_service`)
makes every door of the process share its store and caches.
"""

from __future__ import annotations

from ..task import Task
from .service import ACTIVE, MAX_TASKS, MAX_TRUTHS, TruthService, owner
from .state_truth import StateTruth, allowance

__all__ = [
    "ACTIVE",
    "MAX_TASKS",
    "MAX_TRUTHS",
    "StateTruth",
    "TruthService",
    "allowance",
    "cache_sizes",
    "clear_caches",
    "forget_task",
    "service",
    "task_for",
    "truth_for",
    "use_service",
]

_default = TruthService()
_current = _default


def service() -> TruthService:
    """The process's truth service."""
    return _current


def use_service(chosen: TruthService | None) -> TruthService:
    """Make `chosen` the process's truth service (None: the library's default one); returns the one
    it replaces."""
    global _current
    previous, _current = _current, _default if chosen is None else chosen
    return previous


def task_for(domain_text: str, problem_text: str) -> Task:
    """A grounded task, loaded once per distinct (domain, problem) text by the process's service
    (and, with a proof store, grounded once across runs: acptools.proofs.kept_tasks)."""
    return _current.task(domain_text, problem_text)


def truth_for(task: Task, state: int) -> StateTruth:
    """The StateTruth of `task` in `state`, from the service that holds the task."""
    return (owner(task) or _current).truth(task, state)


def forget_task(task: Task) -> None:
    """Drop a task and every truth about it from the service that holds it."""
    (owner(task) or _current).forget(task)


def clear_caches() -> None:
    """Empty the process's service's caches of tasks and of state truths."""
    _current.clear()


def cache_sizes() -> dict:
    """How many tasks and state truths the process's service holds."""
    return _current.sizes()
