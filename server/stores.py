"""The server's bounded stores: loaded tasks (bundled examples resolve on their own) and live episodes.

Bookkeeping only: every question is answered by ``acptools``. A miss is a tool error that says
whether the id was never known or was dropped to make room, and what to call instead.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import anyio
from acptools import Task, examples, load_task, task_key
from acptools.episode import Episode
from acptools.lru import CacheMiss, LRUCache
from mcp.server.mcpserver.exceptions import ToolError

from server.config import Limits, PathAccessError, ServerConfig

EXAMPLE_PREFIX = "example:"
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ToolCacheMiss(ToolError, CacheMiss):
    """An unknown or evicted id; a ToolError, so raised inside a tool the client reads the message."""

    def __init__(self, message: str, *, key: object, evicted: bool) -> None:
        CacheMiss.__init__(self, message, key=key)
        self.evicted = evicted


class ToolCache(LRUCache[K, V]):
    """An LRU cache whose misses are tool errors, worded by the optional ``unknown`` / ``evicted``
    templates (``{key}`` and ``{max_items}`` are filled in)."""

    def __init__(self, max_items: int, *, kind: str = "item", unknown: str = "", evicted: str = "") -> None:
        super().__init__(max_items, kind=kind)
        self._texts = {False: unknown, True: evicted}

    def miss(self, key: K, evicted: bool) -> ToolCacheMiss:
        template = self._texts[evicted]
        message = template.format(key=key, max_items=self.max_items) if template else super().miss(key, evicted).message
        return ToolCacheMiss(message, key=key, evicted=evicted)


def check_text_size(text: str, arg: str, limits: Limits) -> None:
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limits.max_pddl_bytes:
        raise ToolError(
            f"{arg}: {size} bytes is more than the server accepts ({limits.max_pddl_bytes} bytes); "
            "send a smaller task, or start the server with a larger --max-pddl-bytes"
        )


@functools.cache
def example_ids() -> dict[str, str]:
    """task_id -> name of every bundled example (ids are content hashes, so they never change)."""
    return {task_key(*examples.texts(name))[:16]: name for name in examples.names()}


class TaskStore:
    """Loaded tasks by task_id, at most ``limits.max_tasks`` (least recently used evicted first).

    A bundled example needs no load_task: ``example:<name>`` always resolves, and an example's id
    resolves until the cache has once held and dropped it (then, like any task, it must be loaded
    again, so a caller learns that the cache is too small).
    """

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.limits = config.limits
        self._tasks = ToolCache(
            self.limits.max_tasks, kind="task",
            unknown="unknown task_id {key!r}: no task with this id is loaded. Call load_task first (with PDDL "
                    "text or example=...) and pass the task_id it returns, or pass example:<name> for a bundled "
                    "example (list_examples)",
            evicted="task_id {key!r} is no longer loaded: the server keeps at most {max_items} tasks and dropped "
                    "the least recently used one. Call load_task again with the same PDDL (it gets the same task_id)",
        )

    def __len__(self) -> int:
        return len(self._tasks)

    def get(self, task_id: str) -> Task:
        if task_id.startswith(EXAMPLE_PREFIX):
            return self.load(*examples.texts(task_id[len(EXAMPLE_PREFIX):].strip()))[0]
        try:
            return self._tasks.get(task_id)
        except ToolCacheMiss as miss:
            name = example_ids().get(task_id)
            if miss.evicted or name is None:
                raise
            return self.load(*examples.texts(name))[0]

    def load(self, domain: str, problem: str) -> tuple[Task, bool, list[str]]:
        """(task, already cached, evicted task ids).  Both arguments must be PDDL text (never paths)."""
        if "(" not in domain or "(" not in problem:  # the library would read a path: never let it
            raise ToolError("domain and problem must be PDDL text")
        key = task_key(domain, problem)
        try:
            task = self._tasks.get(key[:16])
            if task.key == key:
                return task, True, []
        except ToolCacheMiss:
            pass
        task = load_task(domain, problem)
        if task.num_possible_actions > self.limits.max_ground_actions:
            raise ToolError(
                f"the task has {task.num_possible_actions} ground actions, more than the server accepts "
                f"({self.limits.max_ground_actions}); use a smaller problem, or start the server with a larger "
                "--max-ground-actions"
            )
        return task, False, self._tasks.put(task.id, task)

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
        try:
            path = self.config.resolve_under_root(name)
        except PathAccessError as exc:
            raise PathAccessError(f"{arg}: {exc}") from None
        if not path.is_file():
            raise PathAccessError(f"{arg}: no such file below the root: {name!r}")
        size = path.stat().st_size
        if size > self.limits.max_pddl_bytes:
            raise ToolError(
                f"{arg}: file {name!r} has {size} bytes, more than the server accepts "
                f"({self.limits.max_pddl_bytes}); start the server with a larger --max-pddl-bytes"
            )
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PathAccessError(f"{arg}: cannot read {name!r}: {type(exc).__name__}") from None
        if "(" not in text:
            raise ToolError(f"{arg}: file {name!r} does not hold PDDL (no '(' in it)")
        return text, True


@dataclass
class LiveEpisode:
    """An episode the server holds; its lock lets one step run at a time."""

    episode_id: str
    episode: Episode
    lock: anyio.Lock = field(default_factory=anyio.Lock)


class EpisodeStore:
    def __init__(self, limits: Limits) -> None:
        self._episodes = ToolCache(
            limits.max_episodes, kind="episode",
            unknown="unknown episode_id {key!r}: call start_episode first and pass the episode_id it returns",
            evicted="episode_id {key!r} is no longer available: the server keeps at most {max_items} episodes and "
                    "dropped the least recently used one. Call start_episode again",
        )

    def __len__(self) -> int:
        return len(self._episodes)

    def add(self, episode: Episode) -> tuple[LiveEpisode, list[str]]:
        """The episode under a new id, and the ids dropped to make room."""
        live = LiveEpisode("ep-" + secrets.token_hex(8), episode)
        return live, self._episodes.put(live.episode_id, live)

    def get(self, episode_id: str) -> LiveEpisode:
        return self._episodes.get(episode_id)
