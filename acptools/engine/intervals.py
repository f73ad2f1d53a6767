"""Interval relaxation of a task's numeric values: which comparison atoms can ever hold from a state.

Each variable gets an interval of exact bounds (Fractions, or -inf/+inf) that contains every value it
can take in a state reachable from the given one, and a flag saying whether it can have a value at
all (PDDL 2.1's undefined values: no effect undefines a variable, so one defined stays defined).
Starting from the state's point values, every operator whose comparison preconditions are possibly
true (propositional preconditions are ignored, which only over-approximates) applies its numeric
effects in interval arithmetic, each `when` effect as possibly firing, and the result joins the old
interval. A bound that moved on more than WIDEN_AFTER updates jumps to the next threshold in its
direction (0 and the constants the comparisons read), then to infinity, so the fixpoint ends after a
few rounds; the thresholds keep what a bound never crosses (a halving stays above 0). The loop ends
only when no operator changes an interval, so every value a real state reachable from the start can
hold lies in the final intervals, and a comparison no values in them satisfy never holds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import NamedTuple

from ..ground.grounded import bits
from ..ground.grounding import Operator
from ..ground.numeric import NumericOp, NumericTask, variables_of

Bound = Fraction | float  # a Fraction, or math.inf / -math.inf
WIDEN_AFTER = 3  # updates of one bound before it is widened to infinity
INF = math.inf


class Interval(NamedTuple):
    lo: Bound
    hi: Bound


EVERYTHING = Interval(-INF, INF)
ZERO = Interval(Fraction(0), Fraction(0))


def _mul(a: Bound, b: Bound) -> Bound:
    return Fraction(0) if a == 0 or b == 0 else a * b  # 0 * inf is 0 here: the bound is a limit


def _hull(a: Interval, b: Interval) -> Interval:
    return Interval(min(a.lo, b.lo), max(a.hi, b.hi))


def _add(a: Interval, b: Interval) -> Interval:
    return Interval(a.lo + b.lo, a.hi + b.hi)


def _times(a: Interval, b: Interval) -> Interval:
    ends = [_mul(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return Interval(min(ends), max(ends))


def _divide(a: Interval, b: Interval) -> Interval:
    """a / b; a divisor that may be 0 gives everything (a division by exactly 0 never applies)."""
    if b.lo <= 0 <= b.hi:
        return EVERYTHING
    inverse = [Fraction(0) if math.isinf(y) else 1 / y for y in (b.hi, b.lo)]
    return _times(a, Interval(inverse[0], inverse[1]))


def evaluate(e: tuple, box: Sequence[Interval | None]) -> Interval | None:
    """The interval of a compiled expression (numeric.py); None when it reads a variable that never
    has a value."""
    tag = e[0]
    if tag == "c":
        return Interval(e[1], e[1])
    if tag == "v":
        return box[e[1]]
    if tag == "neg":
        inner = evaluate(e[1], box)
        return None if inner is None else Interval(-inner.hi, -inner.lo)
    a, b = evaluate(e[1], box), evaluate(e[2], box)
    if a is None or b is None:
        return None
    if tag == "+":
        return _add(a, b)
    if tag == "-":
        return _add(a, Interval(-b.hi, -b.lo))
    if tag == "*":
        return _times(a, b)
    return _divide(a, b)


def _difference(comparison: tuple, box: Sequence[Interval | None]) -> Interval | None:
    _, lhs, rhs = comparison
    return evaluate(("-", lhs, rhs), box)


def possibly_true(comparison: tuple, box: Sequence[Interval | None]) -> bool:
    """Some values in the intervals (all defined) satisfy the comparison."""
    d = _difference(comparison, box)
    if d is None:
        return False
    op = comparison[0]
    if op == "<":
        return d.lo < 0
    if op == "<=":
        return d.lo <= 0
    if op == "=":
        return d.lo <= 0 <= d.hi
    if op == ">=":
        return d.hi >= 0
    return d.hi > 0


def possibly_false(comparison: tuple, box: Sequence[Interval | None], undefined: set[int]) -> bool:
    """Some state within the intervals does not satisfy the comparison (a possibly undefined
    variable or a possible division by zero make it possibly false)."""
    d = _difference(comparison, box)
    if d is None or any(v in undefined for v in _reads(comparison)):
        return True
    op = comparison[0]
    if op == "<":
        return d.hi >= 0
    if op == "<=":
        return d.hi > 0
    if op == "=":
        return d.lo != d.hi or d.lo != 0
    if op == ">=":
        return d.lo < 0
    return d.lo <= 0


def _constants(e: tuple, out: set[Fraction]) -> set[Fraction]:
    if e[0] == "c":
        out.add(e[1])
    elif e[0] != "v":
        for part in e[1:]:
            _constants(part, out)
    return out


def _reads(comparison: tuple) -> set[int]:
    return variables_of(comparison[2], variables_of(comparison[1], set()))


class IntervalRelaxation:
    """The interval fixpoint of a task's numeric operators, asked per state."""

    def __init__(self, num: NumericTask, operators: list[Operator]):
        self.num = num
        self.ops = [(op.pre, op.neg, op.num) for op in operators if op.num is not None]
        found = {Fraction(0)}
        for _, lhs, rhs in num.comparisons.values():
            _constants(rhs, _constants(lhs, found))
        self.thresholds = sorted(found)

    def possible(self, values: Sequence[Fraction | None]) -> int:
        """The comparison atoms that can hold in some state reachable from one with these values."""
        box, undefined = self.fixpoint(values)
        out = 0
        for i, comparison in self.num.comparisons.items():
            if possibly_true(comparison, box):
                out |= 1 << i
        return out

    def fixpoint(self, values: Sequence[Fraction | None]) -> tuple[list[Interval | None], set[int]]:
        """Intervals containing every value reachable from `values`, and the variables undefined at
        the start (they may stay so)."""
        box: list[Interval | None] = [None if v is None else Interval(v, v) for v in values]
        undefined = {i for i, v in enumerate(values) if v is None}
        moves = [[0, 0] for _ in values]
        changed = True
        while changed:
            changed = False
            for pre, neg, num in self.ops:
                if self._enabled(pre, neg, num, box, undefined):
                    for var, got in self._results(num, box, undefined):
                        changed |= self._join(box, moves, var, got)
        return box, undefined

    def _holds_possibly(self, pos: int, neg: int, box: list[Interval | None], undefined: set[int]) -> bool:
        comparisons = self.num.comparisons
        return all(possibly_true(comparisons[i], box) for i in bits(pos & self.num.comparison_mask)) and all(
            possibly_false(comparisons[i], box, undefined) for i in bits(neg & self.num.comparison_mask)
        )

    def _enabled(self, pre: int, neg: int, num: NumericOp, box: list[Interval | None], undefined: set[int]) -> bool:
        return all(box[v] is not None for v in num.reads) and self._holds_possibly(pre, neg, box, undefined)

    def _results(self, num: NumericOp, box: list[Interval | None], undefined: set[int]) -> list[tuple[int, Interval]]:
        """(variable, interval of its new value) for the operator's effects, `when` ones as maybe."""
        effects = [(eff, True) for eff in num.effects]
        for dnf, eff in num.conds:
            if any(self._holds_possibly(p, n, box, undefined) for p, n in dnf):
                effects.append((eff, False))
        delta: dict[int, Interval] = {}
        out: list[tuple[int, Interval]] = []
        for (var, kind, expr), certain in effects:
            value = evaluate(expr, box)
            old = box[var]
            if value is None or (old is None and kind != "assign"):
                continue  # reading a variable without a value: the effect never applies
            if kind in ("increase", "decrease"):
                step = value if kind == "increase" else Interval(-value.hi, -value.lo)
                step = step if certain else _hull(step, ZERO)
                delta[var] = _add(delta.get(var, ZERO), step)
            elif kind == "assign":
                out.append((var, value))
            else:
                assert old is not None
                out.append((var, _times(old, value) if kind == "scale-up" else _divide(old, value)))
        for var, d in delta.items():
            old = box[var]
            assert old is not None
            out.append((var, _add(old, d)))
        return out

    def _join(self, box: list[Interval | None], moves: list[list[int]], var: int, got: Interval) -> bool:
        """Join `got` into the variable's interval, widening a bound that keeps moving (to the next
        threshold past it, or infinity)."""
        old = box[var]
        if old is None:
            box[var] = got
            return True
        lo, hi = old
        if got.lo < lo:
            moves[var][0] += 1
            below = [t for t in self.thresholds if t <= got.lo]
            lo = got.lo if moves[var][0] <= WIDEN_AFTER else below[-1] if below else -INF
        if got.hi > hi:
            moves[var][1] += 1
            above = [t for t in self.thresholds if t >= got.hi]
            hi = got.hi if moves[var][1] <= WIDEN_AFTER else above[0] if above else INF
        if (lo, hi) == old:
            return False
        box[var] = Interval(lo, hi)
        return True
