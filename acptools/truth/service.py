"""The truth service: the one object every door asks about a task's states.

A `TruthService` holds tasks by the content key of their PDDL (loaded under the caller's limits,
read from and kept in the proof store: acptools.proofs.kept_tasks), the `StateTruth` of each state
asked about in a bounded cache, and the proof store those truths read and write. The MCP tools, the
scorer, episodes, rewards, environments, rollouts and question generation all ask it, so what one
of them proved (in this process, or in an earlier run through the store) the others read.

A service follows the process's active proof store (`acptools.proofs.store.use`) unless it is made
with a store of its own: the MCP server's is bound to its `--cache` store and holds as many tasks
as the server does.
"""

from __future__ import annotations

import weakref

from ..ground.grounding import MAX_GROUND_OPERATORS
from ..proofs import kept_tasks, store
from ..task import Task
from ..util.hashing import task_key
from ..util.lru import CacheMiss, LRUCache
from .state_truth import StateTruth

MAX_TASKS = 64
MAX_TRUTHS = 256
ACTIVE = "active"  # a service's store: whatever acptools.proofs.store.active() is at each call


class TruthService:
    """Tasks by content key, their states' truths in a bounded cache, and the proof store they use."""

    def __init__(
        self,
        proof_store: store.ProofStore | None | str = ACTIVE,
        max_tasks: int = MAX_TASKS,
        max_truths: int = MAX_TRUTHS,
    ):
        self._store = proof_store
        # the values are only ever made through get_or_make, so no caller asks why a key is missing
        self._tasks: LRUCache[str, Task] = LRUCache(max_tasks, remember_evicted=0, kind="task")
        self._truths: LRUCache[tuple, StateTruth] = LRUCache(max_truths, remember_evicted=0, kind="state truth")

    @property
    def store(self) -> store.ProofStore | None:
        """The proof store this service reads and writes now (None: none, or one that is broken)."""
        found = store.active() if self._store == ACTIVE else self._store
        return None if found is None or found.broken else found

    # ---- tasks -----------------------------------------------------------------------------------
    def task(
        self,
        domain_text: str,
        problem_text: str,
        max_operators: int = MAX_GROUND_OPERATORS,
        budget=None,
        max_bytes: int | None = None,
        max_actions: int | None = None,
    ) -> Task:
        """The task of two PDDL texts, loaded once (read from the proof store when it keeps it) under
        the limits of acptools.task.load_task; a task held already is returned as it is."""

        def load() -> Task:
            return kept_tasks.load(self.store, domain_text, problem_text, max_operators, budget, max_bytes, max_actions)

        return self._own(self._tasks.get_or_make(task_key(domain_text, problem_text), load))

    def adopt(self, task: Task) -> Task:
        """Hold a task loaded elsewhere, so the same PDDL is not grounded twice; returns it."""
        self._tasks.put(task.key, task)
        return self._own(task)

    def _own(self, task: Task) -> Task:
        _owners[task] = self
        return task

    def forget(self, task: Task) -> None:
        """Drop a task and every truth about it, so whoever drops the task frees its memory."""
        keys = [(self._tasks, task.key)] + [(self._truths, k) for k in self._truths.keys() if k[1] == id(task)]
        for cache, key in keys:
            try:
                cache.pop(key)
            except CacheMiss:  # another thread dropped it first
                pass

    # ---- states ----------------------------------------------------------------------------------
    def truth(self, task: Task, state: int) -> StateTruth:
        """The StateTruth of `task` in `state`, shared by every caller of this service."""
        _owners.setdefault(task, self)
        # keyed by the Task object too: a task evicted and loaded again is a new object (with its own
        # name tables), and its truths must not be mixed with the old one's
        return self._truths.get_or_make((task.key, id(task), state), lambda: StateTruth(task, state, self))

    def clear(self) -> None:
        """Empty the caches of tasks and of state truths."""
        self._tasks.clear()
        self._truths.clear()

    def sizes(self) -> dict:
        """How many tasks and state truths the caches hold."""
        return {"tasks": len(self._tasks), "truths": len(self._truths)}

    def holds(self, task: Task, state: int) -> bool:
        """Whether this service holds the truth of `task` in `state` (it was asked about it)."""
        return (task.key, id(task), state) in self._truths


# the service that loaded, adopted or answered about each task: `acptools.truth.truth_for` asks it
_owners: weakref.WeakKeyDictionary[Task, TruthService] = weakref.WeakKeyDictionary()


def owner(task: Task) -> TruthService | None:
    """The service that holds `task`, or None."""
    return _owners.get(task)
