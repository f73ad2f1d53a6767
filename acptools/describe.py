"""A task described for a reader (an LLM agent, a person): objects by type, fluent and static
predicates with their signatures, action schemas with their precondition and effect as PDDL text,
the initial state and the goal. The PDDL text is written by `pddl.writer`, so what a reader sees
is exactly what the planner reads. Every name is a plain `str` (the parser's names carry their
source position), so a summary converts to JSON as it is."""

from __future__ import annotations

from dataclasses import dataclass

from .ground.bitset import bits
from .ground.names import render, split_name
from .pddl.parser import parse_domain
from .pddl.writer import effect, expression, formula, typed_list, write_problem
from .task import Task

# the name and formula writers a reader of PDDL needs (question rendering, prompts), from the one place
# that writes them; and the domain reader, for what needs a domain without a problem (a template to start from)
__all__ = [
    "describe",
    "formula",
    "parse_domain",
    "render",
    "split_name",
    "TaskSummary",
    "ActionSchemaInfo",
    "Parameter",
    "PredicateInfo",
]


@dataclass
class Parameter:
    """An action schema's parameter: its variable and type."""

    name: str  # the variable, e.g. '?c'
    type: str  # its type; '(either a b)' for a union type


@dataclass
class PredicateInfo:
    """A predicate with its parameters and PDDL signature."""

    name: str
    parameters: list[Parameter]
    signature: str  # '(at ?c - car ?l - location)'


@dataclass
class ActionSchemaInfo:
    """An action schema with its precondition and effect as PDDL text."""

    name: str
    parameters: list[Parameter]
    signature: str  # '(board ?car - car ?loc - location)'
    precondition: str | None  # PDDL text; None for a construct the writer cannot show
    effect: str | None


@dataclass
class TaskSummary:
    """What `describe` returns: objects by type, predicates, action schemas, init and goal."""

    task_id: str
    domain_name: str
    problem_name: str
    objects_by_type: dict[str, list[str]]
    fluent_predicates: list[PredicateInfo]  # what states are made of
    static_predicates: list[PredicateInfo]  # fixed by the problem
    action_schemas: list[ActionSchemaInfo]
    num_ground_actions: int  # type-correct ground actions (static facts ignored: an exact count)
    num_possible_actions: int  # those whose static preconditions hold (what a server limits)
    num_propositions: int  # fluent ground atoms
    init: list[str]  # fluent atoms true initially
    static_facts: list[str]
    goal: list[str]  # atoms the goal mentions positively
    goal_formula: str  # the whole goal as PDDL text


def _parameters(params) -> list[Parameter]:
    return [
        Parameter(str(var), str(types[0]) if len(types) == 1 else f"(either {' '.join(types)})")
        for var, types in params
    ]


def _signature(name: str, params) -> str:
    return f"({name} {typed_list(params)})" if params else f"({name})"


def numeric_effect(e: tuple) -> str:
    """An effect as PDDL text, numeric effects included (the summary is for reading)."""
    return effect(e, numeric=True)


def _text(write, part) -> str | None:
    """PDDL text of a formula or effect; None when the writer has no form for a construct (the
    summary is for reading, so an exotic construct leaves its text out rather than failing)."""
    try:
        return write(part)
    except ValueError:
        return None


def describe(task: Task) -> TaskSummary:
    """The summary of a loaded task (what the MCP server's load_task returns)."""
    domain = task.domain
    predicates = [
        PredicateInfo(str(p.name), _parameters(p.params), _signature(p.name, p.params))
        for p in sorted(domain.predicates.values(), key=lambda p: p.name)
    ]
    return TaskSummary(
        task_id=task.id,
        domain_name=str(domain.name),
        problem_name=str(task.problem.name),
        objects_by_type={str(t): [str(o) for o in objs] for t, objs in sorted(task.types.by_type.items())},
        fluent_predicates=[p for p in predicates if p.name in task.fluents],
        static_predicates=[p for p in predicates if p.name not in task.fluents],
        action_schemas=[
            ActionSchemaInfo(
                str(a.name),
                _parameters(a.params),
                _signature(a.name, a.params),
                _text(formula, a.precondition),
                _text(numeric_effect, a.effect),
            )
            for a in domain.actions.values()
        ],
        num_ground_actions=task.num_actions,
        num_possible_actions=task.num_possible_actions,
        num_propositions=len(task.atoms),
        init=task.names(task.init),
        static_facts=sorted(render(p, args) for p, args in task.static_true),
        goal=task.names(task.goal_atoms),
        goal_formula=_text(formula, task.problem.goal) or "",
    )


def state_problem(task: Task, state: int) -> str:
    """The PDDL problem with `state` as its initial state; on a numeric task with its atoms, the
    values it defines, the problem's values of the functions no action changes, and its metric."""
    g = task.grounded
    if g.numeric is None:
        return task.problem_for(state)
    names = task.names(state)
    facts = set(g.static_true) | {g.atoms[i] for i in bits(g.atoms_of(state) & ~g.derived & ~g.numeric.comparison_mask)}
    init = " ".join("(" + " ".join((p,) + tuple(a)) + ")" for p, a in sorted(facts))
    defined = [n for n in names if n.startswith("(= ")]
    changing = {n[len("(= ") :].rsplit(" ", 1)[0] for n in defined}
    static = [
        f"(= ({' '.join((f,) + tuple(args))}) {expression(('num', v))})"
        for (f, args), v in sorted(g.problem.num_init.items())
        if f"({' '.join((f,) + tuple(args))})" not in changing
    ]
    text = write_problem(g.problem, g.domain.name, ())
    text = text.replace(" (:init )", " (:init " + " ".join(x for x in [init, *defined, *static] if x) + ")", 1)
    return _with_metric(text, g.problem.metric)


def _with_metric(text: str, metric) -> str:
    """A problem's text with its metric written back (plans are measured as the task measures them)."""
    if metric is None or metric[1] == ("total-time",):
        return text
    return text.rstrip()[:-1] + f"\n (:metric {metric[0]} {expression(metric[1])}))\n"
