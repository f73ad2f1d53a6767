"""The lifted model: what a PDDL domain and problem say, before grounding.

Formulas and effects are plain tuples (tag first) so grounding can walk them with little code:
  formula: ("atom", pred, args) ("=", a, b) ("not", f) ("and", fs) ("or", fs) ("imply", a, b)
           ("forall", params, f) ("exists", params, f) ("true",)
           ("cmp", op, lhs, rhs)         op in < <= = >= >, lhs and rhs numeric expressions
  effect:  ("add", pred, args) ("del", pred, args) ("and", es) ("forall", params, e) ("when", cond, e)
           ("num-eff", op, term, expr)   op in assign increase decrease scale-up scale-down,
                                         term a ("fn", ...) expression, expr the value it is combined with
  numeric expression (PDDL 2.1 level 2):
           ("num", Fraction)             a constant, exact (PDDL's 0.1 is Fraction(1, 10))
           ("fn", name, args)            a function term; args are objects, constants or variables
           ("+", a, b) ("-", a, b) ("*", a, b) ("/", a, b)   binary; (+ a b c) is read as ((a + b) + c)
           ("neg", e)                    unary minus
`(= a b)` of two names or variables is object equality ("="); with a number or a function term on
either side it is a numeric comparison ("cmp", "=", ...). Every function is number-valued.
Derived predicates are defined by axioms (`:derived`); `Domain.strata` orders them so that an axiom
only negates predicates of lower strata (its value is final before it is read).
Params are tuples of (variable, types); a variable starts with '?'.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

Param = tuple[str, tuple[str, ...]]
GroundTerm = tuple[str, tuple[str, ...]]  # (function, objects): the key of an initial value
COMPARISONS = ("<", "<=", "=", ">=", ">")
NUMERIC_EFFECTS = ("assign", "increase", "decrease", "scale-up", "scale-down")
ARITHMETIC = ("+", "-", "*", "/")


@dataclass
class Predicate:
    """A predicate: name and typed parameters."""

    name: str
    params: tuple[Param, ...]


@dataclass
class Function:
    """A numeric function (fluent): name and typed parameters; its value is a number."""

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
    """A parsed domain: types, constants, predicates, functions and action schemas."""

    name: str
    requirements: tuple[str, ...]
    supertypes: dict[str, tuple[str, ...]]  # type -> its direct parents ('object' is the root)
    constants: dict[str, tuple[str, ...]]  # name -> types
    predicates: dict[str, Predicate]
    actions: dict[str, ActionSchema]
    axioms: list[Axiom] = field(default_factory=list)
    strata: dict[str, int] = field(default_factory=dict)  # derived predicate -> its stratum (0 first)
    functions: dict[str, Function] = field(default_factory=dict)

    @property
    def derived(self) -> set[str]:
        """The derived predicates (those some axiom defines)."""
        return set(self.strata)


@dataclass
class Problem:
    """A parsed problem: objects, init facts and values, goal formula and metric."""

    name: str
    domain_name: str
    objects: dict[str, tuple[str, ...]]
    init: set[tuple[str, tuple[str, ...]]]
    goal: tuple
    has_metric: bool = False  # the problem has a (:metric ...) section
    ignored: list[str] = field(default_factory=list)
    num_init: dict[GroundTerm, Fraction] = field(default_factory=dict)  # (= (f o) v) of :init
    metric: tuple[str, tuple] | None = None  # ("minimize" | "maximize", ground expression)
