"""h^2 over literals: which pairs of literals (an atom holding, or an atom being false) can ever hold together.

Plain h^2 ignores negative preconditions, so it cannot prove that an action needing p false and q
true never applies when "p false" and q never hold together (schedule: once a part with a hole is
cold, the only way to lose the hole is rolling it, which makes it hot for good). Each atom that
some precondition needs false gets a complement atom, true exactly when the atom is false: added
where the atom is deleted and not surely added, deleted where the atom is surely added; negative
preconditions become positive ones on the complements. This is the standard compilation of negative
preconditions, and h^2 over the compiled task is sound for the original: conditional effects stay
folded in optimistically (a conditional delete of an atom adds its complement, and nothing
conditional deletes), so the compiled task reaches every pair of literals the original reaches.
"""

from __future__ import annotations

from ..ground.grounded import bits
from ..ground.grounding import Operator
from .h2 import h2_pairs, pair_reachable


class LiteralH2:
    """The complement compilation of one task's operators, and h^2 pairs over it."""

    def __init__(self, num_atoms: int, operators: list[Operator]):
        negated = 0
        for op in operators:
            negated |= op.neg
            for _, cn, _, _ in op.conds:
                negated |= cn
        self.num_atoms = num_atoms
        self.negated = negated
        self.index = {p: num_atoms + j for j, p in enumerate(bits(negated))}
        self.operators = [self._compile(op) for op in operators]

    def complement(self, mask: int) -> int:
        """The complement atoms of the negated atoms in `mask`."""
        out = 0
        for p in bits(mask & self.negated):
            out |= 1 << self.index[p]
        return out

    def _compile(self, op: Operator) -> Operator:
        comp = self.complement
        conds = tuple((cp | comp(cn), 0, ca | comp(cd), cd) for cp, cn, ca, cd in op.conds)
        return Operator(
            op.action, op.pre | comp(op.neg), 0, op.add | comp(op.dele & ~op.add), op.dele | comp(op.add), conds
        )

    def pairs(self, state: int, budget=None) -> list[int]:
        """h^2 pairs over atoms and complements from `state` (raises BudgetExceeded)."""
        return h2_pairs(
            self.num_atoms + len(self.index), self.operators, state | self.complement(self.negated & ~state), budget
        )

    def reachable(self, pairs: list[int], pre: int, neg: int) -> bool:
        """May the atoms of `pre` hold while those of `neg` are false, as far as h^2 over literals can tell?"""
        return pair_reachable(pairs, pre | self.complement(neg))
