"""Conditional effects compiled away where that stays small, so Fast Downward can use LM-cut.

An operator with conditional effects becomes one plain operator per way its conditions can hold or
fail: a condition that fires is added to the precondition (its effects join the plain ones), a
condition that fails adds one of its literals, negated. In any state every applicable variant has
the conditions that hold there firing and no other, so each gives exactly the successor the
original gives (adds win over deletes, as in `GroundedTask.apply_op`), and some variant applies
whenever the original does: the same transitions, hence the same plans and h*. LM-cut does not
support conditional effects and h^max is far weaker (on one suite state: an exhaustive proof in
2.9 s instead of 10.6 s), so this pays off whenever the variants stay few.
"""

from __future__ import annotations

from .grounded import bits
from .grounding import Operator

MAX_VARIANTS = 64  # per operator
MAX_GROWTH = 4  # the compiled list may have this many times the operators (plus MIN_ROOM)
MIN_ROOM = 2000


def compile_away(operators: list[Operator]) -> tuple[list[Operator], list[int]] | None:
    """(plain operators, index of each one's source in `operators`), or None when the compiled
    list would grow past the limits (then the caller keeps the conditional effects)."""
    out: list[Operator] = []
    source: list[int] = []
    room = MAX_GROWTH * len(operators) + MIN_ROOM
    for i, op in enumerate(operators):
        variants = [op] if not op.conds else _variants(op)
        if variants is None:
            return None
        out += variants
        source += [i] * len(variants)
        if len(out) > room:
            return None
    return out, source


def _variants(op: Operator) -> list[Operator] | None:
    effects: dict[tuple[int, int], tuple[int, int]] = {}  # condition -> (adds, deletes) under it
    for cp, cn, ca, cd in op.conds:
        add, dele = effects.get((cp, cn), (0, 0))
        effects[(cp, cn)] = (add | ca, dele | cd)
    variants = {(op.pre, op.neg, op.add, op.dele)}
    for (cp, cn), (ca, cd) in effects.items():
        grown = set()
        for pre, neg, add, dele in variants:
            if cp & neg or cn & pre:  # the condition cannot hold here
                grown.add((pre, neg, add, dele))
                continue
            grown.add((pre | cp, neg | cn, add | ca, dele | cd))  # it holds: its effects fire
            for a in bits(cp & ~pre):  # it fails: one of its undecided literals is false
                grown.add((pre, neg | 1 << a, add, dele))
            for a in bits(cn & ~neg):
                grown.add((pre | 1 << a, neg, add, dele))
        variants = {v for v in grown if not v[0] & v[1]}
        if len(variants) > MAX_VARIANTS:
            return None
    return [Operator(op.action, pre, neg, add, dele, (), op.cost) for pre, neg, add, dele in sorted(variants)]
