"""Pydantic models of every tool result (they become each tool's ``outputSchema`` and structured content).

The main fields of each result (the tool table of docs/mcp.md) are the tools' contract: clients rely on
their names. The other fields add detail.  No logic lives here.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from server.app import Limits

# ---------------------------------------------------------------------------
# tasks and examples
# ---------------------------------------------------------------------------


class Parameter(BaseModel):
    name: str = Field(description="Variable name, e.g. '?c'.")
    type: str = Field(description="Its type; 'either a b' for a union type.")


class PredicateInfo(BaseModel):
    name: str
    parameters: list[Parameter]
    signature: str = Field(description="PDDL form, e.g. '(at ?c - car ?l - location)'.")


class ActionSchemaInfo(BaseModel):
    name: str
    parameters: list[Parameter]
    signature: str = Field(description="PDDL form, e.g. '(board ?car - car ?loc - location)'.")
    precondition: str | None = Field(default=None, description="The precondition as PDDL text.")
    effect: str | None = Field(default=None, description="The effect as PDDL text.")


class LoadTaskResult(BaseModel):
    task_id: str = Field(description="Stable content hash of the domain and problem text: pass it to every other tool.")
    domain_name: str
    problem_name: str
    source: str = Field(description="'text', 'files' or 'example:<name>'.")
    cached: bool = Field(description="True when this exact task was already loaded (nothing was re-parsed).")
    objects_by_type: dict[str, list[str]] = Field(description="Every type (including 'object') and its objects.")
    fluent_predicates: list[PredicateInfo] = Field(description="Predicates some action changes: states list these.")
    static_predicates: list[PredicateInfo] = Field(
        description="Predicates no action changes: fixed by the problem, never part of a state."
    )
    action_schemas: list[ActionSchemaInfo]
    num_ground_actions: int = Field(description="Type-correct ground actions (all argument combinations).")
    num_possible_actions: int = Field(
        description="Ground actions whose static preconditions hold (the others can never be applied)."
    )
    num_propositions: int = Field(description="Fluent ground atoms (the state variables).")
    init: list[str] = Field(description="Fluent atoms true in the initial state (the default state of every tool).")
    static_facts: list[str] = Field(description="Static atoms true in the problem.")
    goal: list[str] = Field(description="Atoms the goal mentions positively.")
    goal_formula: str = Field(description="The whole goal as PDDL text (may hold negations or disjunctions).")
    evicted_task_ids: list[str] = Field(
        default_factory=list, description="Tasks dropped from the server's cache to make room for this one."
    )


class ExampleInfo(BaseModel):
    name: str = Field(description="Pass as load_task(example=...).")
    domain_name: str
    problem_name: str
    num_objects: int
    num_possible_actions: int
    goal: list[str]
    domain_uri: str = Field(description="MCP resource holding the domain PDDL.")
    problem_uri: str = Field(description="MCP resource holding the problem PDDL.")


class ListExamplesResult(BaseModel):
    examples: list[ExampleInfo]


# ---------------------------------------------------------------------------
# app, prog, val, just
# ---------------------------------------------------------------------------


class ListApplicableResult(BaseModel):
    actions: list[str] = Field(description="Applicable ground actions, sorted by name (this page).")
    total: int = Field(description="How many actions are applicable in the state (all pages).")
    offset: int
    limit: int | None
    has_more: bool = Field(description="True when more actions follow this page (raise offset).")


class ProgressResult(BaseModel):
    action: str = Field(description="The action, in canonical form.")
    applicable: bool
    state: list[str] = Field(description="The next state (the same state when the action is not applicable).")
    positive_effects: list[str] = Field(description="Atoms true after but not before.")
    negative_effects: list[str] = Field(description="Atoms true before but not after.")
    unsatisfied_preconditions: list[str] = Field(
        description="Why it is not applicable: missing atoms, and '(not x)' for atoms that must be false."
    )
    goal_reached: bool = Field(description="Whether the returned state satisfies the goal.")


class ValidatePlanResult(BaseModel):
    first_inapplicable: int | None = Field(
        description="0-based index of the first action that cannot be applied, or null when every action applies."
    )
    unsatisfied_preconditions: list[str] = Field(description="Why that action cannot be applied.")
    goal_reached: bool = Field(description="True when every action applies and the final state satisfies the goal.")
    valid: bool = Field(description="The sequence is a plan: every action applies and the goal is reached.")
    unmet_goals: list[str] = Field(description="Goal atoms false in the final state (when every action applies).")
    final_state: list[str] = Field(description="The state reached (before the first inapplicable action, if any).")
    steps: int = Field(description="How many actions were applied.")
    plan_length: int


class Removal(BaseModel):
    indices: list[int] = Field(description="0-based positions removed (one action, or two consecutive ones).")
    plan: list[str] = Field(description="The plan without them (still reaches the goal).")


class SimplifyPlanResult(BaseModel):
    removable: list[Removal] = Field(
        description="Every single action and every consecutive pair whose removal leaves a valid plan."
    )
    plan_is_valid: bool = Field(description="Whether the given sequence itself is a valid plan.")
    plan_length: int


# ---------------------------------------------------------------------------
# verdicts
# ---------------------------------------------------------------------------


class VerdictResult(BaseModel):
    query: str = Field(description="The atom or action asked about, in canonical form.")
    answer: bool | None = Field(description="true, false, or null when the budget ran out (unknown).")
    how: str = Field(
        description="How it is known: 'witness-plan', 'holds-in-state', 'static-facts', 'delete-relaxation', "
        "'h2-mutex', 'exhaustive-search', or 'unknown'."
    )
    witness: list[str] | None = Field(
        description="A plan from the state that proves the answer (replay it with validate_plan), or null."
    )
    detail: str = ""
    budget_seconds: float = Field(description="The search budget this call had.")


class LandmarkResult(VerdictResult):
    trivial: bool | None = Field(
        description="True for a trivial landmark: it holds in the state or is part of the goal."
    )


class Item(BaseModel):
    name: str
    how: str = Field(description="Proof kind: 'static-facts', 'delete-relaxation', 'h2-mutex' or 'exhaustive-search'.")


class ItemListResult(BaseModel):
    items: list[Item] = Field(description="Items proven to have the property, sorted by name (cut at `limit`).")
    complete: bool = Field(
        description="True when every other candidate was refuted, so `items` (with `total`) is the full answer."
    )
    total: int = Field(description="How many items were proven (may exceed len(items) when `limit` cut the list).")
    truncated: bool = Field(description="True when `limit` cut the list.")
    unknown: list[str] = Field(description="Candidates the budget left undecided (why `complete` is false).")
    detail: str = ""
    budget_seconds: float


class ActionValue(BaseModel):
    action: str
    h_star_after: int | None = Field(description="h* of the state after the action; null if unsolvable or unknown.")
    regret: int | None = Field(description="h*(after) + 1 - h*(state): 0 for an optimal action.")
    optimal: bool
    known: bool = Field(description="False when the budget ran out before h*(after) was found.")


class OptimalNextResult(BaseModel):
    h_star: int | None = Field(description="Optimal plan length from the state; null when unsolvable or unknown.")
    optimal_actions: list[str] = Field(description="Every applicable action that starts some optimal plan.")
    actions: list[ActionValue] = Field(description="Every applicable action with h* after it and its regret.")
    plan: list[str] | None = Field(description="One optimal plan (replay it with validate_plan).")
    how: str = Field(description="Engine that proved h*: 'astar-hmax', 'fast-downward-lmcut', 'fast-downward-hmax' (conditional effects), 'symk-bidirectional', "
                     "'exhaustive-search', 'holds-in-state', or 'unknown'.")
    known: bool = Field(description="False when the budget ran out: then nothing else here is meaningful.")
    goal_reached: bool = Field(description="The state already satisfies the goal (h* = 0).")
    budget_seconds: float


class PlanResult(BaseModel):
    answer: bool | None = Field(description="true: a plan was found; false: proven unsolvable; null: unknown.")
    how: str
    plan: list[str] | None = Field(description="The plan (witness), or null.")
    length: int | None
    optimal: bool = Field(description="Whether an optimal plan was asked for (then length = h*).")
    h_star: int | None = Field(description="h* when an optimal plan was found.")
    detail: str = ""
    budget_seconds: float


# ---------------------------------------------------------------------------
# scoring
# ---------------------------------------------------------------------------


class ScoreResult(BaseModel):
    task: str = Field(description="The question kind graded: app, prog, reach, areach, val, just, land or nexta.")
    score: int | None = Field(description="1 correct, 0 wrong, null when correctness could not be decided.")
    verdict: str
    reason: str
    witness: list[str] | None = Field(
        default=None,
        description="A plan from the question's state backing the reason (e.g. the plan that reaches an atom the "
        "answer claimed unreachable, or an optimal plan); replay it with validate_plan. Null if none.",
    )
    metrics: dict[str, Any] = Field(default_factory=dict, description="Partial-credit metrics (IoU, regret, ...).")
    parsed: dict[str, Any] = Field(default_factory=dict, description="What was read from the response.")
    semantics: str = Field(default="exact", description="The scoring semantics used.")


# ---------------------------------------------------------------------------
# episodes
# ---------------------------------------------------------------------------


class StartEpisodeResult(BaseModel):
    episode_id: str
    task_id: str
    state: list[str]
    goal_reached: bool
    h_star: int | None = Field(description="Optimal plan length from the start; null when unsolvable or unknown.")
    h_star_known: bool
    how: str = Field(description="How h* is known, or 'unknown'.")
    applicable_actions: list[str]
    evicted_episode_ids: list[str] = Field(default_factory=list)


class StepEpisodeResult(BaseModel):
    episode_id: str
    step: int = Field(description="1-based number of this step (attempts, including invalid ones).")
    action: str
    applied: bool
    reason: str = Field(description="Why the action was not applied ('' when it was).")
    state: list[str] = Field(description="The current state after this step.")
    positive_effects: list[str]
    negative_effects: list[str]
    optimal: bool | None = Field(description="Whether the action starts an optimal plan; null if unknown.")
    regret: int | None = Field(description="h*(after) + 1 - h*(before); null if unknown or unsolvable.")
    h_star_before: int | None
    h_star_after: int | None
    h_star_known: bool
    goal_reached: bool
    applicable_actions: list[str] = Field(description="Actions applicable in the current state.")


class EpisodeStep(BaseModel):
    step: int
    action: str
    applied: bool
    optimal: bool | None
    regret: int | None
    reason: str = ""


class EpisodeSummaryResult(BaseModel):
    episode_id: str
    task_id: str
    steps: int = Field(description="Actions attempted (applied and invalid).")
    applied_steps: int
    invalid_actions: int = Field(description="Attempts that were not applied (unknown or not applicable).")
    optimal_steps: int
    unknown_optimality_steps: int = Field(description="Applied steps whose optimality the budget left open.")
    optimal_step_rate: float | None = Field(description="optimal_steps / applied_steps (null when nothing applied).")
    plan: list[str] = Field(description="The applied actions in order (replay it from start_state).")
    plan_length: int
    h_star_start: int | None = Field(description="h* of the start state (null when unsolvable or unknown).")
    excess_length: int | None = Field(description="plan_length - h_star_start once solved.")
    length_ratio: float | None = Field(description="plan_length / h_star_start once solved (h_star_start > 0).")
    solved: bool = Field(description="Whether the current state satisfies the goal.")
    start_state: list[str]
    state: list[str]
    history: list[EpisodeStep]


# ---------------------------------------------------------------------------
# server
# ---------------------------------------------------------------------------


class ServerInfo(BaseModel):
    name: str = Field(description="Server name.")
    version: str = Field(description="acptools version.")
    mcp_sdk_version: str = Field(description="Version of the MCP Python SDK in use.")
    transport: str = Field(description="Transport this server was started with.")
    filesystem_access: bool = Field(description="Whether tools accept file paths (server started with --root).")
    root: str | None = Field(description="Directory file paths are resolved against, if filesystem access is on.")
    limits: Limits
    tasks_loaded: int = Field(description="Tasks in the cache now.")
    episodes_live: int = Field(description="Episodes in the store now.")
    searches_running: int = Field(description="Worker threads inside a search now (cancelled ones wind down).")
    searches_waiting: int = Field(description="Searches waiting for a free slot.")
    searches_cancelled: int = Field(description="Searches cancelled since the server started.")
    scorer_available: bool = Field(description="Whether score_answer can run (acptools.scoring is installed).")

