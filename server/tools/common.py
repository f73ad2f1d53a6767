"""What every tool module shares: the ``tool`` decorator (registration data and the one error
translation), the argument types, and reading names once at the boundary.

Tool inputs are read by the library exactly once (``task.parse_state``, ``parse_action``,
``parse_plan``, ``parse_atom``); ids travel inside. The library's errors already say where
(``state[2]: ...``, ``plan[3]: ...``); here they only gain the element's text.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import logging
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any

from acptools_server.config import Limits
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from acptools import AcpError, BudgetExceeded, Task

log = logging.getLogger("acptools.server")

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
LOADS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)
MUTATES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)

MAX_NAME_CHARS = 10_000
MAX_LIST_LIMIT = 100_000
DEFAULT_LIST_LIMIT = 200

# Arguments carry a description only where the instructions' shared conventions do not cover them.
Name = Annotated[str, Field(max_length=MAX_NAME_CHARS)]
TaskId = Annotated[str, Field(max_length=64)]
EpisodeId = Annotated[str, Field(max_length=64)]
StateArg = list[Name] | None
AtomArg = Annotated[str, Field(max_length=MAX_NAME_CHARS)]
ActionArg = Annotated[str, Field(max_length=MAX_NAME_CHARS)]
PlanArg = list[Name] | str
BudgetArg = Annotated[float | None, Field(gt=0)]
LimitArg = Annotated[int | None, Field(ge=1, le=MAX_LIST_LIMIT)]


DEFAULT_TOO_BIG = "ask about a smaller state or a shorter plan"  # tools with a limit say "pass a smaller limit"


@dataclass(frozen=True)
class ToolSpec:
    """A tool's name, title, annotations, description, argument names and what to ask for when a
    result is too big."""

    name: str
    title: str
    annotations: ToolAnnotations
    description: str
    arguments: tuple[str, ...]  # what a caller may pass (the Context is the server's)
    too_big: str  # what to ask instead when a result is over --max-response-bytes


def tool(
    title: str, annotations: ToolAnnotations = READ_ONLY, too_big: str = DEFAULT_TOO_BIG
) -> Callable[[Callable], Callable]:
    """Mark a module-level function as an MCP tool: its docstring is the description, and every failure
    becomes a ToolError (bad input keeps its message; a bug is logged and reported without details).
    ``too_big`` tells a caller what to ask instead of a result that is too large to send."""

    def mark(fn: Callable) -> Callable:
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def wrapper(*args: Any, **kwargs: Any) -> Any:
                with _errors(fn.__name__):
                    return await fn(*args, **kwargs)
        else:

            @functools.wraps(fn)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                with _errors(fn.__name__):
                    return fn(*args, **kwargs)

        arguments = tuple(name for name in inspect.signature(fn).parameters if name != "ctx")
        wrapper.spec = ToolSpec(
            fn.__name__, title, annotations, " ".join((fn.__doc__ or "").split()), arguments, too_big
        )
        return wrapper

    return mark


@contextmanager
def _errors(tool_name: str) -> Iterator[None]:
    """Turn every failure into a ToolError. Cancellation (a BaseException) passes through untouched."""
    try:
        yield
    except ToolError:
        raise
    except Exception as exc:
        raise _tool_error(tool_name, exc) from None


def _tool_error(tool_name: str, exc: Exception) -> ToolError:
    if isinstance(exc, ValidationError):  # a result model rejected what we built: our bug, not the input
        log.exception("tool %s built an invalid result", tool_name, exc_info=exc)
        return ToolError(
            f"internal error in {tool_name} (invalid result); the server is still running. "
            "Please report this together with the arguments that caused it."
        )
    # AcpError is a ValueError, and so are the library's own checks; a big int written as text is a bug
    if isinstance(exc, ValueError) and not writes_a_big_int(exc):
        return ToolError(str(exc))
    if isinstance(exc, BudgetExceeded):
        return ToolError(f"{tool_name} ran out of its budget ({exc or 'time is up'}); try again with a larger budget")
    if isinstance(exc, RecursionError):
        return ToolError("the input is nested too deeply to process")
    if isinstance(exc, MemoryError):
        return ToolError("the server ran out of memory on this input; try a smaller task or a smaller budget")
    log.error("tool %s failed unexpectedly", tool_name, exc_info=exc)
    return ToolError(
        f"internal error in {tool_name} ({type(exc).__name__}); the server is still running. "
        "Please report this together with the arguments that caused it."
    )


def writes_a_big_int(exc: ValueError) -> bool:
    """Whether Python refused to write an int of too many digits (a state or mask written as text by
    mistake): a ValueError, but a bug to log and report as one, never the caller's input."""
    return not isinstance(exc, AcpError) and "integer string conversion" in str(exc)


# ---- results on the wire -------------------------------------------------------------------------


def compact(result: CallToolResult) -> CallToolResult:
    """The text copy of a structured result as compact JSON (the SDK indents it)."""
    if result.is_error or result.structured_content is None:
        return result
    text = json.dumps(result.structured_content, separators=(",", ":"), ensure_ascii=False)
    return result.model_copy(update={"content": [TextContent(type="text", text=text)]})


def wire_bytes(result: CallToolResult) -> int:
    """A tool result's size on the wire, as --max-response-bytes counts it."""
    return len(result.model_dump_json(by_alias=True, exclude_none=True).encode("utf-8", "surrogatepass"))


def sent_bytes(result: BaseModel) -> int:
    """The size on the wire of a tool's result model once the server sends it (structured and as text):
    what a tool that changes the server's state checks before it lets the change stand."""
    structured = result.model_dump(mode="json", by_alias=True)
    return wire_bytes(compact(CallToolResult(content=[], structured_content=structured)))


# ---- the scorer -------------------------------------------------------------------------------

SCORER_MODULE = "acptools.scoring"


@functools.cache
def scorer() -> Any:
    """The scorer module, imported on first use (it loads the answer grammar, which the other tools never
    need); None when this environment lacks it, so the other tools keep working."""
    try:
        return importlib.import_module(SCORER_MODULE)
    except ImportError:
        log.warning("%s cannot be imported; score_answer is unavailable", SCORER_MODULE)
        return None


# ---- names, read once --------------------------------------------------------------------------

_INDEXED = re.compile(r"^(\w+)\[(\d+)\]$")


def located(exc: AcpError, given: Any) -> ToolError:
    """The library's error, with the text of the list element it points at (``state[1] '(at c0 l9)'``)."""
    where = exc.where
    m = _INDEXED.match(where)
    if m and isinstance(given, list) and int(m.group(2)) < len(given):
        where = f"{where} {given[int(m.group(2))]!r}"
    text = f"{where}: {exc.what}" if where else exc.what
    return ToolError(text + (f" ({exc.suggestion})" if exc.suggestion else ""))


def read_state(task: Task, state: list[str] | None, limits: Limits) -> int:
    """The state as the library's bitset (None: the initial state); a list longer than the server
    accepts is refused before any atom is read."""
    if state is None:
        return task.init
    if len(state) > limits.max_state_atoms:
        raise ToolError(
            f"state: {len(state)} atoms is more than the server accepts ({limits.max_state_atoms}); "
            "list only the true fluent atoms, or start the server with a larger --max-state-atoms"
        )
    try:
        return task.parse_state(state)
    except AcpError as exc:
        raise located(exc, state) from None


def read_action(task: Task, action: str) -> int:
    """The id of an action given as text; a ToolError pointing at it when it does not parse."""
    try:
        return task.parse_action(action, "action")
    except AcpError as exc:
        raise located(exc, action) from None


def read_atom(task: Task, atom: str) -> int:
    """The id of an atom given as text; a ToolError pointing at it when it does not parse."""
    try:
        return task.parse_atom(atom, where="atom")
    except AcpError as exc:
        raise located(exc, atom) from None


def read_plan(task: Task, plan: list[str] | str, limits: Limits) -> list[int]:
    """Action ids of a plan, within the configured length."""
    if isinstance(plan, str) and len(plan) > limits.max_pddl_bytes:
        raise ToolError(f"plan: {len(plan)} characters is more than the server accepts ({limits.max_pddl_bytes})")
    if isinstance(plan, list):
        _check_plan_length(len(plan), limits)
    try:
        ids = task.parse_plan(plan)
    except AcpError as exc:
        raise located(exc, plan) from None
    _check_plan_length(len(ids), limits)
    return ids


def _check_plan_length(n: int, limits: Limits) -> None:
    if n > limits.max_plan_length:
        raise ToolError(
            f"plan: {n} actions is more than the server accepts ({limits.max_plan_length}); "
            "send a shorter plan, or start the server with a larger --max-plan-length"
        )
