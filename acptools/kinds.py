"""The question kinds: one registry entry per kind, read by the answer reader, the dataset loader,
scoring, generation, the MCP server and the harness adapters.

A kind is what a record asks. ACPBench Hard's eight tasks (`app` ... `nexta`) and `plan` are the
`hard` form; ACPBench (v1) asks yes/no (`app_bool`, ...) and 4-choice (`app_mcq`, ...) questions of
its seven tasks; ActionReasoningBench asks its families (`arb_effects`, ...). A record's `group` names
its kind (`applicable_actions_gen` -> `app`, `landmarks_mcq` -> `land_mcq`).

Static facts live in `KINDS`; the functions that implement a kind are named in `IMPLEMENTATIONS` as
"module:attribute" and imported the first time one is asked for (as unified-planning's factory does),
so this module imports nothing from acptools, every layer can read it, and nothing depends on which
modules were imported before:

    implementation(GRADER, "app")     exact semantics (acptools.scoring.exact)
    implementation(REFERENCE, "app")  the published lm-eval scorer's semantics (acptools.scoring.reference)
    implementation(GENERATOR, "app")  a question builder (acptools.generate.hard, .acp, .arb)
    implementation(GOLD, "app")       the stored answer written as text (acptools.scoring)

Adding a kind: one `Kind(...)` below, plus its grader(s) and generator where they belong, named in
`_implementations` (the tests check that every kind has them and that each resolves, and that every
tool named here exists in the server).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

FORMS = ("hard", "bool", "mcq", "arb")


@dataclass(frozen=True)
class Kind:
    """One question kind. `items`, `single` and `none_ok` say what a free-text answer to a hard kind
    holds (the answer reader's rules); `stored` is the shape of a stored answer as the reference
    scorer reads it: (type, description, keys that must hold lists); `cost` the relative work of
    proving or grading one item (batch work is scheduled largest first); `tools` the MCP tools that
    answer it outright or let a caller work it out by probing."""

    name: str
    form: str
    group: str
    asks: str
    items: str | None = None
    single: bool = False
    none_ok: bool = False
    stored: tuple[type, str, tuple[str, ...]] | None = None
    cost: float = 1.0
    tools: tuple[str, ...] = ()
    task: str | None = None  # bool / mcq: the ACPBench task it is about


ACTION, ATOM = "ground action", "atom"
_HARD = (
    Kind(
        "app",
        "hard",
        "applicable_actions_gen",
        "every action applicable in the state",
        items=ACTION,
        stored=(list, "a list of actions", ()),
        tools=("list_applicable", "progress", "validate_plan", "optimal_next_action", "start_episode", "step_episode"),
    ),
    Kind(
        "prog",
        "hard",
        "progression_gen",
        "the positive and negative effects of an action",
        items=ATOM,
        stored=(dict, "{'pos': [...], 'neg': [...]}", ("pos", "neg")),
        tools=("progress", "validate_plan", "step_episode"),
    ),
    Kind(
        "reach",
        "hard",
        "reachable_atom_gen",
        "a proposition that can never hold",
        items=ATOM,
        single=True,
        none_ok=True,
        stored=(list, "a list of atoms", ()),
        cost=20.0,
        tools=("is_reachable", "unreachable_atoms"),
    ),
    Kind(
        "areach",
        "hard",
        "reachable_action_gen",
        "an action that can never become applicable",
        items=ACTION,
        single=True,
        none_ok=True,
        stored=(list, "a list of actions", ()),
        cost=20.0,
        tools=("is_action_reachable", "unreachable_actions"),
    ),
    Kind(
        "val",
        "hard",
        "validation_gen",
        "the first inapplicable action of a sequence",
        stored=(int, "an integer index", ()),
        tools=("progress", "validate_plan"),
    ),
    Kind(
        "just",
        "hard",
        "action_justification_gen",
        "a plan with one or two consecutive actions removed",
        items=ACTION,
        stored=(list, "a list of removals", ()),
        cost=2.0,
        tools=("validate_plan", "simplify_plan"),
    ),
    Kind(
        "land",
        "hard",
        "landmarks_gen",
        "a non-trivial fact landmark",
        items=ATOM,
        single=True,
        none_ok=True,
        stored=(dict, "{'yes': [...], 'no': [...]}", ("yes",)),
        cost=10.0,
        tools=("is_landmark", "landmarks"),
    ),
    Kind(
        "nexta",
        "hard",
        "goal_closer_gen",
        "an action that brings the goal one step closer",
        items=ACTION,
        single=True,
        stored=(dict, "{'yes': [...], 'no': [...], 'maybe': [...], 'opt': '...'}", ("yes", "no", "maybe")),
        cost=100.0,
        tools=("optimal_next_action", "plan", "start_episode", "step_episode", "episode_summary"),
    ),
)
HARD: tuple[str, ...] = tuple(k.name for k in _HARD)  # ACPBench Hard's eight tasks, in the paper's order

# ACPBench (v1): its seven tasks and the stem of their group names
ACP_STEMS = {
    "app": "applicable_actions",
    "prog": "progression",
    "reach": "reachable_atom",
    "areach": "reachable_action",
    "val": "validation",
    "just": "action_justification",
    "land": "landmarks",
}
ACP_TASKS = tuple(ACP_STEMS)

# ActionReasoningBench's question families
ARB_FAMILIES = (
    "fluent_tracking",
    "state_tracking",
    "action_executability",
    "effects",
    "numerical_reasoning",
    "composite",
    "hallucination",
    "object_tracking",
)

PLAN_KIND = "plan"
PLAN_GROUP = "plan_generation"


def _generated() -> tuple[Kind, ...]:
    hard = {k.name: k for k in _HARD}
    out = [
        Kind(
            PLAN_KIND,
            "hard",
            PLAN_GROUP,
            "a plan that reaches the goal",
            items=ACTION,
            cost=100.0,
            tools=("validate_plan", "plan"),
        )
    ]
    for form, what in (("bool", "yes or no: is a claim about"), ("mcq", "which of four options is right about")):
        for task, stem in ACP_STEMS.items():
            out.append(
                Kind(
                    f"{task}_{form}",
                    form,
                    f"{stem}_{form}",
                    f"{what} {hard[task].asks}",
                    cost=hard[task].cost,
                    tools=hard[task].tools,
                    task=task,
                )
            )
    for family in ARB_FAMILIES:
        out.append(
            Kind(
                f"arb_{family}",
                "arb",
                f"arb_{family}",
                f"ActionReasoningBench {family.replace('_', ' ')} after a sequence of actions",
            )
        )
    return tuple(out)


KINDS: dict[str, Kind] = {k.name: k for k in _HARD + _generated()}
GROUP_TO_KIND: dict[str, str] = {k.group: k.name for k in KINDS.values()}
KIND_TO_GROUP: dict[str, str] = {k.name: k.group for k in KINDS.values()}
GENERATED: tuple[str, ...] = tuple(k for k in KINDS if k not in HARD)  # kinds graded from their records


def kinds_of_form(form: str) -> tuple[str, ...]:
    """The kinds a form generates: 'hard' -> the eight tasks and plan; 'bool' -> app_bool, ..."""
    return tuple(k.name for k in KINDS.values() if k.form == form)


def kind_of(form: str, task: str) -> str:
    """The kind of a form's task: ('hard', 'app') -> 'app', ('bool', 'app') -> 'app_bool',
    ('arb', 'effects') -> 'arb_effects'."""
    return {"hard": task, "bool": f"{task}_bool", "mcq": f"{task}_mcq", "arb": f"arb_{task}"}[form]


def form_kind(name) -> str | None:
    """The kind a group, kind or lm-eval task name of a generated form names ('landmarks_mc',
    'acp_land_mcq', 'land_mcq' -> 'land_mcq'); None when it names none of them (the hard tasks'
    names are read by acptools.answers.canonical_task)."""
    if not isinstance(name, str):
        return None
    t = name.strip().lower()
    if t.endswith("_mc"):
        t += "q"
    if t.startswith("acp_") and t[4:] in GENERATED:
        t = t[4:]
    if t in GENERATED:
        return t
    kind = GROUP_TO_KIND.get(t)
    return kind if kind in GENERATED else None


def cost(kind: str) -> float:
    """The relative work of one item of `kind` (1.0 for a name the registry does not know)."""
    return KINDS[kind].cost if kind in KINDS else 1.0


def tools_answering() -> dict[str, frozenset[str]]:
    """MCP tool name -> the kinds it answers (from each kind's `tools`)."""
    out: dict[str, set[str]] = {}
    for k in KINDS.values():
        if k.form == "hard" and k.name != PLAN_KIND:
            for tool in k.tools:
                out.setdefault(tool, set()).add(k.name)
    return {tool: frozenset(kinds) for tool, kinds in out.items()}


# ---- implementations: "module:attribute", imported when first asked for ------------------------------

GRADER, REFERENCE, GENERATOR, GOLD = "grader", "reference grader", "generator", "gold writer"


def _implementations() -> dict[tuple[str, str], str]:
    """(role, kind) -> "module:attribute" of the function (or of a mapping from kind to function)."""
    out: dict[tuple[str, str], str] = {}
    for name, kind in KINDS.items():
        hard = name in HARD
        out[(GOLD, name)] = (
            "acptools.scoring.api:hard_gold_text" if hard else "acptools.scoring.generated_forms:gold_text"
        )
        if hard:
            out[(GRADER, name)] = f"acptools.scoring.exact:{name}"
            out[(REFERENCE, name)] = f"acptools.scoring.reference:{name}"
        if kind.form == "hard":
            out[(GENERATOR, name)] = f"acptools.generate.hard:{name}"
        elif kind.form == "arb":
            out[(GENERATOR, name)] = f"acptools.generate.arb:{name.removeprefix('arb_')}"
        else:
            out[(GENERATOR, name)] = "acptools.generate.acp:BUILDERS"
    return out


IMPLEMENTATIONS: dict[tuple[str, str], str] = _implementations()


@functools.cache
def implementation(role: str, kind: str) -> Callable:
    """The function implementing `kind` in `role`: graders take (Question, parsed answer, budget) and
    return an Outcome; generators take an Item and return a Draft; gold writers take a record."""
    where = IMPLEMENTATIONS.get((role, kind))
    if where is None:
        raise KeyError(f"no {role} is registered for the kind {kind!r}")
    module, _, attribute = where.partition(":")
    found = getattr(importlib.import_module(module), attribute)
    return found[kind] if isinstance(found, Mapping) else found


def registered(role: str) -> frozenset[str]:
    """The kinds that name a function in `role`."""
    return frozenset(kind for r, kind in IMPLEMENTATIONS if r == role)
