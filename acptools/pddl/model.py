"""The lifted model: what a PDDL domain and problem say, before grounding.

Formulas and effects are plain tuples (tag first) so grounding can walk them with little code:
  formula: ("atom", pred, args) ("=", a, b) ("not", f) ("and", fs) ("or", fs) ("imply", a, b)
           ("forall", params, f) ("exists", params, f) ("true",)
  effect:  ("add", pred, args) ("del", pred, args) ("and", es) ("forall", params, e) ("when", cond, e)
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
class Domain:
    """A parsed domain: types, constants, predicates and action schemas."""
    name: str
    requirements: tuple[str, ...]
    supertypes: dict[str, tuple[str, ...]]  # type -> its direct parents ('object' is the root)
    constants: dict[str, tuple[str, ...]]   # name -> types
    predicates: dict[str, Predicate]
    actions: dict[str, ActionSchema]


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
