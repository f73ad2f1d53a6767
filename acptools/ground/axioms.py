"""Ground axioms (derived predicates) and their evaluation in a state.

A derived atom holds in a state iff the stratified fixpoint of the axioms derives it from the
state's basic atoms (negation as failure: a negated derived atom in a body reads the final value
of a lower stratum). States carry the derived atoms' bits, always recomputed by `close`, so every
question (applicability, progression, goals, searches) reads them like any other atom.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from ..errors import AcpError
from ..pddl.model import Domain
from ..util.shortrepr import bounded_repr

CHECK_EVERY = 1024  # head bindings between budget checks


@bounded_repr
@dataclass(frozen=True, slots=True)
class Rule:
    """One ground axiom disjunct: `head` (an atom bit) holds when all of `pos` and none of `neg` do."""

    head: int
    pos: int
    neg: int


class Axioms:
    """The ground axioms of a task, by stratum, with the mask of every derived atom."""

    def __init__(self, layers: list[list[Rule]], derived: int):
        self.layers = [layer for layer in layers if layer]
        self.rules = [r for layer in self.layers for r in layer]
        self.derived = derived

    def close(self, state: int) -> int:
        """`state` with its derived atoms recomputed from its basic atoms (stratum by stratum, each
        to its fixpoint)."""
        s = state & ~self.derived
        for layer in self.layers:
            changed = True
            while changed:
                changed = False
                for r in layer:
                    if not s & r.head and s & r.pos == r.pos and not s & r.neg:
                        s |= r.head
                        changed = True
        return s

    def relaxed(self, banned: int = 0) -> list[tuple[int, int]]:
        """(positive body, head) per rule whose head is not in `banned`: the axioms as zero-cost
        relaxed actions (negated bodies dropped, which only over-approximates)."""
        return [(r.pos, r.head) for r in self.rules if not r.head & banned]


def ground_axioms(domain: Domain, grounder, limit: int, budget=None) -> Axioms | None:
    """The task's ground axioms (None when the domain has none): every type-correct head binding,
    its body as DNF over atom bits (static facts and equality evaluated away). More than `limit`
    head bindings is an error (before any is grounded), like too many ground operators."""
    if not domain.axioms:
        return None
    types = grounder.types
    heads = sum(math.prod(len(types.of(t)) for _, t in ax.params) for ax in domain.axioms)
    if heads > limit:
        raise AcpError(
            f"the derived predicates have {heads} ground axioms, more than {limit}",
            "grounding",
            "use a smaller problem",
        )
    layers: list[list[Rule]] = [[] for _ in range(max(domain.strata.values()) + 1)]
    derived = 0
    for pred in domain.strata:
        for args in itertools.product(*(types.of(t) for _, t in domain.predicates[pred].params)):
            derived |= 1 << grounder.atom_id((pred, args))
    k = 0
    for ax in domain.axioms:
        layer = layers[domain.strata[ax.predicate]]
        names = [v for v, _ in ax.params]
        for args in itertools.product(*(types.of(t) for _, t in ax.params)):
            k += 1
            if budget is not None and not k % CHECK_EVERY:
                budget.check()
            head = 1 << grounder.atom_id((ax.predicate, args))
            derived |= head
            for pos, neg in grounder.dnf(ax.body, dict(zip(names, args))):
                layer.append(Rule(head, pos, neg))
    return Axioms(layers, derived)
