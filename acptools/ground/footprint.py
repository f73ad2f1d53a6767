"""How much memory a task will take, known from its lifted model before anything is grounded.

A 300-byte domain can describe 10^8 ground actions, so a memory limit checked after grounding is
checked too late: the memory is spent (and often not given back to the operating system). Here the
atoms are counted exactly (every type-correct fluent atom is numbered at load) and the ground actions
bounded from above: each schema's parameters range over their typed objects, cut by the static facts
of the precondition's top-level conjunction (an object that never appears at that position of such a
fact cannot be bound there, and the tuples of a static relation bound the bindings of its variables
together). The bound times the bytes per item of `GroundedTask.approx_bytes` (the estimate the server
budgets its cache with) is an upper estimate of what loading the task takes, computed in time linear in
the model and its static facts; tracemalloc measured 25-40% of it on generated tasks of 700 to 21 000
atoms and actions. When the bound is over a limit, `within_limits` counts the bindings the static facts
allow (stopping at the limit), so a loose bound never refuses a task that fits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import AcpError

BYTES_PER_ATOM = 480            # an atom's tuple, names both ways and index entries (x1.6 margin)
BYTES_PER_OPERATOR = 960        # an operator and its action's name, index and lists (x1.6 margin)
BYTES_PER_OPERATOR_ATOM = 0.4   # its masks: up to a bit per atom for pre, add and delete (x1.6 margin)


@dataclass(frozen=True)
class Footprint:
    """Fluent atoms (exact), ground actions (an upper bound, or counted when ``counted``) and the
    bytes they take (an upper estimate)."""

    atoms: int
    actions: int
    counted: bool = False

    @property
    def bytes_per_action(self) -> float:
        """The estimated bytes of one ground action (grows with the number of atoms)."""
        return BYTES_PER_OPERATOR + BYTES_PER_OPERATOR_ATOM * self.atoms

    @property
    def bytes(self) -> int:
        """The estimated bytes of the atoms and actions."""
        return int(self.atoms * BYTES_PER_ATOM + self.actions * self.bytes_per_action)

    def room(self, max_bytes: int) -> int:
        """How many ground actions fit in ``max_bytes`` beside the atoms (negative: not even the atoms)."""
        return math.floor((max_bytes - self.atoms * BYTES_PER_ATOM) / self.bytes_per_action)


def within_limits(found: Footprint, max_bytes: int | None, max_actions: int | None, count) -> Footprint:
    """``found``, or an AcpError before grounding when the task may need more than ``max_bytes`` or has
    more than ``max_actions`` ground actions that the static facts allow. When the bound says no,
    ``count(limit)`` counts those actions (None: more than ``limit``), so a loose bound refuses nothing."""
    room = min(math.inf if max_bytes is None else found.room(max_bytes),
               math.inf if max_actions is None else max_actions)
    if found.actions <= room:
        return found
    if room < 0:
        raise _too_big(found, max_bytes)
    counted = count(int(room))
    if counted is not None:
        return Footprint(found.atoms, counted, counted=True)
    if max_bytes is not None and found.room(max_bytes) <= room:
        raise _too_big(found, max_bytes, more_than=int(room))
    raise AcpError(f"the task has more than {max_actions:,} ground actions that its static facts do not rule "
                   "out; it was refused before grounding", "ground actions",
                   "use a smaller problem (fewer objects)")


def _too_big(found: Footprint, max_bytes: int, more_than: int | None = None) -> AcpError:
    counted = "" if more_than is None else f", more than {more_than:,} of them possible by the static facts"
    return AcpError(
        f"the task may need up to {found.bytes / 1e6:,.0f} MB ({found.atoms:,} fluent atoms, up to {found.actions:,} "
        f"ground actions{counted}), more than the memory limit of {max_bytes / 1e6:,.0f} MB; it was refused before "
        "grounding", "memory", "use a smaller problem (fewer objects)")


def footprint(domain, problem, types, fluents) -> Footprint:
    """The footprint of a parsed task (``types`` a TypeTable, ``fluents`` the fluent predicate names)."""
    atoms = sum(math.prod(len(types.of(t)) for _, t in domain.predicates[p].params) for p in fluents)
    static: dict[str, list[tuple[str, ...]]] = {p: [] for p in domain.predicates if p not in fluents}
    for pred, args in problem.init:
        if pred in static:
            static[pred].append(args)
    actions = sum(_bindings_bound(schema, types, static) for schema in domain.actions.values())
    return Footprint(atoms, actions)


def _static_atoms(formula: tuple, static: dict) -> list[tuple[str, tuple[str, ...]]]:
    """The positive atoms of static predicates in a precondition's top-level conjunction."""
    if formula[0] == "and":
        return [a for part in formula[1] for a in _static_atoms(part, static)]
    if formula[0] == "atom" and formula[1] in static:
        return [(formula[1], tuple(formula[2]))]
    return []


def _bindings_bound(schema, types, static: dict) -> int:
    """An upper bound on the argument tuples of ``schema`` that its static preconditions allow."""
    domains = {var: set(types.of(t)) for var, t in schema.params}
    literals = _static_atoms(schema.precondition, static)
    for pred, args in literals:  # an object never at this position of a fact cannot be bound there
        for k, arg in enumerate(args):
            if arg in domains:
                domains[arg] &= {fact[k] for fact in static[pred] if len(fact) == len(args)}
    bound = {var: len(objs) for var, objs in domains.items()}
    uncovered = set(domains)
    for pred, args in sorted(literals, key=lambda lit: len(static[lit[0]])):
        covers = {a for a in args if a in uncovered}
        if covers and len(static[pred]) < math.prod(bound[v] for v in covers):
            # a relation's tuples bound the bindings of its variables together
            for v in covers:
                bound[v] = 1
            bound[min(covers)] = len(static[pred])
            uncovered -= covers
    return math.prod(bound.values())
