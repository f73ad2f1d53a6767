"""The lifted model: what a PDDL domain and problem say, before grounding.

Formulas and effects are plain tuples (tag first) so grounding can walk them with little code:
  formula: ("atom", pred, args) ("=", a, b) ("not", f) ("and", fs) ("or", fs) ("imply", a, b)
           ("forall", params, f) ("exists", params, f) ("true",)
  effect:  ("add", pred, args) ("del", pred, args) ("and", es) ("forall", params, e) ("when", cond, e)
Derived predicates are defined by axioms (`:derived`); `Domain.strata` orders them so that an axiom
only negates predicates of lower strata (its value is final before it is read).
Params are tuples of (variable, types); a variable starts with '?'.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Param = tuple[str, tuple[str, ...]]


@dataclass
class Predicate:
    """A predicate: name and typed parameters."""

    name: str
    params: tuple[Param, ...]


@dataclass
class ActionSchema:
    """An action schema: name, typed parameters, precondition and effect formulas."""

    name: str
    params: tuple[Param, ...]
    precondition: tuple
    effect: tuple


@dataclass
class Axiom:
    """A derived predicate's rule: the head (predicate, typed variables) holds whenever the body does."""

    predicate: str
    params: tuple[Param, ...]
    body: tuple


@dataclass
class Domain:
    """A parsed domain: types, constants, predicates and action schemas."""

    name: str
    requirements: tuple[str, ...]
    supertypes: dict[str, tuple[str, ...]]  # type -> its direct parents ('object' is the root)
    constants: dict[str, tuple[str, ...]]  # name -> types
    predicates: dict[str, Predicate]
    actions: dict[str, ActionSchema]
    axioms: list[Axiom] = field(default_factory=list)
    strata: dict[str, int] = field(default_factory=dict)  # derived predicate -> its stratum (0 first)

    @property
    def derived(self) -> set[str]:
        """The derived predicates (those some axiom defines)."""
        return set(self.strata)


@dataclass
class Problem:
    """A parsed problem: objects, init facts and goal formula."""

    name: str
    domain_name: str
    objects: dict[str, tuple[str, ...]]
    init: set[tuple[str, tuple[str, ...]]]
    goal: tuple
    has_metric: bool = False
    ignored: list[str] = field(default_factory=list)
