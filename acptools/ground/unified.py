"""A unified-planning Problem as the PDDL acptools reads, and names back to the Problem's items.

The Problem is written by unified-planning's own `PDDLWriter`, so what a Problem means in PDDL is
decided by unified-planning, not re-implemented here. The writer renames what PDDL cannot spell
(upper case, clashes between an action and an object, keywords); `UPNames` keeps its maps, so every
name acptools answers with turns back into the Problem's own `Action`, `Object` and `Fluent`.

Features outside acptools' fragment are refused before writing, by the Problem's `kind`.
"""

from __future__ import annotations

from unified_planning.exceptions import UPException
from unified_planning.io import PDDLWriter
from unified_planning.model import ProblemKind
from unified_planning.model.problem_kind_versioning import LATEST_PROBLEM_KIND_VERSION
from unified_planning.plans import ActionInstance

from ..errors import AcpError, UnknownNameError
from .names import render, split_name

# the Problem features acptools reads; action costs are the task's metric (`task.metric`)
SUPPORTED_FEATURES: dict[str, list[str]] = {
    "PROBLEM_CLASS": ["ACTION_BASED"],
    "TYPING": ["FLAT_TYPING", "HIERARCHICAL_TYPING"],
    "CONDITIONS_KIND": [
        "NEGATIVE_CONDITIONS",
        "DISJUNCTIVE_CONDITIONS",
        "EQUALITIES",
        "EXISTENTIAL_CONDITIONS",
        "UNIVERSAL_CONDITIONS",
    ],
    "EFFECTS_KIND": [
        "CONDITIONAL_EFFECTS",
        "FORALL_EFFECTS",
        "STATIC_FLUENTS_IN_BOOLEAN_ASSIGNMENTS",
        "FLUENTS_IN_BOOLEAN_ASSIGNMENTS",
    ],
    "QUALITY_METRICS": ["PLAN_LENGTH", "ACTIONS_COST"],
    "ACTIONS_COST_KIND": [
        "STATIC_FLUENTS_IN_ACTIONS_COST",
        "INT_NUMBERS_IN_ACTIONS_COST",
        "REAL_NUMBERS_IN_ACTIONS_COST",
    ],
}
# numeric fluents (PDDL 2.1 level 2): exact for simulation and validation; a fluent's bounds (a
# BOUNDED_TYPES kind) are not PDDL, so such a Problem is refused rather than read without them
NUMERIC_FEATURES: dict[str, list[str]] = {
    "PROBLEM_TYPE": ["SIMPLE_NUMERIC_PLANNING", "GENERAL_NUMERIC_PLANNING"],
    "NUMBERS": ["CONTINUOUS_NUMBERS", "DISCRETE_NUMBERS"],
    "FLUENTS_TYPE": ["INT_FLUENTS", "REAL_FLUENTS", "NUMERIC_FLUENTS"],
    "EFFECTS_KIND": [
        "INCREASE_EFFECTS",
        "DECREASE_EFFECTS",
        "STATIC_FLUENTS_IN_NUMERIC_ASSIGNMENTS",
        "FLUENTS_IN_NUMERIC_ASSIGNMENTS",
    ],
    "INITIAL_STATE": ["UNDEFINED_INITIAL_NUMERIC"],
}

# how a refused feature is named to the user (the rest: the feature's own name, in words)
FEATURE_WORDS = {
    "INT_FLUENTS": "numeric fluents",
    "REAL_FLUENTS": "numeric fluents",
    "NUMERIC_FLUENTS": "numeric fluents",
    "OBJECT_FLUENTS": "object-valued fluents",
    "CONTINUOUS_TIME": "durative actions (continuous time)",
    "DISCRETE_TIME": "durative actions (discrete time)",
    "HIERARCHICAL": "hierarchical (HTN) problems",
    "SCHEDULING": "scheduling problems",
    "ACTION_BASED_MULTI_AGENT": "multi-agent problems",
    "CONTINGENT": "contingent planning",
    "SIMULATED_EFFECTS": "simulated effects",
    "STATE_INVARIANTS": "state invariants",
    "TRAJECTORY_CONSTRAINTS": "trajectory constraints",
    "BOUNDED_TYPES": "bounded numeric types (PDDL has no bounds; declare the fluents unbounded)",
    "FLUENTS_IN_ACTIONS_COST": "action costs that depend on changing fluents",
}


def supported_kind() -> ProblemKind:
    """The ProblemKind acptools supports (what an engine's `supported_kind` returns)."""
    kind = ProblemKind(version=LATEST_PROBLEM_KIND_VERSION)
    for category, features in _features().items():
        for feature in features:
            getattr(kind, f"set_{category.lower()}")(feature)
    return kind


def _features() -> dict[str, list[str]]:
    """The classical features and the numeric ones, by category."""
    merged = {c: list(f) for c, f in SUPPORTED_FEATURES.items()}
    for category, features in NUMERIC_FEATURES.items():
        merged.setdefault(category, []).extend(features)
    return merged


def unsupported_features(kind: ProblemKind) -> list[str]:
    """The features of a Problem kind outside acptools' fragment, in words (empty: supported)."""
    allowed = {f for features in _features().values() for f in features}
    return sorted(
        {f"{FEATURE_WORDS.get(f, f.lower().replace('_', ' '))} ({f})" for f in kind.features if f not in allowed}
    )


def convert(problem) -> tuple[str, str, UPNames]:
    """(domain text, problem text, names) of a unified-planning Problem; AcpError naming what
    acptools does not support."""
    # non-constant boolean assignments (f := g) are written as the conditional effects they mean
    writer = PDDLWriter(problem, rewrite_bool_assignments=True)
    refused = unsupported_features(writer.problem_kind)  # the writer's copy: a Problem's kind is not cached
    if refused:
        raise AcpError(
            f"unsupported: the Problem {problem.name!r} has {', '.join(refused)}",
            "problem",
            "acptools reads STRIPS with types, negative, disjunctive and quantified conditions, equality, "
            "conditional and universal effects, action costs, and numeric fluents (PDDL 2.1 level 2)",
        )
    try:
        domain_text, problem_text = writer.get_domain(), writer.get_problem()
    except UPException as e:
        raise AcpError(f"unified-planning cannot write the Problem {problem.name!r} as PDDL: {e}", "problem") from e
    return domain_text, problem_text, UPNames(problem, writer)


class UPNames:
    """Names both ways between the PDDL a Problem was written as and the Problem's own items."""

    def __init__(self, problem, writer: PDDLWriter):
        self.problem = problem
        self.writer = writer
        self.em = problem.environment.expression_manager

    def item(self, pddl_name: str, where: str = ""):
        """The Problem's Action, Object, Fluent or type written as `pddl_name`."""
        try:
            return self.writer.get_item_named(pddl_name)
        except UPException:
            raise UnknownNameError(f"{pddl_name!r} names nothing in the Problem {self.problem.name!r}", where) from None

    def pddl_name(self, item) -> str:
        """The PDDL name an Action, Object or Fluent of the Problem was written as."""
        try:
            return self.writer.get_pddl_name(item)
        except UPException:
            raise UnknownNameError(
                f"{item} is not an item of the Problem {self.problem.name!r}",
                "",
                "pass actions, objects and fluents of the Problem the task was loaded from",
            ) from None

    def action_instance(self, name: str) -> ActionInstance:
        """'(board c0 l0)' -> the ActionInstance of the Problem's action on its objects."""
        schema, args = split_name(name, "action")
        return ActionInstance(self.item(schema, name), [self.em.ObjectExp(self.item(a, name)) for a in args])

    def action_name(self, action, parameters=None) -> str:
        """An ActionInstance (or an Action and its parameters) -> its acptools name '(board c0 l0)'."""
        if isinstance(action, ActionInstance):
            action, parameters = action.action, action.actual_parameters
        return render(self.pddl_name(action), [self._object_name(p) for p in parameters or ()])

    def fluent_exp(self, atom: str):
        """'(at c0 l1)' -> the Problem's fluent expression at(c0, l1) (an FNode)."""
        pred, args = split_name(atom, "atom")
        fluent = self.item(pred, atom)
        return self.em.FluentExp(fluent, [self.em.ObjectExp(self.item(a, atom)) for a in args])

    def atom_name(self, fluent_exp) -> str:
        """A fluent expression of the Problem on objects -> its acptools atom name '(at c0 l1)'."""
        if not fluent_exp.is_fluent_exp():
            raise AcpError(f"{fluent_exp} is not a fluent expression", "atom", "pass a fluent applied to objects")
        return render(self.pddl_name(fluent_exp.fluent()), [self._object_name(a) for a in fluent_exp.args])

    def _object_name(self, exp) -> str:
        if not exp.is_object_exp():
            raise AcpError(
                f"{exp} is not an object of the Problem", "parameters", "ground every parameter with an object"
            )
        return self.pddl_name(exp.object())
