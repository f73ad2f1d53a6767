"""The server's bounded stores: loaded tasks (bundled examples resolve on their own) and live episodes,
held within one byte budget.

Bookkeeping only: every question is answered by ``acptools``. A miss is a tool error that says
whether the id was never known or was dropped to make room, and what to call instead.
"""

from __future__ import annotations

import functools
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field
from itertools import accumulate
from typing import TypeVar

import anyio
from acptools_server.config import Limits, ServerConfig
from acptools_server.files import read_below_root
from acptools_server.search_runner import SearchRunner, give_memory_back
from mcp.server.mcpserver.exceptions import ToolError

from acptools import AcpError, Budget, BudgetExceeded, Task, examples, task_key, truth
from acptools.episode import Episode
from acptools.util.lru import CacheMiss, LRUCache

EXAMPLE_PREFIX = "example:"
BIG_LOAD_BYTES = 50_000  # PDDL texts larger than this ground one (or a few) at a time
MAX_NESTING = 2_000  # parenthesis levels a PDDL text may nest (far beyond any real domain)
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ToolCacheMiss(ToolError, CacheMiss):
    """An unknown or evicted id; a ToolError, so raised inside a tool the client reads the message."""

    def __init__(self, message: str, *, key: object, evicted: bool) -> None:
        CacheMiss.__init__(self, message, key=key)
        self.evicted = evicted


class ToolCache(LRUCache[K, V]):
    """An LRU cache whose misses are tool errors, worded by the optional ``unknown`` / ``evicted``
    templates (``{key}``, ``{max_items}`` and ``{max_bytes}`` are filled in). :meth:`drop` evicts a
    key on another store's behalf (the shared byte budget), and it is reported as evicted too."""

    def __init__(
        self,
        max_items: int,
        *,
        kind: str = "item",
        unknown: str = "",
        evicted: str = "",
        max_bytes: int | None = None,
        sizeof=None,
    ) -> None:
        super().__init__(max_items, kind=kind, max_bytes=max_bytes, sizeof=sizeof)
        self._texts = {False: unknown, True: evicted}
        self._dropped: OrderedDict[K, None] = OrderedDict()

    def put(self, key: K, value: V) -> list[K]:
        """Store a value (the key no longer counts as dropped); returns the keys evicted."""
        self._dropped.pop(key, None)
        return super().put(key, value)

    def drop(self, key: K) -> V:
        """Remove `key` on the shared memory budget's behalf and remember it as evicted; returns its value."""
        value = self.pop(key)
        self._dropped[key] = None
        while len(self._dropped) > 1024:
            self._dropped.popitem(last=False)
        return value

    def miss(self, key: K, evicted: bool) -> ToolCacheMiss:
        """The tool error for a missing key, worded as unknown or evicted."""
        evicted = evicted or key in self._dropped
        template = self._texts[evicted]
        if not template:
            return ToolCacheMiss(super().miss(key, evicted).message, key=key, evicted=evicted)
        message = template.format(key=key, max_items=self.max_items, max_bytes=self.max_bytes)
        return ToolCacheMiss(message, key=key, evicted=evicted)


def check_text_size(text: str, arg: str, limits: Limits) -> None:
    """Raise a ToolError when a PDDL text is larger than --max-pddl-bytes."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limits.max_pddl_bytes:
        raise ToolError(
            f"{arg}: {size} bytes is more than the server accepts ({limits.max_pddl_bytes} bytes); "
            "send a smaller task, or start the server with a larger --max-pddl-bytes"
        )


def check_pddl(text: str, arg: str, limits: Limits) -> None:
    """Size and nesting depth of a PDDL text, checked before anything reads it."""
    check_text_size(text, arg, limits)
    if "\x00" in text:
        raise ToolError(f"{arg}: the PDDL text holds a NUL character at offset {text.index(chr(0))}")
    parens = re.sub(r"[^()]", "", text)
    depth = max(accumulate(1 if c == "(" else -1 for c in parens), default=0)
    if depth > MAX_NESTING:
        raise ToolError(
            f"{arg}: the PDDL nests {depth} parentheses deep, more than the server reads "
            f"({MAX_NESTING}); flatten the nested formulas"
        )


@functools.cache
def example_ids() -> dict[str, str]:
    """task_id -> name of every bundled example (ids are content hashes, so they never change)."""
    return {task_key(*examples.texts(name))[:16]: name for name in examples.names()}


# ---- the byte budget ---------------------------------------------------------------------------


class Memory:
    """The bytes the server holds for its callers: cached tasks and the tasks of live episodes, each
    distinct task counted once at ``task.approx_bytes`` (the library's estimate of a task and its
    engines). Past ``max_bytes``, the least recently used cached tasks go first, then the least
    recently used episodes; a task no store holds any more is dropped from the library's caches."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.lock = threading.RLock()
        self._caches: dict[str, ToolCache] = {}
        self._held: dict[str, dict[str, Task]] = {}  # store -> key -> the task it holds

    def register(self, store: str, cache: ToolCache) -> None:
        """Let the memory budget evict from `store`'s cache (its tasks are counted as they are put)."""
        self._caches[store] = cache
        self._held[store] = {}

    def bytes_held(self) -> int:
        """The estimated bytes of the distinct tasks the stores hold."""
        with self.lock:
            return sum(t.approx_bytes for t in self._distinct().values())

    def _distinct(self) -> dict[int, Task]:
        return {id(t): t for held in self._held.values() for t in held.values()}

    def fits(self, task: Task) -> None:
        """Raise a ToolError when a task alone is larger than the memory budget."""
        if task.approx_bytes > self.max_bytes:
            raise ToolError(
                f"the task needs about {task.approx_bytes / 1e6:.0f} MB, more than the server holds "
                f"for all tasks together ({self.max_bytes / 1e6:.0f} MB); use a smaller problem, or start "
                "the server with a larger --max-memory"
            )

    def put(self, store: str, key: str, value, task: Task) -> list[str]:
        """``value`` (holding ``task``) under ``key`` in ``store``; returns the keys ``store`` lost."""
        with self.lock:
            before = self._distinct()
            cache, held = self._caches[store], self._held[store]
            lost = cache.put(key, value)
            held[key] = task
            for k in lost:
                held.pop(k, None)
            lost += [k for s, k in self._make_room({(store, key)}) if s == store]
            self._forget(before)
            return lost

    def settle(self) -> list[tuple[str, str]]:
        """Evict least recently used tasks and episodes until the held bytes fit again: a call grows its
        task (engines, their caches), and the budget holds after every call, not only after a load.
        Returns the (store, key) pairs dropped."""
        with self.lock:
            before = self._distinct()
            newest = {(s, cache.keys()[-1]) for s, cache in self._caches.items() if len(cache)}
            dropped = self._make_room(newest)
            self._forget(before)
            return dropped

    def _make_room(self, keep: set[tuple[str, str]]) -> list[tuple[str, str]]:
        """Drop least recently used entries (tasks first), never those in `keep`, until the bytes fit."""
        dropped = []
        while sum(t.approx_bytes for t in self._distinct().values()) > self.max_bytes:
            victim = next(((s, k) for s in self._caches for k in self._caches[s].keys() if (s, k) not in keep), None)
            if victim is None:
                break
            self._caches[victim[0]].drop(victim[1])
            self._held[victim[0]].pop(victim[1], None)
            dropped.append(victim)
        return dropped

    def _forget(self, before: dict[int, Task]) -> None:
        """Forget the tasks of `before` that no store holds now (taken out of `before`, so that nothing
        here keeps them alive while they are collected)."""
        now = self._distinct()
        gone = [before.pop(key) for key in list(before) if key not in now]
        if not gone:
            return
        while gone:
            truth.forget_task(gone.pop())
        give_memory_back()  # a task holds reference cycles: collected now, its pages handed back


# ---- tasks -------------------------------------------------------------------------------------


class TaskStore:
    """Loaded tasks by task_id, at most ``limits.max_tasks`` (least recently used evicted first).

    A bundled example needs no load_task: ``example:<name>`` always resolves, and an example's id
    resolves until the cache has once held and dropped it (then, like any task, it must be loaded
    again, so a caller learns that the cache is too small). Loading grounds in a runner under the
    load budget, through the server's truth service (which reads kept grounded tasks from the proof
    store); texts above BIG_LOAD_BYTES take turns.
    """

    def __init__(self, config: ServerConfig, memory: Memory, service: truth.TruthService) -> None:
        self.config = config
        self.limits = config.limits
        self.memory = memory
        self.truth = service
        self.quick_loads = SearchRunner(None)
        self.big_loads = SearchRunner(self.limits.max_concurrent_loads)
        self._tasks = ToolCache(
            self.limits.max_tasks,
            kind="task",
            max_bytes=self.limits.max_memory,
            sizeof=lambda t: t.approx_bytes,
            unknown="unknown task_id {key!r}: no task with this id is loaded. Call load_task first (with PDDL "
            "text or example=...) and pass the task_id it returns, or pass example:<name> for a bundled "
            "example (list_examples)",
            evicted="task_id {key!r} is no longer loaded: the server keeps at most {max_items} tasks and "
            "{max_bytes} bytes of tasks and episodes, and dropped the least recently used one. Call "
            "load_task again with the same PDDL (it gets the same task_id)",
        )
        memory.register("task", self._tasks)

    def __len__(self) -> int:
        return len(self._tasks)

    def get(self, task_id: str) -> Task:
        """The task of a task_id (an "example:" id loads a bundled example); a ToolCacheMiss when
        unknown or evicted."""
        if task_id.startswith(EXAMPLE_PREFIX):
            return self._example(task_id[len(EXAMPLE_PREFIX) :].strip())
        try:
            return self._tasks.get(task_id)
        except ToolCacheMiss as miss:
            name = example_ids().get(task_id)
            if miss.evicted or name is None:
                raise
            return self._example(name)

    def _example(self, name: str) -> Task:
        """A bundled example (small: loaded at once, no budget needed)."""
        domain, problem = examples.texts(name)
        task = self.cached(domain, problem)
        if task is None:
            task = self.truth.task(domain, problem)
            self._put(task)
        return task

    def cached(self, domain: str, problem: str) -> Task | None:
        """The cached task of these PDDL texts, or None."""
        try:
            task = self._tasks.get(task_key(domain, problem)[:16])
        except ToolCacheMiss:
            return None
        return task if task.key == task_key(domain, problem) else None

    def _put(self, task: Task) -> list[str]:
        return self.memory.put("task", task.id, task, task)

    def add(self, task: Task) -> list[str]:
        """Keep a task its caller grounded (or keep it longest, when it is here): the calls of its tools
        find it by its task_id, and the truth service holds it. Returns the evicted task ids."""
        return self._put(self.truth.adopt(task))

    def ground(self, domain: str, problem: str) -> Task:
        """The task of two PDDL texts, grounded within the limits and kept, as ``load`` does; blocking,
        for a caller in a thread of its own (an environment that plays episodes beside the tools)."""
        _refuse_paths(domain, problem)
        task = self.cached(domain, problem)
        if task is None:
            task = self._ground(domain, problem, Budget(self.limits.load_budget))
            self._put(task)
        return task

    async def load(self, domain: str, problem: str) -> tuple[Task, bool, list[str]]:
        """(task, already cached, evicted task ids).  Both arguments must be PDDL text (never paths)."""
        _refuse_paths(domain, problem)
        task = self.cached(domain, problem)
        if task is not None:
            return task, True, []
        big = len(domain) + len(problem) > BIG_LOAD_BYTES
        runner = self.big_loads if big else self.quick_loads
        task = await runner.run(lambda b: self._ground(domain, problem, b), self.limits.load_budget)
        return task, False, self._put(task)

    def _ground(self, domain: str, problem: str, budget: Budget) -> Task:
        """Parse and ground under the load budget, within the size limits (memory and ground actions are
        checked from the lifted model, before anything is grounded)."""
        check_pddl(domain, "domain", self.limits)
        check_pddl(problem, "problem", self.limits)
        limit = self.limits.max_ground_actions
        try:
            task = self.truth.task(
                domain,
                problem,
                max_operators=2 * limit,
                budget=budget,
                max_bytes=self.limits.max_memory,
                max_actions=limit,
            )
        except BudgetExceeded as exc:
            raise ToolError(
                f"loading the task ran out of its budget ({exc}); it is too large to ground within "
                f"{self.limits.load_budget:g} s (--load-budget)"
            ) from None
        except AcpError as exc:
            raise ToolError(_too_large(exc, limit) or str(exc)) from None
        if len(task.possible_actions(budget)) > limit:  # listed under the load budget
            raise ToolError(
                f"the task has {task.num_possible_actions} ground actions, more than the server accepts "
                f"({limit}); use a smaller problem, or start the server with a larger --max-ground-actions"
            )
        self.memory.fits(task)
        return task

    def read_source(self, value: str, arg: str) -> tuple[str, bool]:
        """PDDL text as given, or (with --root) the text of a file below the root. Returns (text, from_file)."""
        if "(" in value:
            check_text_size(value, arg, self.limits)
            return value, False
        if not value.strip():
            raise ToolError(f"{arg} is empty: pass PDDL text such as '(define (domain ...) ...)'")
        if self.config.root is None:
            raise ToolError(
                f"{arg} {value[:80]!r} is not PDDL text (no '(') and the server reads no files: pass the PDDL text "
                "itself, or start the server with --root DIR to allow paths below DIR"
            )
        name = value.strip()
        text = read_below_root(name, str(self.config.root), self.limits.max_pddl_bytes, arg)
        if "(" not in text:
            raise ToolError(f"{arg}: file {name!r} does not hold PDDL (no '(' in it)")
        return text, True


def _refuse_paths(domain: str, problem: str) -> None:
    """Both must be PDDL text: the library would read a path, and a caller must never make it."""
    if "(" not in domain or "(" not in problem:
        raise ToolError("domain and problem must be PDDL text")


def _too_large(exc: AcpError, limit: int) -> str | None:
    """The library's refusal of a task too large for the server's limits, naming the flag to raise."""
    if exc.where == "memory":
        return f"{exc.what}; use a smaller problem, or start the server with a larger --max-memory"
    if exc.where == "budget":
        return f"{exc.what}; use a smaller problem, or start the server with a larger --load-budget"
    if exc.where == "ground actions":
        return f"{exc.what}; use a smaller problem, or start the server with a larger --max-ground-actions"
    if exc.where == "grounding":
        return (
            f"the task grounds to more than {2 * limit} operators, more ground actions than the server accepts "
            f"({limit}); use a smaller problem, or start the server with a larger --max-ground-actions"
        )
    return None


# ---- episodes ----------------------------------------------------------------------------------


@dataclass
class LiveEpisode:
    """An episode the server holds; its lock lets one step run at a time."""

    episode_id: str
    episode: Episode
    lock: anyio.Lock = field(default_factory=anyio.Lock)


class EpisodeStore:
    """Live episodes by id, in an LRU cache under the shared memory budget."""

    def __init__(self, limits: Limits, memory: Memory) -> None:
        self.memory = memory
        self._episodes = ToolCache(
            limits.max_episodes,
            kind="episode",
            unknown="unknown episode_id {key!r}: call start_episode first and pass the episode_id it returns",
            evicted="episode_id {key!r} is no longer available: the server keeps at most {max_items} episodes (and "
            f"{limits.max_memory} bytes of tasks and episodes) and dropped the least recently used one. "
            "Call start_episode again",
        )
        memory.register("episode", self._episodes)

    def __len__(self) -> int:
        return len(self._episodes)

    def add(self, episode: Episode) -> tuple[LiveEpisode, list[str]]:
        """The episode under a new id, and the ids dropped to make room."""
        live = LiveEpisode("ep-" + secrets.token_hex(8), episode)
        return live, self.memory.put("episode", live.episode_id, live, episode.task)

    def get(self, episode_id: str) -> LiveEpisode:
        """The live episode of an episode_id; a ToolCacheMiss when unknown or evicted."""
        return self._episodes.get(episode_id)
