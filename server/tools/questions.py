"""The ACP question tools: app, prog, val, just, reach, areach, land, nexta, and plans.

Each reads its names once (``read_*``), asks the server's truth service for the state's truth
(``acptools.truth``: what it proves is kept, and with --cache stored, for every later caller; what
the store holds is served with ``from_store``), searching in the runner with the call's cancellable
budget, and copies the answer into its result model.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from acptools_server.models import (
    ActionValue,
    Item,
    ItemListResult,
    LandmarkResult,
    ListApplicableResult,
    OptimalNextResult,
    PlanResult,
    ProgressResult,
    Removal,
    SimplifyPlanResult,
    ValidatePlanResult,
    VerdictResult,
)
from acptools_server.state import ServerState, state_of
from acptools_server.tools.common import (
    DEFAULT_LIST_LIMIT,
    MAX_LIST_LIMIT,
    ActionArg,
    AtomArg,
    BudgetArg,
    LimitArg,
    PlanArg,
    StateArg,
    TaskId,
    located,
    read_action,
    read_atom,
    read_plan,
    read_state,
    tool,
)
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from acptools import AcpError, Budget, Task, Verdict, planners
from acptools.truth import StateTruth
from acptools.util.shortrepr import bounded_repr

MAX_UNKNOWN_SHOWN = 500


@bounded_repr
@dataclass
class Asked:
    """A tool call's task and state, read once; after a search, what its planners said when they failed."""

    app: ServerState
    task: Task
    state: int
    failed: str = ""

    def truth(self) -> StateTruth:
        """The state's truth, from the server's truth service (grounding what the state needs first)."""
        return self.app.truth.truth(self.task, self.state)

    async def search(self, budget: float | None, ask: Callable[[StateTruth, Budget], Any]) -> tuple[Any, float]:
        """``ask(truth, budget)`` in the runner; returns (its answer, the budget's seconds)."""
        seconds = self.app.seconds(budget)

        def work(b: Budget) -> Any:
            try:
                return ask(self.truth(), b)
            finally:
                failed = planners.failures(b)
                runs = Counter(map(str, failed))
                self.failed = "; ".join(text if n == 1 else f"{text} [{n} runs]" for text, n in runs.items())
                short = [f.memory_mb for f in failed if f.memory]
                if short:
                    self.failed += f" ({planners.memory_hint(max(short))})"

        return await self.app.run(work, seconds), seconds

    def detail(self, own: str, answered: bool) -> str:
        """A result's detail; an unknown answer also says which planners failed (crashed, out of memory)."""
        if answered or not self.failed:
            return own
        return "; ".join(filter(None, (own, f"planners that failed: {self.failed}")))

    async def decide(
        self, budget: float | None, query: int, names: list[str], question: Callable[..., Verdict]
    ) -> tuple[dict[str, Any], Verdict]:
        """A yes/no ``question(truth, id, budget)`` about one atom or action id: the verdict fields of
        its result, and the verdict."""
        v, seconds = await self.search(budget, lambda truth, b: question(truth, query, b))
        return dict(
            query=names[query],
            answer=v.answer,
            how=v.how,
            witness=v.witness,
            detail=self.detail(v.detail, v.answer is not None),
            budget_seconds=seconds,
            from_store=v.from_store,
        ), v


def asked(ctx: Context, task_id: str, state: list[str] | None) -> Asked:
    """The server state, the task and the state (the initial one when `state` is None) a question is about."""
    app = state_of(ctx)
    task = app.tasks.get(task_id)
    return Asked(app, task, read_state(task, state, app.config.limits))


def _items(a: Asked, result, limit: int | None, seconds: float) -> ItemListResult:
    items = [Item(name=i.name, how=i.how) for i in result.items][:limit]
    unknown = list(result.unknown)
    own = result.detail or (f"{len(unknown)} candidates undecided" if unknown else "")
    refuted = [] if result.complete else result.refuted  # a complete list refutes every other candidate
    return ItemListResult(
        items=items,
        complete=result.complete,
        total=result.total,
        truncated=result.total > len(items),
        unknown=unknown[:MAX_UNKNOWN_SHOWN],
        detail=a.detail(own, result.complete),
        budget_seconds=seconds,
        unknown_total=len(unknown),
        refuted=[Item(name=i.name, how=i.how) for i in refuted[:MAX_UNKNOWN_SHOWN]],
        refuted_total=len(refuted),
        from_store=result.from_store,
    )


# ---- app, prog, val, just ----------------------------------------------------------------------


@tool("Applicable actions (app)", too_big="pass limit (and offset) to read the actions a page at a time")
def list_applicable(
    ctx: Context,
    task_id: TaskId,
    state: StateArg = None,
    limit: Annotated[int | None, Field(ge=1, le=MAX_LIST_LIMIT)] = None,
    offset: Annotated[int, Field(ge=0)] = 0,
) -> ListApplicableResult:
    """The ground actions applicable in a state, sorted by name (app). Inputs: task_id, state, limit and offset
    (to page)."""
    a = asked(ctx, task_id, state)
    actions = a.truth().applicable()
    end = len(actions) if limit is None else offset + limit
    return ListApplicableResult(
        actions=actions[offset:end], total=len(actions), offset=offset, limit=limit, has_more=end < len(actions)
    )


@tool("Apply one action (prog)")
def progress(ctx: Context, task_id: TaskId, action: ActionArg, state: StateArg = None) -> ProgressResult:
    """Apply one ground action (prog): the next state and its effects, or the unsatisfied preconditions. Inputs:
    task_id, action, state."""
    a = asked(ctx, task_id, state)
    p = a.truth().progress(read_action(a.task, action))
    return ProgressResult(
        action=p.action,
        applicable=p.applicable,
        state=p.state,
        positive_effects=p.positive_effects,
        negative_effects=p.negative_effects,
        unsatisfied_preconditions=p.unsatisfied_preconditions,
        goal_reached=p.goal_reached,
        numeric_effects=p.numeric_effects,
    )


@tool("Validate a plan (val)")
def validate_plan(ctx: Context, task_id: TaskId, plan: PlanArg, state: StateArg = None) -> ValidatePlanResult:
    """Replay actions from a state (val): the first inapplicable index (null if all apply), why, and whether the
    goal is reached. Inputs: task_id, plan, state."""
    a = asked(ctx, task_id, state)
    actions = read_plan(a.task, plan, a.app.config.limits)
    v = a.truth().validate(tuple(actions))
    return ValidatePlanResult(
        first_inapplicable=v.first_inapplicable,
        unsatisfied_preconditions=v.unsatisfied_preconditions,
        goal_reached=v.goal_reached,
        valid=v.first_inapplicable is None and v.goal_reached,
        unmet_goals=v.unmet_goals,
        final_state=v.final_state,
        steps=v.steps,
        plan_length=len(actions),
    )


SIMPLIFY_TOO_BIG = "call it without with_plans (the indices say what to remove)"


@tool("Redundant actions (just)", too_big=SIMPLIFY_TOO_BIG)
async def simplify_plan(
    ctx: Context,
    task_id: TaskId,
    plan: PlanArg,
    state: StateArg = None,
    with_plans: bool = False,
    budget: BudgetArg = None,
) -> SimplifyPlanResult:
    """Single actions and consecutive pairs whose removal leaves a valid plan (just), as index lists;
    with_plans=true adds the plans. Inputs: task_id, plan, state, with_plans, budget."""
    a = asked(ctx, task_id, state)
    actions = read_plan(a.task, plan, a.app.config.limits)
    max_bytes = a.app.config.limits.max_response_bytes
    (removable, is_plan), _ = await a.search(
        budget,
        lambda truth, b: (
            removals_within(truth.simplify(actions, b), with_plans, max_bytes, b),
            truth.is_plan(tuple(actions)),
        ),
    )
    return SimplifyPlanResult(removable=removable, plan_is_valid=is_plan, plan_length=len(actions))


def removals_within(removals: list, with_plans: bool, max_bytes: int, budget: Budget) -> list[Removal]:
    """The removals as results, their plans (with_plans) counted as they are built: past ``max_bytes`` on
    the wire (the result goes out twice, as text and as structured content) the call is refused at once,
    before the rest is built."""
    out: list[Removal] = []
    if not removals:
        return out
    sizes = [len(json.dumps(action)) + 1 for action in removals[0].original]
    whole, size = sum(sizes), 0
    for r in removals:
        if not with_plans:
            out.append(Removal(indices=list(r.indices), plan=None))
            continue
        size += 2 * (whole - sum(sizes[i] for i in r.indices) + 40)
        if size > max_bytes:
            raise ToolError(
                f"the result would be more than {max_bytes} bytes (--max-response-bytes); {SIMPLIFY_TOO_BIG}"
            )
        budget.check()
        out.append(Removal(indices=list(r.indices), plan=r.plan))
    return out


# ---- reach, areach, land ----------------------------------------------------------------------


@tool("Can an atom ever hold? (reach)")
async def is_reachable(
    ctx: Context, task_id: TaskId, atom: AtomArg, state: StateArg = None, budget: BudgetArg = None
) -> VerdictResult:
    """Can the fluent atom ever become true from the state (reach)? true with a witness plan, false with a
    proof. Inputs: task_id, atom, state, budget."""
    a = asked(ctx, task_id, state)
    fields, _ = await a.decide(budget, read_atom(a.task, atom), a.task.atom_names, StateTruth.atom_reach)
    return VerdictResult(**fields)


@tool("Atoms that can never hold (reach)", too_big="pass a smaller limit")
async def unreachable_atoms(
    ctx: Context, task_id: TaskId, state: StateArg = None, limit: LimitArg = None, budget: BudgetArg = None
) -> ItemListResult:
    """Fluent atoms that can never become true from the state (reach), with proofs. Inputs: task_id, state,
    limit, budget."""
    a = asked(ctx, task_id, state)
    r, seconds = await a.search(budget, lambda truth, b: truth.unreachable_atoms(b))
    return _items(a, r, limit or DEFAULT_LIST_LIMIT, seconds)


@tool("Can an action ever apply? (areach)")
async def is_action_reachable(
    ctx: Context, task_id: TaskId, action: ActionArg, state: StateArg = None, budget: BudgetArg = None
) -> VerdictResult:
    """Can the ground action ever become applicable from the state (areach)? true with a witness plan, false
    with a proof. Inputs: task_id, action, state, budget."""
    a = asked(ctx, task_id, state)
    action_id = read_action(a.task, action)
    fields, _ = await a.decide(budget, action_id, a.task.action_names, StateTruth.action_reach)
    return VerdictResult(**fields)


@tool("Actions that never apply (areach)", too_big="pass a smaller limit")
async def unreachable_actions(
    ctx: Context, task_id: TaskId, state: StateArg = None, limit: LimitArg = None, budget: BudgetArg = None
) -> ItemListResult:
    """Ground actions that can never become applicable from the state (areach), with proofs. Inputs: task_id,
    state, limit, budget."""
    a = asked(ctx, task_id, state)
    lim = limit or DEFAULT_LIST_LIMIT
    r, seconds = await a.search(budget, lambda truth, b: truth.unreachable_actions(b, limit=lim))
    return _items(a, r, lim, seconds)


@tool("Is an atom a landmark? (land)")
async def is_landmark(
    ctx: Context, task_id: TaskId, atom: AtomArg, state: StateArg = None, budget: BudgetArg = None
) -> LandmarkResult:
    """Is the atom true on every plan from the state (land)? false with a witness plan that avoids it. Inputs:
    task_id, atom, state, budget."""
    a = asked(ctx, task_id, state)
    fields, v = await a.decide(budget, read_atom(a.task, atom), a.task.atom_names, StateTruth.landmark)
    return LandmarkResult(**fields, trivial=v.extra.get("trivial"))


@tool("All landmarks (land)", too_big="pass a smaller limit")
async def landmarks(
    ctx: Context, task_id: TaskId, state: StateArg = None, limit: LimitArg = None, budget: BudgetArg = None
) -> ItemListResult:
    """Every non-trivial fact landmark of the state (land), with proofs. Inputs: task_id, state, limit,
    budget."""
    a = asked(ctx, task_id, state)
    r, seconds = await a.search(budget, lambda truth, b: truth.landmarks(b))
    return _items(a, r, limit or DEFAULT_LIST_LIMIT, seconds)


# ---- nexta, plan -------------------------------------------------------------------------------


@tool("Optimal next actions (nexta)", too_big="ask without table=true, or pass actions to value only those")
async def optimal_next_action(
    ctx: Context,
    task_id: TaskId,
    state: StateArg = None,
    actions: list[ActionArg] | None = None,
    table: bool = False,
    budget: BudgetArg = None,
) -> OptimalNextResult:
    """h*, all optimal next actions, a plan (nexta); regrets of `actions` or all (table). Inputs: task_id, state,
    actions, table, budget."""
    a = asked(ctx, task_id, state)
    picked = [read_applicable(a, name) for name in actions or ()]
    r, seconds = await a.search(budget, lambda truth, b: truth.optimal_next(b, actions=picked, table=table))
    bounds = r.bounds()
    return OptimalNextResult(
        h_star=r.h_star,
        optimal_actions=r.optimal_actions,
        actions=[
            ActionValue(
                action=v.action,
                h_star_after=v.h_star_after,
                regret=v.regret,
                optimal=v.optimal,
                known=v.known,
                bounds=v.bounds(),
            )
            for v in r.actions
        ],
        plan=r.plan,
        how=r.how,
        known=r.known,
        goal_reached=a.task.is_goal(a.state),
        bounds=bounds,
        detail=a.detail(_bounds_detail(bounds), r.known),
        budget_seconds=seconds,
        from_store=r.from_store,
        metric=a.task.questions.metric,
    )


def read_applicable(a: Asked, name: str) -> int:
    """An action named by the caller that must be applicable in the state (a ToolError otherwise)."""
    try:
        return a.task.questions.applicable_ids([read_action(a.task, name)], a.state)[0]
    except AcpError as exc:
        raise located(exc, name) from None


def _bounds_detail(bounds: dict) -> str:
    """What an unknown h* is still proven to be (bounds: h_star_lower, h_star_upper; {} when known)."""
    if bounds.get("h_star_lower") is None:
        return ""
    upper = "no plan found" if bounds.get("h_star_upper") is None else f"<= {bounds['h_star_upper']} (upper_plan)"
    return f"budget ran out: h* >= {bounds['h_star_lower']}, {upper}"


@tool("Find a plan")
async def plan(
    ctx: Context, task_id: TaskId, state: StateArg = None, optimal: bool = True, budget: BudgetArg = None
) -> PlanResult:
    """A plan from the state to the goal and its cost: optimal (default; cheapest under action costs) or,
    with optimal=false, greedy. Inputs: task_id, state, optimal, budget."""
    a = asked(ctx, task_id, state)
    v, seconds = await a.search(budget, lambda truth, b: truth.plan(optimal, b))
    bounds = v.extra if optimal and v.answer is None else {}  # Questions.plan: the proven bounds
    detail = v.detail or _bounds_detail(bounds)
    return PlanResult(
        answer=v.answer,
        how=v.how,
        plan=v.witness,
        length=None if v.witness is None else len(v.witness),
        cost=None if v.witness is None else _plan_cost(a, v.witness),
        optimal=optimal,
        h_star=v.extra.get("h_star"),
        bounds=bounds,
        detail=a.detail(detail, v.answer is not None),
        budget_seconds=seconds,
        from_store=v.from_store,
        metric=a.task.questions.metric,
    )


def _plan_cost(a: Asked, plan: list[str]):
    """A found plan's cost in the task's metric (its length when that is "length")."""
    if a.task.questions.metric != "cost":
        return len(plan)
    return a.task.questions.plan_cost([read_action(a.task, name) for name in plan], a.state)


TOOLS = (
    list_applicable,
    progress,
    validate_plan,
    simplify_plan,
    is_reachable,
    unreachable_atoms,
    is_action_reachable,
    unreachable_actions,
    is_landmark,
    landmarks,
    optimal_next_action,
    plan,
)
