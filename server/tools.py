"""The MCP tools and resources.  ``register(mcp, config)`` is called once by :func:`server.app.build_server`.

Every tool is a thin adapter: check and translate the arguments, call ``acptools``, copy the answer
into a pydantic model.  Conventions (see docs/mcp-notes.md):

* pydantic models for outputs -> ``outputSchema`` + ``structuredContent``; flat, annotated parameters;
* ``ToolAnnotations`` on every tool (read-only + idempotent for the questions);
* every failure a caller can fix is a ``ToolError`` (what, where, suggestion); bugs are logged, never leaked;
* searches run in worker threads through :class:`server.runner.SearchRunner` with a cancellable budget.

This module deliberately does not use ``from __future__ import annotations``: parameter types are built
from the configuration inside :func:`register` and must be real objects, not strings.
"""

import dataclasses
import importlib
import importlib.metadata
import json
import logging
import math
import threading
from typing import Annotated, Any

from acptools import AcpError, Task, examples as bundled
from acptools import load_task as acp_load_task
from acptools.answers import canonical_task
from acptools.pddl.writer import formula as pddl_formula
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resources.types import TextResource
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from server import models as M
from server.app import Limits, ServerConfig
from server.registry import (
    Episode,
    EpisodeStore,
    TaskStore,
    action_name,
    atom_name,
    check_text_size,
    describe,
    locate_plan_error,
    parse_state,
    plan_actions,
    tool_errors,
)
from server.runner import SearchRunner, budgeted_questions

log = logging.getLogger("acptools.server")

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
LOADS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
MUTATES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)

DEFAULT_LIST_LIMIT = 200
MAX_LIST_LIMIT = 100_000
MAX_NAME_CHARS = 10_000
MAX_UNKNOWN_SHOWN = 500
EXAMPLE_URI = "acptools://examples/{name}/{part}.pddl"
TASK_URI = "acptools://tasks/{task_id}/{part}.pddl"
SCORER_MODULE = "acptools.scoring"

# ---------------------------------------------------------------------------
# description snippets (written for an LLM reader)
# ---------------------------------------------------------------------------

NAMES = (
    "Atoms and actions are written like '(at c1 l0)' and '(board c1 l0)': name, then arguments. Case, commas and "
    "extra spaces do not matter. An unknown name or object is an error with a did-you-mean."
)
STATE = (
    "`state` (optional): a list of ground atoms such as [\"(at c1 l0)\", \"(empty-ferry)\"]. Closed world: every "
    "fluent atom you leave out is false. List only fluent atoms (load_task's fluent_predicates); static facts come "
    "from the problem. Omit it to use the task's initial state."
)
TASK_ID = "`task_id`: the id load_task returned."
STATE_SHORT = "`state` (optional): a list of atoms, closed world (unlisted atoms are false); default the initial state."
NAMES_SHORT = "Unknown names get a did-you-mean error."


def _budget_text(limits: Limits) -> str:
    return (
        f"`budget` (optional): seconds the search may use (default {limits.default_budget:g}, at most "
        f"{limits.max_budget:g}). When it runs out the answer is null and how is 'unknown': never a guess."
    )


def _int(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise TypeError(f"expected an integer, got {value!r}")


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


# ---------------------------------------------------------------------------
# task summaries
# ---------------------------------------------------------------------------


def _type_text(types: tuple[str, ...]) -> str:
    return types[0] if len(types) == 1 else "either " + " ".join(types)


def _params(params) -> list[M.Parameter]:
    return [M.Parameter(name=v, type=_type_text(tuple(t))) for v, t in params]


def _signature(name: str, params) -> str:
    parts = [name] + [f"{v} - {_type_text(tuple(t))}" for v, t in params]
    return "(" + " ".join(parts) + ")"


def _effect_text(e: tuple) -> str:
    tag = e[0]
    if tag == "add":
        return "(" + " ".join((e[1], *e[2])) + ")"
    if tag == "del":
        return "(not (" + " ".join((e[1], *e[2])) + "))"
    if tag == "and":
        return "(and " + " ".join(_effect_text(x) for x in e[1]) + ")"
    if tag == "forall":
        params = " ".join(f"{v} - {_type_text(tuple(t))}" for v, t in e[1])
        return f"(forall ({params}) {_effect_text(e[2])})"
    if tag == "when":
        return f"(when {pddl_formula(e[1])} {_effect_text(e[2])})"
    raise ValueError(f"effect {tag!r}")


def _safe(fn, *args) -> str | None:
    try:
        return fn(*args)
    except Exception:  # presentation only: an exotic construct just leaves the text out
        return None


def summarize(task: Task, source: str, cached: bool, evicted: list[str]) -> M.LoadTaskResult:
    d = task.domain
    preds = [M.PredicateInfo(name=p.name, parameters=_params(p.params), signature=_signature(p.name, p.params))
             for p in sorted(d.predicates.values(), key=lambda p: p.name)]
    return M.LoadTaskResult(
        task_id=task.id,
        domain_name=d.name,
        problem_name=task.problem.name,
        source=source,
        cached=cached,
        objects_by_type={t: list(objs) for t, objs in sorted(task.types.by_type.items())},
        fluent_predicates=[p for p in preds if p.name in task.fluents],
        static_predicates=[p for p in preds if p.name not in task.fluents],
        action_schemas=[
            M.ActionSchemaInfo(
                name=a.name,
                parameters=_params(a.params),
                signature=_signature(a.name, a.params),
                precondition=_safe(pddl_formula, a.precondition),
                effect=_safe(_effect_text, a.effect),
            )
            for a in d.actions.values()
        ],
        num_ground_actions=task.num_actions,
        num_possible_actions=task.num_possible_actions,
        num_propositions=len(task.atoms),
        init=task.names(task.init),
        static_facts=sorted("(" + " ".join((p, *args)) + ")" for p, args in task.static_true),
        goal=task.names(task.goal_atoms),
        goal_formula=_safe(pddl_formula, task.problem.goal) or "",
        evicted_task_ids=evicted,
    )


def _items(result, limit: int | None, seconds: float) -> M.ItemListResult:
    items = [M.Item(name=i.name, how=i.how) for i in result.items]
    if limit is not None:
        items = items[:limit]
    unknown = list(result.unknown)
    return M.ItemListResult(
        items=items,
        complete=result.complete,
        total=result.total,
        truncated=result.total > len(items),
        unknown=unknown[:MAX_UNKNOWN_SHOWN],
        detail=result.detail or (f"{len(unknown)} candidates undecided" if unknown else ""),
        budget_seconds=seconds,
    )


def _verdict(query: str, v, seconds: float) -> dict[str, Any]:
    return dict(query=query, answer=v.answer, how=v.how, witness=v.witness, detail=v.detail, budget_seconds=seconds)


# ---------------------------------------------------------------------------
# registration
# ---------------------------------------------------------------------------


def register(mcp: MCPServer, config: ServerConfig) -> None:
    from server import SERVER_NAME, __version__

    limits = config.limits
    tasks = TaskStore(config)
    episodes = EpisodeStore(limits)
    runner = SearchRunner(limits.max_concurrent_searches)
    BUDGET = _budget_text(limits)
    sdk_version = importlib.metadata.version("mcp")

    # parameter types (built here: they carry configured limits)
    TaskId = Annotated[str, Field(max_length=64, description="The task_id returned by load_task.")]
    StateArg = Annotated[
        list[Annotated[str, Field(max_length=MAX_NAME_CHARS)]] | None,
        Field(description="Ground atoms true in the state, e.g. [\"(at c1 l0)\"]; closed world; omit for init."),
    ]
    AtomArg = Annotated[str, Field(max_length=MAX_NAME_CHARS, description="A ground fluent atom, e.g. '(at c1 l0)'.")]
    ActionArg = Annotated[str, Field(max_length=MAX_NAME_CHARS, description="A ground action, e.g. '(board c1 l0)'.")]
    PlanArg = Annotated[
        list[Annotated[str, Field(max_length=MAX_NAME_CHARS)]] | str,
        Field(description="Ground actions in order: a list like [\"(board c1 l0)\", \"(sail l0 l1)\"], or one "
                          "string with one action per line or '(a x) (b y)'."),
    ]
    BudgetArg = Annotated[
        float | None,
        Field(gt=0, le=limits.max_budget, description=f"Search seconds (default {limits.default_budget:g})."),
    ]
    LimitArg = Annotated[
        int | None,
        Field(ge=1, le=MAX_LIST_LIMIT, description=f"Return at most this many items (default {DEFAULT_LIST_LIMIT})."),
    ]

    def seconds_of(budget: float | None) -> float:
        return float(limits.default_budget if budget is None else budget)

    async def search(task: Task, seconds: float, ask):
        """``ask(questions)`` in a worker thread; every search inside spends one cancellable budget.

        (The seconds are also passed to the library call itself, so the budget holds even without the hook.)
        """
        return await runner.run(lambda budget: ask(budgeted_questions(task, budget)), seconds)

    # ---- info ---------------------------------------------------------------------------------

    @mcp.tool(
        name="server_info",
        title="Server information",
        description=(
            "Return the server version, the transport in use, whether file paths are accepted, the configured "
            "limits (max_tasks, max_episodes, max_pddl_bytes, max_plan_length, max_ground_actions, budgets) and "
            "current load (tasks loaded, live episodes, searches running). Takes no arguments."
        ),
        annotations=READ_ONLY,
    )
    def server_info() -> M.ServerInfo:
        return M.ServerInfo(
            name=SERVER_NAME,
            version=__version__,
            mcp_sdk_version=sdk_version,
            transport=config.transport,
            filesystem_access=config.filesystem_access,
            root=str(config.root) if config.root is not None else None,
            limits=config.limits,
            tasks_loaded=len(tasks),
            episodes_live=len(episodes),
            searches_running=runner.running,
            searches_waiting=runner.waiting,
            searches_cancelled=runner.cancelled,
            scorer_available=_scorer() is not None,
        )

    # ---- examples -----------------------------------------------------------------------------

    example_cache: dict[str, M.ExampleInfo] = {}
    example_lock = threading.Lock()

    def example_infos() -> list[M.ExampleInfo]:
        with example_lock:
            if not example_cache:
                for name in bundled.names():
                    domain, problem = bundled.texts(name)
                    task = acp_load_task(domain, problem)  # not cached: listing must not evict user tasks
                    example_cache[name] = M.ExampleInfo(
                        name=name,
                        domain_name=task.domain.name,
                        problem_name=task.problem.name,
                        num_objects=len(task.types.objects),
                        num_possible_actions=task.num_possible_actions,
                        goal=task.names(task.goal_atoms),
                        domain_uri=EXAMPLE_URI.format(name=name, part="domain"),
                        problem_uri=EXAMPLE_URI.format(name=name, part="problem"),
                    )
            return list(example_cache.values())

    @mcp.tool(
        name="list_examples",
        title="List bundled example tasks",
        description=(
            "List the bundled example planning tasks (one ACPBench Hard problem per domain: blocksworld, ferry, "
            "floor-tile, grid, grid-visit-all, gripper, logistics, rover). Load one with load_task(example=name); "
            "read its PDDL through the MCP resources named in domain_uri / problem_uri. Takes no arguments."
        ),
        annotations=READ_ONLY,
    )
    def list_examples() -> M.ListExamplesResult:
        with tool_errors("list_examples"):
            return M.ListExamplesResult(examples=example_infos())

    # ---- load_task ----------------------------------------------------------------------------

    @mcp.tool(
        name="load_task",
        title="Load a PDDL planning task",
        description=(
            "Parse and ground a PDDL task and return its task_id (a stable hash of the PDDL: the same text always "
            "gives the same id) plus a summary: objects by type, fluent predicates (these make up states) and "
            "static ones (fixed by the problem), action schemas, the number of ground actions, the initial "
            "state and the goal. Every other tool takes the task_id.\n"
            "Pass either `domain` and `problem` (PDDL text; if the server was started with --root, a path below "
            "that folder also works), or `example` (a name from list_examples), optionally with your own "
            "`problem` for that example's domain. Loading the same task again is free.\n"
            "Example: load_task(example=\"ferry\") or load_task(domain=\"(define (domain d) ...)\", "
            "problem=\"(define (problem p) (:domain d) ...)\").\n"
            "Malformed PDDL gives an error with line and column. Tasks live in a bounded cache; if a task_id is "
            "later reported unknown or evicted, call load_task again."
        ),
        annotations=LOADS,
    )
    def load_task(
        domain: Annotated[str | None, Field(description="PDDL domain text (or a path below --root).")] = None,
        problem: Annotated[str | None, Field(description="PDDL problem text (or a path below --root).")] = None,
        example: Annotated[str | None, Field(max_length=200, description="Name of a bundled example.")] = None,
    ) -> M.LoadTaskResult:
        with tool_errors("load_task"):
            from_file = False
            if example is not None:
                if domain is not None:
                    raise ToolError(
                        "pass either example=... (optionally with problem=...) or domain=... and problem=..., not both "
                        "example and domain"
                    )
                try:
                    domain_text, problem_text = bundled.texts(example.strip())
                except AcpError as exc:
                    raise ToolError(describe(exc)) from None
                source = f"example:{example.strip()}"
                if problem is not None:
                    problem_text, from_file = tasks.read_source(problem, "problem")
                    source += "+problem"
            else:
                if domain is None or problem is None:
                    missing = " and ".join(n for n, v in (("domain", domain), ("problem", problem)) if v is None)
                    raise ToolError(
                        f"missing {missing}: pass domain=... and problem=... as PDDL text, or example=... with one of: "
                        + ", ".join(bundled.names())
                    )
                domain_text, d_file = tasks.read_source(domain, "domain")
                problem_text, p_file = tasks.read_source(problem, "problem")
                from_file = d_file or p_file
                source = "files" if from_file else "text"
            task, cached, evicted = tasks.load(domain_text, problem_text)
            return summarize(task, source, cached, evicted)

    # ---- app, prog, val, just -----------------------------------------------------------------

    @mcp.tool(
        name="list_applicable",
        title="Applicable actions (app)",
        description=(
            "List the ground actions applicable in a state, sorted by name, with paging. "
            f"{TASK_ID} {STATE} `limit`/`offset` (optional): page through long lists; `total` counts all.\n"
            "Example (bundled ferry task, 3 locations): list_applicable(task_id=\"93f9fc0750f17a5b\", "
            "state=[\"(at c0 l0)\", \"(at-ferry l0)\", \"(empty-ferry)\"]) -> {\"actions\": [\"(board c0 l0)\", "
            "\"(sail l0 l1)\", \"(sail l0 l2)\"], \"total\": 3, \"has_more\": false, ...}"
        ),
        annotations=READ_ONLY,
    )
    def list_applicable(
        task_id: TaskId,
        state: StateArg = None,
        limit: Annotated[int | None, Field(ge=1, le=MAX_LIST_LIMIT, description="Page size (default: all).")] = None,
        offset: Annotated[int, Field(ge=0, description="Skip this many actions first.")] = 0,
    ) -> M.ListApplicableResult:
        with tool_errors("list_applicable"):
            task = tasks.get(task_id)
            actions = task.questions.applicable(parse_state(task, state))
            end = len(actions) if limit is None else offset + limit
            return M.ListApplicableResult(
                actions=actions[offset:end], total=len(actions), offset=offset, limit=limit, has_more=end < len(actions)
            )

    @mcp.tool(
        name="progress",
        title="Apply one action (prog)",
        description=(
            "Apply one ground action to a state and return the next state with its positive effects (atoms that "
            "become true) and negative effects (atoms that become false). If the action is not applicable, "
            "`applicable` is false, the state is unchanged and `unsatisfied_preconditions` says why. "
            f"{TASK_ID} `action`: one ground action. {STATE} {NAMES}\n"
            "Example: progress(task_id=..., action=\"(board c0 l0)\") -> {\"positive_effects\": [\"(on c0)\"], "
            "\"negative_effects\": [\"(at c0 l0)\", \"(empty-ferry)\"], ...}"
        ),
        annotations=READ_ONLY,
    )
    def progress(task_id: TaskId, action: ActionArg, state: StateArg = None) -> M.ProgressResult:
        with tool_errors("progress"):
            task = tasks.get(task_id)
            s = parse_state(task, state)
            name = action_name(task, action)
            p = task.questions.progress(name, s)
            return M.ProgressResult(
                action=p.action,
                applicable=p.applicable,
                state=p.state,
                positive_effects=p.positive_effects,
                negative_effects=p.negative_effects,
                unsatisfied_preconditions=p.unsatisfied_preconditions,
                goal_reached=task.is_goal(task.parse_state(p.state)),
            )

    @mcp.tool(
        name="validate_plan",
        title="Validate an action sequence (val)",
        description=(
            "Replay a sequence of ground actions from a state. `first_inapplicable` is the 0-based index of the "
            "first action whose preconditions do not hold (null if all apply), with the unsatisfied "
            "preconditions; `goal_reached` says whether the final state satisfies the goal; `valid` means both. "
            f"{TASK_ID} `plan`: a list of actions or one string. {STATE_SHORT} {NAMES_SHORT}\n"
            "Example: validate_plan(task_id=..., plan=[\"(sail l0 l1)\", \"(board c1 l1)\", \"(sail l1 l2)\", "
            "\"(debark c1 l2)\"]) -> {\"first_inapplicable\": null, \"goal_reached\": true, \"valid\": true, ...}; "
            "plan=\"(sail l0 l1) (sail l0 l2)\" -> {\"first_inapplicable\": 1, \"unsatisfied_preconditions\": "
            "[\"(at-ferry l0)\"], ...}"
        ),
        annotations=READ_ONLY,
    )
    def validate_plan(task_id: TaskId, plan: PlanArg, state: StateArg = None) -> M.ValidatePlanResult:
        with tool_errors("validate_plan"):
            task = tasks.get(task_id)
            s = parse_state(task, state)
            actions = plan_actions(plan, limits)
            try:
                v = task.questions.validate(actions, s)
            except AcpError as exc:
                raise locate_plan_error(task, actions, exc) from None
            return M.ValidatePlanResult(
                first_inapplicable=v.first_inapplicable,
                unsatisfied_preconditions=v.unsatisfied_preconditions,
                goal_reached=v.goal_reached,
                valid=v.first_inapplicable is None and v.goal_reached,
                unmet_goals=v.unmet_goals,
                final_state=v.final_state,
                steps=v.steps,
                plan_length=len(actions),
            )

    @mcp.tool(
        name="simplify_plan",
        title="Redundant actions of a plan (just)",
        description=(
            "Find which single actions, and which pairs of consecutive actions, can be removed from a plan so that "
            "what remains is still a valid plan. Each entry of `removable` gives the 0-based `indices` removed and "
            "the shorter `plan`. An empty list means the plan has no such redundancy. "
            f"{TASK_ID} `plan`: a list of actions or one string. {STATE_SHORT} {NAMES_SHORT}\n"
            "Example: simplify_plan(task_id=..., plan=[\"(sail l0 l1)\", \"(sail l1 l0)\", \"(board c0 l0)\", ...]) "
            "-> {\"removable\": [{\"indices\": [0, 1], \"plan\": [\"(board c0 l0)\", ...]}], ...}"
        ),
        annotations=READ_ONLY,
    )
    async def simplify_plan(task_id: TaskId, plan: PlanArg, state: StateArg = None) -> M.SimplifyPlanResult:
        with tool_errors("simplify_plan"):
            task = tasks.get(task_id)
            s = parse_state(task, state)
            actions = plan_actions(plan, limits)

            def work(_budget):
                q = task.questions
                try:
                    return q.simplify(actions, s), q.is_plan(actions, s)
                except AcpError as exc:
                    raise locate_plan_error(task, actions, exc) from None

            removals, is_plan = await runner.run(work, limits.max_budget)
            return M.SimplifyPlanResult(
                removable=[M.Removal(indices=list(r.indices), plan=r.plan) for r in removals],
                plan_is_valid=is_plan,
                plan_length=len(actions),
            )

    # ---- reach, areach ------------------------------------------------------------------------

    @mcp.tool(
        name="is_reachable",
        title="Can an atom ever hold? (reach)",
        description=(
            "Decide whether some sequence of actions from the state makes a fluent atom true. answer=true comes "
            "with a `witness` plan that reaches a state where the atom holds (how='witness-plan', or "
            "'holds-in-state' with an empty witness); answer=false with a proof kind in `how`: 'static-facts', "
            "'delete-relaxation', 'h2-mutex' or 'exhaustive-search'; null with how='unknown' if the budget ran out. "
            f"{TASK_ID} `atom`: one fluent atom. {STATE_SHORT} {BUDGET} {NAMES_SHORT}\n"
            "Example: is_reachable(task_id=..., atom=\"(at c0 l1)\") -> {\"answer\": true, \"how\": "
            "\"witness-plan\", \"witness\": [\"(board c0 l0)\", \"(sail l0 l1)\", \"(debark c0 l1)\"]}"
        ),
        annotations=READ_ONLY,
    )
    async def is_reachable(
        task_id: TaskId, atom: AtomArg, state: StateArg = None, budget: BudgetArg = None
    ) -> M.VerdictResult:
        with tool_errors("is_reachable"):
            task = tasks.get(task_id)
            s = parse_state(task, state)
            name = atom_name(task, atom)
            seconds = seconds_of(budget)
            v = await search(task, seconds, lambda q: q.is_reachable(name, s, budget=seconds))
            return M.VerdictResult(**_verdict(name, v, seconds))

    @mcp.tool(
        name="unreachable_atoms",
        title="Atoms that can never hold (reach)",
        description=(
            "List the fluent atoms that no sequence of actions from the state can make true, each with its proof "
            "kind ('delete-relaxation', 'h2-mutex', 'exhaustive-search'). `complete`=true means every other atom "
            "was shown reachable, so the list is exact; otherwise `unknown` holds the undecided ones. "
            f"{TASK_ID} {STATE_SHORT} `limit` (optional, default {DEFAULT_LIST_LIMIT}): cap on items returned (`total` "
            f"counts all). {BUDGET}\n"
            "Example (logistics: trucks stay in their city): unreachable_atoms(task_id=..., limit=1) -> {\"items\": "
            "[{\"name\": \"(at a0 l0-1)\", \"how\": \"delete-relaxation\"}], \"complete\": true, \"total\": 6, "
            "\"truncated\": true}"
        ),
        annotations=READ_ONLY,
    )
    async def unreachable_atoms(
        task_id: TaskId, state: StateArg = None, limit: LimitArg = None, budget: BudgetArg = None
    ) -> M.ItemListResult:
        with tool_errors("unreachable_atoms"):
            task = tasks.get(task_id)
            s = parse_state(task, state)
            seconds = seconds_of(budget)
            lim = limit or DEFAULT_LIST_LIMIT
            r = await search(task, seconds, lambda q: q.unreachable_atoms(s, budget=seconds))
            return _items(r, lim, seconds)

    @mcp.tool(
        name="is_action_reachable",
        title="Can an action ever be applied? (areach)",
        description=(
            "Decide whether some sequence of actions from the state reaches a state where the given ground action "
            "is applicable. answer=true comes with a `witness` plan after which the action applies; false with a "
            "proof kind in `how` ('static-facts' when its static preconditions are false in the problem, "
            "'delete-relaxation', 'h2-mutex', 'exhaustive-search'); null with how='unknown' if the budget ran out. "
            f"{TASK_ID} `action`: one ground action. {STATE_SHORT} {BUDGET} {NAMES_SHORT}\n"
            "Example: is_action_reachable(task_id=..., action=\"(sail l0 l0)\") -> {\"answer\": false, \"how\": "
            "\"static-facts\", \"witness\": null}"
        ),
        annotations=READ_ONLY,
    )
    async def is_action_reachable(
        task_id: TaskId, action: ActionArg, state: StateArg = None, budget: BudgetArg = None
    ) -> M.VerdictResult:
        with tool_errors("is_action_reachable"):
            task = tasks.get(task_id)
            s = parse_state(task, state)
            name = action_name(task, action)
            seconds = seconds_of(budget)
            v = await search(task, seconds, lambda q: q.is_action_reachable(name, s, budget=seconds))
            return M.VerdictResult(**_verdict(name, v, seconds))

    @mcp.tool(
        name="unreachable_actions",
        title="Actions that can never be applied (areach)",
        description=(
            "List the ground actions that can never become applicable from the state, each with its proof kind "
            "('static-facts' for actions whose static preconditions are false, 'delete-relaxation', 'h2-mutex', "
            "'exhaustive-search'). `complete`=true means the list is exact; `unknown` holds undecided ones. "
            f"{TASK_ID} {STATE_SHORT} `limit` (optional, default {DEFAULT_LIST_LIMIT}): cap on items returned (`total` "
            f"counts all). {BUDGET}\n"
            "Example: unreachable_actions(task_id=..., limit=2) -> {\"items\": [{\"name\": \"(sail l0 l0)\", "
            "\"how\": \"static-facts\"}, ...], \"complete\": true, \"total\": 3, \"truncated\": true}"
        ),
        annotations=READ_ONLY,
    )
    async def unreachable_actions(
        task_id: TaskId, state: StateArg = None, limit: LimitArg = None, budget: BudgetArg = None
    ) -> M.ItemListResult:
        with tool_errors("unreachable_actions"):
            task = tasks.get(task_id)
            s = parse_state(task, state)
            seconds = seconds_of(budget)
            lim = limit or DEFAULT_LIST_LIMIT
            r = await search(task, seconds, lambda q: q.unreachable_actions(s, budget=seconds, limit=lim))
            return _items(r, lim, seconds)

    # ---- land ---------------------------------------------------------------------------------

    @mcp.tool(
        name="is_landmark",
        title="Must every plan make an atom true? (land)",
        description=(
            "Decide whether a fluent atom is a fact landmark of the state: every plan from the state makes it true "
            "at some point. `trivial`=true when it already holds in the state or is part of the goal (answer true, "
            "how 'trivial'). answer=false comes with a `witness`: a plan reaching the goal that never makes the atom "
            "true. answer=true (non-trivial) is proven by 'delete-relaxation', 'h2-mutex' or 'exhaustive-search' on "
            "the task where no action may add the atom; null/'unknown' if the budget ran out. "
            f"{TASK_ID} `atom`: one fluent atom. {STATE_SHORT} {BUDGET} {NAMES_SHORT}\n"
            "Example: is_landmark(task_id=..., atom=\"(on c1)\") -> {\"answer\": true, \"how\": "
            "\"delete-relaxation\", \"trivial\": false, \"witness\": null}; atom=\"(on c0)\" -> {\"answer\": false, "
            "\"how\": \"witness-plan\", \"witness\": [\"(sail l0 l1)\", \"(board c1 l1)\", ...]}"
        ),
        annotations=READ_ONLY,
    )
    async def is_landmark(
        task_id: TaskId, atom: AtomArg, state: StateArg = None, budget: BudgetArg = None
    ) -> M.LandmarkResult:
        with tool_errors("is_landmark"):
            task = tasks.get(task_id)
            s = parse_state(task, state)
            name = atom_name(task, atom)
            seconds = seconds_of(budget)
            v = await search(task, seconds, lambda q: q.is_landmark(name, s, budget=seconds))
            return M.LandmarkResult(**_verdict(name, v, seconds), trivial=v.extra.get("trivial"))

    @mcp.tool(
        name="landmarks",
        title="All non-trivial fact landmarks (land)",
        description=(
            "List every non-trivial fact landmark of the state: fluent atoms false in the state and not in the goal "
            "that every plan must make true at some point, each with its proof kind. `complete`=true means every "
            "other candidate was refuted by a plan that avoids it. If the goal is unreachable every atom is "
            f"(vacuously) a landmark; `detail` says so. {TASK_ID} {STATE_SHORT} {BUDGET}\n"
            "Example: landmarks(task_id=...) -> {\"items\": [{\"name\": \"(at-ferry l1)\", \"how\": "
            "\"delete-relaxation\"}, {\"name\": \"(at-ferry l2)\", ...}, {\"name\": \"(on c1)\", ...}], "
            "\"complete\": true, \"total\": 3}"
        ),
        annotations=READ_ONLY,
    )
    async def landmarks(task_id: TaskId, state: StateArg = None, budget: BudgetArg = None) -> M.ItemListResult:
        with tool_errors("landmarks"):
            task = tasks.get(task_id)
            s = parse_state(task, state)
            seconds = seconds_of(budget)
            r = await search(task, seconds, lambda q: q.landmarks(s, budget=seconds))
            return _items(r, None, seconds)

    # ---- nexta, plan ----------------------------------------------------------------------------

    @mcp.tool(
        name="optimal_next_action",
        title="Optimal next actions, h* and regrets (nexta)",
        description=(
            "Compute h* (the length of a shortest plan from the state), every applicable action that starts an "
            "optimal plan, every applicable action with h* after it and its regret (h*(after) + 1 - h*(state); 0 "
            "means optimal), and one optimal plan. All exact; `known`=false (how 'unknown') if the budget ran out. "
            f"h_star is null with known=true when the goal is unreachable. {TASK_ID} {STATE_SHORT} {BUDGET}\n"
            "Example: optimal_next_action(task_id=...) -> {\"h_star\": 4, \"optimal_actions\": [\"(sail l0 l1)\"], "
            "\"actions\": [{\"action\": \"(board c0 l0)\", \"h_star_after\": 5, \"regret\": 2, ...}, "
            "{\"action\": \"(sail l0 l1)\", \"h_star_after\": 3, \"regret\": 0, ...}, ...], \"plan\": "
            "[\"(sail l0 l1)\", \"(board c1 l1)\", \"(sail l1 l2)\", \"(debark c1 l2)\"], \"how\": \"astar-hmax\"}"
        ),
        annotations=READ_ONLY,
    )
    async def optimal_next_action(
        task_id: TaskId, state: StateArg = None, budget: BudgetArg = None
    ) -> M.OptimalNextResult:
        with tool_errors("optimal_next_action"):
            task = tasks.get(task_id)
            s = parse_state(task, state)
            seconds = seconds_of(budget)
            r = await search(task, seconds, lambda q: q.optimal_next(s, budget=seconds))
            return M.OptimalNextResult(
                h_star=r.h_star,
                optimal_actions=r.optimal_actions,
                actions=[
                    M.ActionValue(action=a.action, h_star_after=a.h_star_after, regret=a.regret, optimal=a.optimal,
                                  known=a.known)
                    for a in r.actions
                ],
                plan=r.plan,
                how=r.how,
                known=r.known,
                goal_reached=task.is_goal(s),
                budget_seconds=seconds,
            )

    @mcp.tool(
        name="plan",
        title="Find a plan",
        description=(
            "Find a plan from the state to the goal. optimal=true (default) returns a shortest plan and h_star; "
            "optimal=false returns the first plan a fast greedy search finds (usually much quicker, not shortest). "
            "answer=false means the goal is proven unreachable; null (how 'unknown') means the budget ran out. "
            f"{TASK_ID} {STATE_SHORT} `optimal` (optional, default true). {BUDGET}\n"
            "Example: plan(task_id=..., optimal=false) -> {\"answer\": true, \"how\": \"witness-plan\", \"plan\": "
            "[\"(sail l0 l1)\", \"(board c1 l1)\", \"(sail l1 l2)\", \"(debark c1 l2)\"], \"length\": 4}"
        ),
        annotations=READ_ONLY,
    )
    async def plan(
        task_id: TaskId,
        state: StateArg = None,
        optimal: Annotated[bool, Field(description="Shortest plan (true) or any plan, faster (false).")] = True,
        budget: BudgetArg = None,
    ) -> M.PlanResult:
        with tool_errors("plan"):
            task = tasks.get(task_id)
            s = parse_state(task, state)
            seconds = seconds_of(budget)
            v = await search(task, seconds, lambda q: q.plan(s, optimal=optimal, budget=seconds))
            return M.PlanResult(
                answer=v.answer,
                how=v.how,
                plan=v.witness,
                length=None if v.witness is None else len(v.witness),
                optimal=optimal,
                h_star=v.extra.get("h_star"),
                detail=v.detail,
                budget_seconds=seconds,
            )

    # ---- score_answer -------------------------------------------------------------------------

    @mcp.tool(
        name="score_answer",
        title="Grade a free-text answer to an ACP question",
        description=(
            "Grade a model's free-text answer to one of the 8 ACPBench Hard questions: app (applicable actions), "
            "prog (effects of an action), reach (an unreachable atom), areach (a never-applicable action), val "
            "(index of the first inapplicable action), just (a removable action or pair), land (a landmark), nexta "
            "(an optimal next action). The answer is checked by proof, not by lookup: `score` is 1 (correct), 0 "
            "(wrong) or null (undecided within the budget), with `verdict`, `reason`, a `witness` and partial-credit "
            "`metrics`.\n"
            "Either pass `record` (an ACPBench Hard record: a JSON object with group, PDDL_domain, PDDL_problem, "
            "question, answer, ...), or `task_id` of a loaded task plus what the question is about: `state` "
            "(default init), `action` (for prog), `plan` (for val and just). `task` is the question kind. "
            "`semantics` (optional, records only): 'exact' (default: graded by proof from the PDDL) or "
            "'reference' (the published lm-eval ACPBench scorer's rules). "
            f"{BUDGET}\n"
            "Example: score_answer(task=\"nexta\", response=\"Answer: (sail l0 l1)\", task_id=...) -> "
            "{\"score\": 1, \"verdict\": \"correct\", ...}"
        ),
        annotations=READ_ONLY,
    )
    async def score_answer(
        task: Annotated[str, Field(max_length=64, description="Question kind: app, prog, reach, areach, val, just, "
                                                              "land or nexta.")],
        response: Annotated[str, Field(description="The model's free-text answer.")],
        record: Annotated[dict[str, Any] | None, Field(description="An ACPBench Hard record (JSON object).")] = None,
        task_id: Annotated[str | None, Field(max_length=64, description="A loaded task (instead of record).")] = None,
        state: StateArg = None,
        action: Annotated[str | None, Field(max_length=MAX_NAME_CHARS, description="The action asked about (prog).")]
        = None,
        plan: Annotated[list[Annotated[str, Field(max_length=MAX_NAME_CHARS)]] | str | None,
                        Field(description="The plan asked about (val, just).")] = None,
        semantics: Annotated[str, Field(max_length=32, description="Scoring semantics (default 'exact').")] = "exact",
        budget: BudgetArg = None,
    ) -> M.ScoreResult:
        with tool_errors("score_answer"):
            try:
                kind = canonical_task(task)
            except ValueError as exc:
                raise ToolError(f"task: {exc}") from None
            check_text_size(response, "response", limits)
            scoring = _scorer()
            if scoring is None:
                raise ToolError(
                    f"the scorer ({SCORER_MODULE}) is not installed in this server's environment; "
                    "update acptools to a version that ships it"
                )
            seconds = seconds_of(budget)
            if record is not None:
                if task_id is not None or state is not None or action is not None or plan is not None:
                    raise ToolError("pass either record=... or task_id=... (with state/action/plan), not both")
                for key in ("PDDL_domain", "PDDL_problem"):
                    if not isinstance(record.get(key), str):
                        raise ToolError(f"record.{key} is missing or not a string: an ACPBench Hard record has "
                                        "PDDL_domain, PDDL_problem, group, question and answer")
                    check_text_size(record[key], f"record.{key}", limits)
                group = record.get("group")
                if group is not None:
                    try:
                        record_kind = canonical_task(str(group))
                    except ValueError as exc:
                        raise ToolError(f"record.group: {exc}") from None
                    if record_kind != kind:
                        raise ToolError(f"task is {kind!r} but the record is a {record_kind!r} question "
                                        f"(group {group!r}); pass task={record_kind!r}")
                call = lambda _b: scoring.score_response(record, response, semantics=semantics, budget=seconds)
            elif task_id is not None:
                if semantics != "exact":
                    raise ToolError(f"semantics {semantics!r} applies only to ACPBench Hard records (pass "
                                    "record=...); a question on a loaded task is graded with semantics 'exact'")
                loaded = tasks.get(task_id)
                if state is not None:
                    parse_state(loaded, state)  # clear errors before the scorer runs
                if action is not None:
                    action_name(loaded, action)
                actions = None
                if plan is not None:
                    actions = plan_actions(plan, limits)
                    try:
                        loaded.questions.validate(actions)
                    except AcpError as exc:
                        raise locate_plan_error(loaded, actions, exc) from None
                call = lambda _b: scoring.score_answer(kind, response, task=loaded, state=state, action=action,
                                                       plan=actions, budget=seconds)
            else:
                raise ToolError("pass record=... (an ACPBench Hard record) or task_id=... (a task from load_task)")
            result = await runner.run(call, seconds)
            return M.ScoreResult(
                task=kind,
                score=_int(result.score),
                verdict=str(result.verdict),
                reason=str(result.reason),
                witness=_jsonable(result.witness),
                metrics=_jsonable(result.metrics or {}),
                parsed=_jsonable(getattr(result, "parsed", None) or {}),
                semantics=str(getattr(result, "semantics", semantics)),
            )

    # ---- episodes -----------------------------------------------------------------------------

    @mcp.tool(
        name="start_episode",
        title="Start a policy episode",
        description=(
            "Start an episode for an agent acting step by step: from the state, call step_episode with one action "
            "at a time; each step is checked (applicable? optimal? regret?) and episode_summary reports the whole "
            "run. Returns the episode_id, the state, whether the goal already holds, h* of the state (optimal plan "
            "length; null if unsolvable or unknown within the budget) and the applicable actions. "
            f"{TASK_ID} {STATE_SHORT} {BUDGET} Episodes live in a bounded store; the oldest unused are dropped.\n"
            "Example: start_episode(task_id=...) -> {\"episode_id\": \"ep-1f2e...\", \"h_star\": 4, ...}"
        ),
        annotations=MUTATES,
    )
    async def start_episode(
        task_id: TaskId, state: StateArg = None, budget: BudgetArg = None
    ) -> M.StartEpisodeResult:
        with tool_errors("start_episode"):
            task = tasks.get(task_id)
            s = parse_state(task, state)
            seconds = seconds_of(budget)
            h = await search(task, seconds, lambda q: q.h_star(s, budget=seconds))
            cost = h.h_star
            ep = Episode(episode_id=episodes.new_id(), task=task, start=s, state=s, h_start=cost,
                         h_start_known=h.known, h_current=cost, h_current_known=h.known)
            evicted = episodes.add(ep)
            return M.StartEpisodeResult(
                episode_id=ep.episode_id,
                task_id=task.id,
                state=task.names(s),
                goal_reached=task.is_goal(s),
                h_star=cost,
                h_star_known=h.known,
                how=h.how,
                applicable_actions=task.questions.applicable(s),
                evicted_episode_ids=evicted,
            )

    @mcp.tool(
        name="step_episode",
        title="Take one action in an episode",
        description=(
            "Apply one ground action in an episode. If it is applied: the new state, its effects, whether it was "
            "optimal (it starts a shortest plan), its regret (h*(after) + 1 - h*(before); 0 = optimal), and whether "
            "the goal is reached. If not (unknown name or unsatisfied preconditions), `applied` is false, `reason` "
            "says why, the state stays, and it counts as an invalid action. After the goal is reached the episode "
            f"accepts no more steps. `episode_id`: from start_episode. `action`: one ground action. {BUDGET} "
            f"{NAMES_SHORT}\n"
            "Example: step_episode(episode_id=\"ep-1f2e...\", action=\"(sail l0 l1)\") -> {\"applied\": true, "
            "\"optimal\": true, \"regret\": 0, \"goal_reached\": false, ...}; action=\"(board c0 l0)\" from the "
            "start -> {\"optimal\": false, \"regret\": 2, ...}"
        ),
        annotations=MUTATES,
    )
    async def step_episode(
        episode_id: Annotated[str, Field(max_length=64, description="The episode_id from start_episode.")],
        action: ActionArg,
        budget: BudgetArg = None,
    ) -> M.StepEpisodeResult:
        with tool_errors("step_episode"):
            ep = episodes.get(episode_id)
            async with ep.lock:
                task = ep.task
                if task.is_goal(ep.state):
                    raise ToolError(
                        f"episode {episode_id!r} is finished: the goal holds after {len(ep.plan)} applied actions. "
                        "Call episode_summary, or start_episode for a new run"
                    )
                step_no = len(ep.history) + 1
                seconds = seconds_of(budget)
                h_before, known_before = ep.h_current, ep.h_current_known

                def rejected(shown: str, reason: str) -> M.StepEpisodeResult:
                    ep.history.append(M.EpisodeStep(step=step_no, action=shown, applied=False, optimal=None, regret=None,
                                                    reason=reason))
                    return M.StepEpisodeResult(
                        episode_id=episode_id, step=step_no, action=shown, applied=False, reason=reason,
                        state=task.names(ep.state), positive_effects=[], negative_effects=[], optimal=None,
                        regret=None, h_star_before=h_before, h_star_after=h_before, h_star_known=known_before,
                        goal_reached=task.is_goal(ep.state), applicable_actions=task.questions.applicable(ep.state),
                    )

                try:
                    name = action_name(task, action)
                except ToolError as exc:
                    return rejected(action, str(exc))
                p = task.questions.progress(name, ep.state)
                if not p.applicable:
                    return rejected(name, "not applicable here; unsatisfied preconditions: " +
                                    ", ".join(p.unsatisfied_preconditions))
                nxt = task.parse_state(p.state)
                h = await search(task, seconds, lambda q: q.h_star(nxt, budget=seconds))
                h_after = h.h_star
                regret: int | None = None
                optimal: bool | None = None
                if known_before and h_before is not None and h.known:
                    if h_after is None:
                        optimal = False  # leads into a dead end from a solvable state
                    else:
                        regret = h_after + 1 - h_before
                        optimal = regret == 0
                ep.state, ep.h_current, ep.h_current_known = nxt, h_after, h.known
                ep.plan.append(name)
                ep.history.append(M.EpisodeStep(step=step_no, action=name, applied=True, optimal=optimal, regret=regret))
                return M.StepEpisodeResult(
                    episode_id=episode_id, step=step_no, action=name, applied=True, reason="", state=p.state,
                    positive_effects=p.positive_effects, negative_effects=p.negative_effects, optimal=optimal,
                    regret=regret, h_star_before=h_before, h_star_after=h_after, h_star_known=h.known,
                    goal_reached=task.is_goal(nxt), applicable_actions=task.questions.applicable(nxt),
                )

    @mcp.tool(
        name="episode_summary",
        title="Summary of a policy episode",
        description=(
            "Summarize an episode: steps attempted, invalid actions, optimal steps and the optimal-step rate, the "
            "plan of applied actions and its length against h* of the start state (excess and ratio), and whether "
            "the goal was reached (solved). `episode_id`: from start_episode.\n"
            "Example: episode_summary(episode_id=\"ep-1f2e...\") -> {\"steps\": 5, \"invalid_actions\": 1, "
            "\"optimal_step_rate\": 1.0, \"plan_length\": 4, \"h_star_start\": 4, \"solved\": true, ...}"
        ),
        annotations=READ_ONLY,
    )
    def episode_summary(
        episode_id: Annotated[str, Field(max_length=64, description="The episode_id from start_episode.")],
    ) -> M.EpisodeSummaryResult:
        with tool_errors("episode_summary"):
            ep = episodes.get(episode_id)
            task = ep.task
            history = list(ep.history)
            applied = [h for h in history if h.applied]
            optimal = sum(1 for h in applied if h.optimal)
            unknown = sum(1 for h in applied if h.optimal is None)
            solved = task.is_goal(ep.state)
            n = len(ep.plan)
            h0 = ep.h_start
            return M.EpisodeSummaryResult(
                episode_id=episode_id,
                task_id=task.id,
                steps=len(history),
                applied_steps=len(applied),
                invalid_actions=len(history) - len(applied),
                optimal_steps=optimal,
                unknown_optimality_steps=unknown,
                optimal_step_rate=optimal / len(applied) if applied else None,
                plan=list(ep.plan),
                plan_length=n,
                h_star_start=h0,
                excess_length=n - h0 if solved and h0 is not None else None,
                length_ratio=n / h0 if solved and h0 else None,
                solved=solved,
                start_state=task.names(ep.start),
                state=task.names(ep.state),
                history=list(history),
            )

    # ---- resources ----------------------------------------------------------------------------

    _register_resources(mcp, tasks, example_infos)


_scorer_state: dict[str, Any] = {}
_scorer_lock = threading.Lock()


def _scorer():
    """The acptools.scoring module, or None when it is not installed (looked up once per process)."""
    with _scorer_lock:
        if "module" not in _scorer_state:
            try:
                module = importlib.import_module(SCORER_MODULE)
                missing = [f for f in ("score_answer", "score_response") if not callable(getattr(module, f, None))]
                if missing:  # e.g. a half-installed package: report it as unavailable, not as a crash
                    log.warning("%s lacks %s; score_answer is unavailable", SCORER_MODULE, ", ".join(missing))
                    module = None
                _scorer_state["module"] = module
            except ImportError:
                _scorer_state["module"] = None
            except Exception:  # a broken scorer must not break the other tools
                log.exception("importing %s failed", SCORER_MODULE)
                _scorer_state["module"] = None
        return _scorer_state["module"]


def _register_resources(mcp: MCPServer, tasks: TaskStore, example_infos) -> None:
    @mcp.resource(
        "acptools://examples",
        name="examples",
        title="Bundled example tasks",
        description="JSON list of the bundled example tasks (what list_examples returns).",
        mime_type="application/json",
    )
    def examples_index() -> str:
        return json.dumps([e.model_dump() for e in example_infos()], indent=1)

    for name in bundled.names():
        domain, problem = bundled.texts(name)
        for part, text in (("domain", domain), ("problem", problem)):
            mcp.add_resource(
                TextResource(
                    uri=EXAMPLE_URI.format(name=name, part=part),
                    name=f"{name}-{part}",
                    title=f"{name}: {part} PDDL",
                    description=f"PDDL {part} of the bundled example {name!r} (load it with load_task(example=...)).",
                    mime_type="text/plain",
                    text=text,
                )
            )

    @mcp.resource(
        "acptools://tasks/{task_id}/domain.pddl",
        name="task-domain",
        description="The PDDL domain text of a loaded task.",
        mime_type="text/plain",
    )
    def task_domain(task_id: str) -> str:
        return _task_text(tasks, task_id).domain_text

    @mcp.resource(
        "acptools://tasks/{task_id}/problem.pddl",
        name="task-problem",
        description="The PDDL problem text of a loaded task.",
        mime_type="text/plain",
    )
    def task_problem(task_id: str) -> str:
        return _task_text(tasks, task_id).problem_text


def _task_text(tasks: TaskStore, task_id: str) -> Task:
    try:
        return tasks.get(task_id)
    except ToolError as exc:
        raise ResourceNotFoundError(str(exc)) from None
