"""Server-side state: the bounded task cache, episodes, and turning tool inputs into library inputs.

Everything here is bookkeeping and error reporting; every question is answered by ``acptools``.
Each failure a caller can fix becomes a :class:`ToolError` saying what is wrong, where (which
argument, which list element) and what to do instead.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from acptools import AcpError, Task, load_task
from acptools.names import split_plan
from acptools.grounded import split_atoms
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from server.app import Limits, PathAccessError, ServerConfig
from server.cache import BoundedCache, CacheKeyError
from server.models import EpisodeStep

log = logging.getLogger("acptools.server")


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------


def describe(exc: BaseException, where: str = "") -> str:
    """One line: where, what, and (for AcpError) the suggestion."""
    if isinstance(exc, AcpError):
        what, inner_where, suggestion = exc.what, exc.where, exc.suggestion
    else:
        what, inner_where, suggestion = str(exc), "", ""
    location = ", ".join(x for x in (where, inner_where) if x)
    text = f"{location}: {what}" if location else what
    if suggestion:
        text += f" ({suggestion})"
    return text


@contextmanager
def tool_errors(tool: str) -> Iterator[None]:
    """Turn every failure into a ToolError: bad input keeps its message, a bug gets a generic one.

    Cancellation (a BaseException) passes through untouched.
    """
    try:
        yield
    except ToolError:
        raise
    except ValidationError:  # a result model rejected what we built: our bug, not the caller's input
        log.exception("tool %s built an invalid result", tool)
        raise ToolError(f"internal error in {tool} (invalid result); the server is still running. "
                        "Please report this together with the arguments that caused it.") from None
    except (AcpError, ValueError) as exc:  # AcpError is a ValueError; so are the library's own checks
        raise ToolError(describe(exc)) from None
    except RecursionError:
        raise ToolError("the input is nested too deeply to process") from None
    except MemoryError:
        raise ToolError("the server ran out of memory on this input; try a smaller task or a smaller budget") from None
    except Exception as exc:  # a bug: log it with its traceback, tell the caller only that it happened
        log.exception("tool %s failed unexpectedly", tool)
        raise ToolError(
            f"internal error in {tool} ({type(exc).__name__}); the server is still running. "
            "Please report this together with the arguments that caused it."
        ) from None


# ---------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------


def check_text_size(text: str, arg: str, limits: Limits) -> None:
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limits.max_pddl_bytes:
        raise ToolError(
            f"{arg}: {size} bytes is more than the server accepts ({limits.max_pddl_bytes} bytes); "
            "send a smaller task, or start the server with a larger --max-pddl-bytes"
        )


def parse_state(task: Task, state: list[str] | str | None, arg: str = "state") -> int:
    """The state as the library's int, or the task's init for None; errors name the bad atom."""
    if state is None:
        return task.init
    atoms: list[str] | str = state
    if isinstance(state, str):  # one string: '(at c1 l0) (empty-ferry)' or a single atom
        atoms = split_atoms(state) if state.count("(") > 1 else [state]
    try:
        return task.parse_state(atoms)
    except AcpError as exc:
        if isinstance(atoms, list):
            for i, atom in enumerate(atoms):
                try:
                    task.parse_state([atom])
                except AcpError as one:
                    raise ToolError(describe(one, f"{arg}[{i}] {atom!r}")) from None
        raise ToolError(describe(exc, arg)) from None


def plan_actions(plan: list[str] | str, limits: Limits, arg: str = "plan") -> list[str]:
    """The plan as a list of action strings (one string is split like the library does), length-checked."""
    if isinstance(plan, str) and len(plan) > limits.max_pddl_bytes:
        raise ToolError(f"{arg}: {len(plan)} characters is more than the server accepts ({limits.max_pddl_bytes})")
    actions = split_plan(plan)
    if len(actions) > limits.max_plan_length:
        raise ToolError(
            f"{arg}: {len(actions)} actions is more than the server accepts ({limits.max_plan_length}); "
            "send a shorter plan, or start the server with a larger --max-plan-length"
        )
    return actions


def locate_plan_error(task: Task, actions: list[str], exc: AcpError, arg: str = "plan") -> ToolError:
    """A ToolError naming the first plan element the library cannot read."""
    for i, action in enumerate(actions):
        try:
            task.parse_action(action)
        except AcpError as one:
            return ToolError(describe(one, f"{arg}[{i}] {action!r}"))
    return ToolError(describe(exc, arg))


def action_name(task: Task, action: str, arg: str = "action") -> str:
    """Canonical name of a ground action (raises with a did-you-mean)."""
    try:
        return task.action_names[task.parse_action(action)]
    except AcpError as exc:
        raise ToolError(describe(exc, arg)) from None


def atom_name(task: Task, atom: str, arg: str = "atom") -> str:
    """Canonical name of a fluent atom (raises with a did-you-mean, or says it is static)."""
    try:
        return task.atom_names[task.parse_atom(atom)]
    except AcpError as exc:
        raise ToolError(describe(exc, arg)) from None


# ---------------------------------------------------------------------------
# tasks
# ---------------------------------------------------------------------------


class TaskStore:
    """Loaded tasks by task_id, at most ``limits.max_tasks`` (least recently used evicted first)."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.limits = config.limits
        self._tasks: BoundedCache[str, Task] = BoundedCache(self.limits.max_tasks, kind="task")
        self._by_text: dict[str, str] = {}  # sha256 of the texts -> task_id, for loaded tasks only
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._tasks)

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
        try:
            path = self.config.resolve_under_root(value.strip())
        except PathAccessError as exc:
            raise PathAccessError(f"{arg}: {exc}") from None
        if not path.is_file():
            raise PathAccessError(f"{arg}: no such file below the root: {value.strip()!r}")
        size = path.stat().st_size
        if size > self.limits.max_pddl_bytes:
            raise ToolError(
                f"{arg}: file {value.strip()!r} has {size} bytes, more than the server accepts "
                f"({self.limits.max_pddl_bytes}); start the server with a larger --max-pddl-bytes"
            )
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PathAccessError(f"{arg}: cannot read {value.strip()!r}: {type(exc).__name__}") from None
        if "(" not in text:
            raise ToolError(f"{arg}: file {value.strip()!r} does not hold PDDL (no '(' in it)")
        return text, True

    def load(self, domain: str, problem: str) -> tuple[Task, bool, list[str]]:
        """(task, already cached, evicted task ids).  Both arguments must be PDDL text (never paths)."""
        if "(" not in domain or "(" not in problem:  # the library would read a path: never let it
            raise ToolError("domain and problem must be PDDL text")
        key = hashlib.sha256(domain.encode("utf-8", "surrogatepass") + b"\0" +
                             problem.encode("utf-8", "surrogatepass")).hexdigest()
        with self._lock:
            task_id = self._by_text.get(key)
        if task_id is not None:
            try:
                return self._tasks.get(task_id), True, []
            except CacheKeyError:
                pass
        task = load_task(domain, problem)
        if task.num_possible_actions > self.limits.max_ground_actions:
            raise ToolError(
                f"the task has {task.num_possible_actions} ground actions, more than the server accepts "
                f"({self.limits.max_ground_actions}); use a smaller problem, or start the server with a larger "
                "--max-ground-actions"
            )
        evicted = self._tasks.put(task.id, task)
        with self._lock:
            self._by_text[key] = task.id
            if evicted:
                gone = set(evicted)
                for k in [k for k, v in self._by_text.items() if v in gone]:
                    del self._by_text[k]
        return task, False, evicted

    def get(self, task_id: str) -> Task:
        try:
            return self._tasks.get(task_id)
        except CacheKeyError as exc:
            if exc.evicted:
                raise ToolError(
                    f"task_id {task_id!r} is no longer loaded: the server keeps at most {self.limits.max_tasks} "
                    "tasks and dropped the least recently used one. Call load_task again with the same PDDL "
                    "(it gets the same task_id)"
                ) from None
            raise ToolError(
                f"unknown task_id {task_id!r}: no task with this id is loaded. Call load_task first "
                "(with PDDL text or example=...) and pass the task_id it returns"
            ) from None


# ---------------------------------------------------------------------------
# episodes
# ---------------------------------------------------------------------------


@dataclass
class Episode:
    episode_id: str
    task: Task
    start: int
    state: int
    h_start: int | None          # h*(start); None: unsolvable or unknown (see h_start_known)
    h_start_known: bool
    h_current: int | None        # h*(state), same convention
    h_current_known: bool
    history: list[EpisodeStep] = field(default_factory=list)
    plan: list[str] = field(default_factory=list)
    lock: anyio.Lock = field(default_factory=anyio.Lock)  # one step at a time per episode


class EpisodeStore:
    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._episodes: BoundedCache[str, Episode] = BoundedCache(limits.max_episodes, kind="episode")

    def __len__(self) -> int:
        return len(self._episodes)

    def new_id(self) -> str:
        return "ep-" + secrets.token_hex(8)

    def add(self, episode: Episode) -> list[str]:
        return self._episodes.put(episode.episode_id, episode)

    def get(self, episode_id: str) -> Episode:
        try:
            return self._episodes.get(episode_id)
        except CacheKeyError as exc:
            if exc.evicted:
                raise ToolError(
                    f"episode_id {episode_id!r} is no longer available: the server keeps at most "
                    f"{self.limits.max_episodes} episodes and dropped the least recently used one. "
                    "Call start_episode again"
                ) from None
            raise ToolError(
                f"unknown episode_id {episode_id!r}: call start_episode first and pass the episode_id it returns"
            ) from None
