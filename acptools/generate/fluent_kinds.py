"""ActionReasoningBench's four fluent kinds, defined for any PDDL domain and proven per task:

- static: a predicate no action changes (its atoms come from the problem and never change);
- derived: a predicate defined by an axiom (a `:derived` predicate of the domain, or one the
  ramification compilation made derived, `acptools.generate.ramify`);
- constrained: a fluent predicate under a proven at-most-one invariant: for some argument position,
  whatever the other arguments, at most one value makes it true in any reachable state ("a truck is
  at only one location"). Proven with h^2 from the initial state (`acptools.claims.exclusive`): every
  two atoms that differ only in that position are mutex, so the invariant holds in every reachable state;
  for a task with axioms (where acptools computes no h^2) by checking every reachable state, when
  there are at most MAX_STATES;
- base: every other fluent predicate (including fluents whose invariants h^2 could not prove).

The classification is per task (invariants depend on the problem's initial state), so it is computed
once per task and recorded per record (`fluent_kind`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..budget import Budget
from ..claims import exclusive
from ..errors import BudgetExceeded
from .states import reachable_states

KINDS = ("base", "constrained", "derived", "static")
H2_SECONDS = 5.0  # CPU seconds for the h^2 proof of a task's invariants
MAX_STATES = 20000  # the most reachable states an exhaustive proof goes through


@dataclass(frozen=True)
class Constraint:
    """A proven invariant: `predicate` holds for at most one value of argument `position` (0-based)
    for any values of its other arguments, in every reachable state (`how`: its proof)."""

    predicate: str
    position: int
    how: str = "h2-mutex"  # or "exhaustive-search"

    def text(self, params) -> str:
        """The invariant in words, e.g. 'for each ?c, (at ?c ?l) holds for at most one ?l'."""
        names = [v for v, _ in params]
        others = [v for k, v in enumerate(names) if k != self.position]
        atom = "(" + " ".join([self.predicate] + names) + ")"
        lead = f"for each {', '.join(others)}, " if others else ""
        return f"{lead}{atom} holds for at most one {names[self.position]} at a time"


@dataclass
class FluentKinds:
    """The kind of every predicate of one task, and the invariants that make fluents constrained."""

    kind: dict[str, str]
    constraints: dict[str, Constraint] = field(default_factory=dict)
    arity: dict[str, int] = field(default_factory=dict)

    def predicates(self, kind: str) -> list[str]:
        """The predicates of a kind, sorted."""
        return sorted(p for p, k in self.kind.items() if k == kind)

    def available(self, wanted, about_objects: bool = False) -> tuple[str, ...]:
        """The wanted kinds the task has at least one predicate of (in the order wanted); with
        `about_objects`, a predicate with arguments (a property of an object)."""
        present = {k for p, k in self.kind.items() if not about_objects or self.arity.get(p)}
        return tuple(k for k in wanted if k in present)

    def about_objects(self, kind: str) -> bool:
        """Has the kind a predicate with arguments (one that says something about an object)?"""
        return any(self.arity.get(p) for p in self.predicates(kind))


def check_kinds(text) -> tuple[str, ...]:
    """The kinds of a --fluents value ('base,static' or a sequence); ValueError names a wrong one."""
    parts = text.split(",") if isinstance(text, str) else list(text)
    kinds = tuple(dict.fromkeys(p.strip().lower() for p in parts if p.strip()))
    bad = [k for k in kinds if k not in KINDS]
    if bad or not kinds:
        raise ValueError(f"unknown fluent kind(s) {', '.join(bad) or '(none given)'}; kinds: {', '.join(KINDS)}")
    return kinds


def _groups(task, pred: str, position: int) -> list[int]:
    """Masks of the task's atoms of `pred` that agree on every argument but `position`."""
    groups: dict[tuple, int] = {}
    for i, (p, args) in enumerate(task.atoms):
        if p == pred and len(args) > position:
            rest = args[:position] + args[position + 1 :]
            groups[rest] = groups.get(rest, 0) | 1 << i
    return list(groups.values())


def _at_most_one(task, group: int, budget, states) -> bool:
    """Is it proven that at most one atom of `group` holds in any reachable state?"""
    if states is not None:
        return all((s & group) & ((s & group) - 1) == 0 for s in states)
    return exclusive(task, group, budget)


def _constraint(task, pred: str, arity: int, budget, states) -> Constraint | None:
    """The first argument position (from the last) under a proven at-most-one invariant, or None.
    Vacuous invariants (no two atoms could ever compete) are not counted."""
    for position in reversed(range(arity)):
        groups = _groups(task, pred, position)
        if not any(g & (g - 1) for g in groups):
            continue
        if all(_at_most_one(task, g, budget, states) for g in groups):
            return Constraint(pred, position, "h2-mutex" if states is None else "exhaustive-search")
    return None


def classify(task, derived=(), seconds: float = H2_SECONDS) -> FluentKinds:
    """The kind of each predicate of `task`; `derived`: predicates defined by axioms (the domain's
    own `:derived` ones are found by themselves). An invariant whose proof runs out of its CPU
    budget is not claimed (the fluent counts as base)."""
    derived = set(derived) | set(getattr(task.domain, "derived", None) or ())
    kinds, constraints = {}, {}
    arity = {n: len(p.params) for n, p in task.domain.predicates.items()}
    budget = Budget(None, cpu=seconds)
    states = reachable_states(task, MAX_STATES) if getattr(task, "axioms", None) else None
    if getattr(task, "axioms", None) and states is None:  # nothing proves an invariant
        return FluentKinds(
            {
                n: ("derived" if n in derived else "base" if n in task.fluents else "static")
                for n in task.domain.predicates
            },
            {},
            arity,
        )
    for name, pred in sorted(task.domain.predicates.items()):
        if name in derived:
            kinds[name] = "derived"
        elif name not in task.fluents:
            kinds[name] = "static"
        else:
            kinds[name] = "base"
            try:
                c = _constraint(task, name, len(pred.params), budget, states) if pred.params else None
            except BudgetExceeded:
                c = None
            if c is not None:
                kinds[name], constraints[name] = "constrained", c
    return FluentKinds(kinds, constraints, arity)
