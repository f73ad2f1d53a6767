"""Pydantic models of every tool result: each tool's ``outputSchema`` and structured content.

Field names are the tools' contract (docs/mcp.md lists the main ones). Descriptions only where a name
does not say enough: the shared conventions are in the server's instructions, and tools/list sends the
schemas short (server.schema).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field

from acptools.task import cost_text


def exact(value: Any) -> Any:
    """A cost on the wire, exactly: an int when whole, else its exact decimal text ("1.25"), or "n/d"
    when it has none; never a float. Lists and dicts (bounds) are converted item by item."""
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else cost_text(value)
    if isinstance(value, dict):
        return {k: exact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [exact(v) for v in value]
    return value


Cost = Annotated[int | str | None, BeforeValidator(exact)]  # h*, a regret: a step count or an action cost
Bounds = Annotated[dict, BeforeValidator(exact)]


class Result(BaseModel):
    """The base of every result model (a tool's structured content)."""


# ---- tasks and examples ------------------------------------------------------------------------


class Parameter(Result):
    """An action schema's parameter: its variable and type."""

    name: str
    type: str


class PredicateInfo(Result):
    """A predicate's name, parameters and PDDL signature."""

    name: str
    parameters: list[Parameter]
    signature: str


class ActionSchemaInfo(Result):
    """An action schema: parameters, precondition and effect as PDDL text."""

    name: str
    parameters: list[Parameter]
    signature: str
    precondition: str | None = None
    effect: str | None = None


class LoadTaskResult(Result):
    """load_task: the task's id and a summary of its objects, predicates, actions, init and goal."""

    task_id: str
    domain_name: str
    problem_name: str
    source: str  # 'text', 'files' or 'example:<name>'
    cached: bool
    objects_by_type: dict[str, list[str]]
    fluent_predicates: list[PredicateInfo]  # what states are made of
    static_predicates: list[PredicateInfo]  # fixed by the problem; never in a state
    action_schemas: list[ActionSchemaInfo]
    num_ground_actions: int = Field(
        description=(
            "type-correct ground actions: every parameter over the objects of its type, static facts ignored (an "
            "exact count, often astronomically above what can ever apply; not what --max-ground-actions limits)"
        )
    )
    num_possible_actions: int = Field(
        description=("ground actions whose static preconditions hold (what --max-ground-actions limits)")
    )
    num_propositions: int
    init: list[str]
    static_facts: list[str]
    goal: list[str]
    goal_formula: str
    truncated: bool = False  # long lists cut to fit the response (the task's PDDL resources hold them all)
    evicted_task_ids: list[str] = Field(default_factory=list)


class ExampleInfo(Result):
    """A bundled example: its name, fixed task id, resource URIs and size."""

    name: str
    task_id: str  # works as a task_id without load_task
    domain_name: str
    problem_name: str
    num_objects: int
    num_possible_actions: int
    goal: list[str]
    domain_uri: str
    problem_uri: str


class ListExamplesResult(Result):
    """list_examples: every bundled example."""

    examples: list[ExampleInfo]


# ---- app, prog, val, just ----------------------------------------------------------------------


class ListApplicableResult(Result):
    """list_applicable: the applicable actions of a state (one page of them)."""

    actions: list[str]
    total: int
    offset: int
    limit: int | None
    has_more: bool


class ProgressResult(Result):
    """progress: whether an action applies, the next state and its effects."""

    action: str
    applicable: bool
    state: list[str]
    positive_effects: list[str]
    negative_effects: list[str]
    unsatisfied_preconditions: list[str]
    goal_reached: bool
    numeric_effects: list[str] = []  # "(f o): old -> new" on a task with numeric fluents


class ValidatePlanResult(Result):
    """validate_plan: the first inapplicable action (0-based) or null, and whether the goal is reached."""

    first_inapplicable: int | None
    unsatisfied_preconditions: list[str]
    goal_reached: bool
    valid: bool
    unmet_goals: list[str]
    final_state: list[str]
    steps: int  # actions applied
    plan_length: int


class Removal(Result):
    """One way to shorten a plan: the removed indices and the plan that is left."""

    indices: list[int]
    plan: list[str] | None  # the plan without them (with_plans=true)


class SimplifyPlanResult(Result):
    """simplify_plan: every removal of one action or two consecutive ones that leaves a plan."""

    removable: list[Removal]
    plan_is_valid: bool
    plan_length: int


# ---- verdicts ----------------------------------------------------------------------------------


class VerdictResult(Result):
    """A yes/no/unknown verdict with how it is known and its witness plan."""

    query: str
    answer: bool | None
    how: str
    witness: list[str] | None
    detail: str = ""
    budget_seconds: float
    from_store: bool = False  # read from the proof store (--cache): proven by an earlier call or run


class LandmarkResult(VerdictResult):
    """is_landmark: a verdict, and whether the landmark is trivial."""

    trivial: bool | None


class Item(Result):
    """One item of a list answer and how it is proven."""

    name: str
    how: str


class ItemListResult(Result):
    """A list question's proven items, whether the list is complete, and what is still undecided.
    When the budget ran out the answer is partial: `items` are proven members, `refuted` proven
    non-members (each with how), `unknown` the undecided candidates."""

    items: list[Item]
    complete: bool  # the list is the whole answer
    total: int
    truncated: bool
    unknown: list[str]  # candidates the budget left undecided (the first of them)
    detail: str = ""
    budget_seconds: float
    unknown_total: int = 0  # how many candidates are undecided
    refuted: list[Item] = []  # a partial answer's candidates proven not to belong (the first of them)
    refuted_total: int = 0
    from_store: bool = False  # read from the proof store (--cache): proven by an earlier call or run


class ActionValue(Result):
    """One action's h* after it and regret; unknown: proven bounds."""

    action: str
    h_star_after: Cost
    regret: Cost
    optimal: bool | None
    known: bool
    bounds: Bounds = Field(default_factory=dict)  # unknown values: proven intervals


class OptimalNextResult(Result):
    """optimal_next_action: h*, every optimal next action, values asked for and a plan."""

    h_star: Cost
    optimal_actions: list[str]
    actions: list[ActionValue]
    plan: list[str] | None
    how: str
    known: bool
    goal_reached: bool
    bounds: Bounds = Field(default_factory=dict)  # unknown: h_star_lower, h_star_upper, upper_plan (that long)
    detail: str = ""
    budget_seconds: float
    from_store: bool = False  # read from the proof store (--cache): proven by an earlier call or run
    metric: str = "length"  # what h* and regrets measure: "cost" (the task's action costs) or "length"


class PlanResult(Result):
    """plan: a plan (optimal when proven so), its length and h*."""

    answer: bool | None
    how: str
    plan: list[str] | None
    length: int | None
    cost: Cost = None  # the plan's cost in the metric (its length under "length")
    optimal: bool
    h_star: Cost
    bounds: Bounds = Field(default_factory=dict)  # unknown optimal plan: h_star_lower, h_star_upper, upper_plan
    detail: str = ""
    budget_seconds: float
    from_store: bool = False  # read from the proof store (--cache): proven by an earlier call or run
    metric: str = "length"  # what h* measures: "cost" (the task's action costs) or "length"


# ---- scoring -----------------------------------------------------------------------------------


class ScoreResult(Result):
    """score_answer: the score, verdict, reason, witness and metrics of one graded answer."""

    task: str
    score: int | None  # 1 correct, 0 wrong, None undecided
    verdict: str
    reason: str
    witness: list[str] | None = None
    metrics: dict[str, Any] = Field(default_factory=dict)
    parsed: dict[str, Any] = Field(default_factory=dict)
    semantics: str = "exact"


# ---- episodes ----------------------------------------------------------------------------------


class StartEpisodeResult(Result):
    """start_episode: the episode's id, start state, h*, the applicable actions (the first `limit` of
    them) and whether it is over at once (the goal holds, or is proven out of reach)."""

    episode_id: str
    task_id: str
    state: list[str]
    goal_reached: bool
    h_star: Cost
    h_star_known: bool
    how: str
    applicable_actions: list[str]
    applicable_total: int
    done: bool
    done_reason: str | None  # goal, dead_end (the goal proven out of reach), or None while it goes on
    bounds: Bounds = Field(default_factory=dict)  # h* unknown: h_star_lower, h_star_upper (None: no plan found)
    evicted_episode_ids: list[str] = Field(default_factory=list)
    metric: str = "length"  # what h*, regrets and excess_length measure: "cost" or "length"


class StepEpisodeResult(Result):
    """step_episode: one graded step: applied or why not, optimal, regret, the new state."""

    episode_id: str
    step: int
    action: str
    verdict: str  # applied, inapplicable, unparsed or hallucinated
    applied: bool
    reason: str
    state: list[str]
    positive_effects: list[str]
    negative_effects: list[str]
    optimal: bool | None
    regret: Cost
    h_star_before: Cost
    h_star_after: Cost
    h_star_known: bool
    bounds: Bounds = Field(default_factory=dict)  # unknown values: proven intervals on h* before/after and regret
    goal_reached: bool
    applicable_actions: list[str]
    applicable_total: int
    done: bool
    done_reason: str | None  # goal, dead_end (the goal proven out of reach), or None while it goes on


class EpisodeStep(Result):
    """One step of an episode as the summary lists it."""

    step: int
    action: str
    verdict: str
    applied: bool
    optimal: bool | None
    regret: Cost
    reason: str = ""


class EpisodeSummaryResult(Result):
    """episode_summary: steps, invalid actions, optimal-step rate, the plan and whether it solved the task."""

    episode_id: str
    task_id: str
    steps: int
    applied_steps: int
    invalid_actions: int
    invalid: dict[str, int]  # invalid attempts by verdict
    optimal_steps: int
    unknown_optimality_steps: int
    optimal_step_rate: float | None  # over applied steps of known optimality
    mean_regret: float | None
    plan: list[str]
    plan_length: int
    h_star_start: Cost
    excess_length: Cost  # plan_length (plan_cost under metric "cost") - h_star_start
    plan_cost: Cost = None  # metric "cost": the plan's cost
    metric: str = "length"
    length_ratio: float | None
    solved: bool
    dead_end: bool  # the goal is proven out of reach from the episode's state
    start_state: list[str]
    state: list[str]
    history: list[EpisodeStep]


# ---- server ------------------------------------------------------------------------------------


class ServerInfo(Result):
    """server_info: version, transport, profile, limits and what is loaded or running."""

    name: str
    version: str
    mcp_sdk_version: str
    transport: str
    filesystem_access: bool
    root: str | None
    limits: dict[str, Any]  # every limit by its flag's name (max_tasks for --max-tasks)
    profile: str | None
    hidden_tools: list[str]
    tasks_loaded: int
    episodes_live: int
    memory_bytes: int  # estimated bytes of the tasks held (cached or under an episode), against max_memory
    searches_running: int
    searches_waiting: int
    searches_cancelled: int
    searches_stopping: int  # cancelled, still stopping their work
    loads_running: int
    planners_running: int
    proof_store: str | None  # the proof store file (--cache), or null
    scorer_available: bool
