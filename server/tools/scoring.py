"""score_answer: grade a free-text answer to an ACP question with ``acptools.scoring``."""

from __future__ import annotations

import dataclasses
import math
from typing import Annotated, Any

from acptools_server.holdings import check_text_size
from acptools_server.models import ScoreResult
from acptools_server.state import ServerState, state_of
from acptools_server.tools.common import (
    MAX_NAME_CHARS,
    SCORER_MODULE,
    BudgetArg,
    Name,
    StateArg,
    read_action,
    read_plan,
    read_state,
    scorer,
    tool,
)
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from acptools.answers import canonical_task

MAX_SHOWN_CHARS = 200  # of one string the scorer read from a response
MAX_SHOWN_ITEMS = 50  # of one list it read


def _jsonable(value: Any) -> Any:
    """Scorer results as JSON-ready data (dataclasses, pydantic models, tuples, sets, NaN)."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, BaseModel):
        return _jsonable(value.model_dump())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _jsonable({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonable(v) for v in value), key=str)
    return str(value)


def _short(value: Any) -> Any:
    """JSON data cut to a readable size: what the scorer read from a response is shown, never echoed whole."""
    if isinstance(value, str) and len(value) > MAX_SHOWN_CHARS:
        return f"{value[:MAX_SHOWN_CHARS]}... ({len(value)} characters)"
    if isinstance(value, list):
        shown = [_short(v) for v in value[:MAX_SHOWN_ITEMS]]
        return shown + ([f"... ({len(value) - MAX_SHOWN_ITEMS} more)"] if len(value) > MAX_SHOWN_ITEMS else [])
    if isinstance(value, dict):
        return {k: _short(v) for k, v in value.items()}
    return value


async def _record_call(module, app: ServerState, kind: str, record: dict, response: str, semantics: str):
    """The grading call for an ACPBench Hard record (its fields checked first, its task loaded by the
    server's store: under the load budget, the size limits and --max-memory)."""
    for key in ("PDDL_domain", "PDDL_problem"):
        if not isinstance(record.get(key), str):
            raise ToolError(
                f"record.{key} is missing or not a string: an ACPBench Hard record has "
                "PDDL_domain, PDDL_problem, group, question and answer"
            )
        check_text_size(record[key], f"record.{key}", app.config.limits)
    group = record.get("group")
    if group is not None:
        try:
            record_kind = canonical_task(str(group))
        except ValueError as exc:
            raise ToolError(f"record.group: {exc}") from None
        if record_kind != kind:
            raise ToolError(
                f"task is {kind!r} but the record is a {record_kind!r} question (group {group!r}); "
                f"pass task={record_kind!r}"
            )
    task, _, _ = await app.tasks.load(record["PDDL_domain"], record["PDDL_problem"])
    return lambda b: module.score_response(record, response, semantics=semantics, budget=b, task=task)


def _task_call(module, app: ServerState, kind: str, response: str, task_id: str, state, action, plan):
    """The grading call for a question about a loaded task: its names read once, here."""
    task = app.tasks.get(task_id)
    s = read_state(task, state, app.config.limits)
    action_id = None if action is None else read_action(task, action)
    plan_ids = None if plan is None else read_plan(task, plan, app.config.limits)
    return lambda b: module.score_answer(kind, response, task=task, state=s, action=action_id, plan=plan_ids, budget=b)


@tool("Grade an answer")
async def score_answer(
    ctx: Context,
    task: Annotated[str, Field(description="The question kind, e.g. nexta.", max_length=64)],
    response: str,
    record: dict[str, Any] | None = None,
    task_id: Annotated[str | None, Field(max_length=64)] = None,
    state: StateArg = None,
    action: Annotated[str | None, Field(max_length=MAX_NAME_CHARS)] = None,
    plan: list[Name] | str | None = None,
    semantics: Annotated[str, Field(description="exact or reference.", max_length=32)] = "exact",
    budget: BudgetArg = None,
) -> ScoreResult:
    """Grade a free-text answer to an ACP question by proof: score 1, 0 or null, why, and a witness. Inputs:
    task, response, and a record or task_id with state, action or plan."""
    try:
        kind = canonical_task(task)
    except ValueError as exc:
        raise ToolError(f"task: {exc}") from None
    app = state_of(ctx)
    check_text_size(response, "response", app.config.limits)
    module = scorer()
    if module is None:
        raise ToolError(
            f"the scorer ({SCORER_MODULE}) is not installed in this server's environment; "
            "update acptools to a version that ships it"
        )
    if record is not None:
        if task_id is not None or state is not None or action is not None or plan is not None:
            raise ToolError("pass either record=... or task_id=... (with state/action/plan), not both")
        call = await _record_call(module, app, kind, record, response, semantics)
    elif task_id is not None:
        if semantics != "exact":
            raise ToolError(
                f"semantics {semantics!r} applies only to ACPBench Hard records (pass record=...); "
                "a question on a loaded task is graded with semantics 'exact'"
            )
        call = _task_call(module, app, kind, response, task_id, state, action, plan)
    else:
        raise ToolError("pass record=... (an ACPBench Hard record) or task_id=... (a task from load_task)")
    result = await app.run(call, app.seconds(budget))
    return ScoreResult(
        task=kind,
        score=result.score,
        verdict=str(result.verdict),
        reason=_short(str(result.reason)),
        witness=_jsonable(result.witness),
        metrics=_jsonable(result.metrics or {}),
        parsed=_short(_jsonable(result.parsed or {})),
        semantics=str(result.semantics),
    )


TOOLS = (score_answer,)
