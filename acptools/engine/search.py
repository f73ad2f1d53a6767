"""Exact search over a grounded task: one engine that every question is expressed on.

All searches take a `Budget` and raise `BudgetExceeded` instead of running on; callers turn that
into an `unknown` verdict. A search that empties its open list without a solution is a proof.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from itertools import count

from ..budget import Budget
from ..errors import BudgetExceeded
from ..ground.grounding import Operator
from .successors import SuccessorGenerator


def satisfies(state: int, dnf: list[tuple[int, int]]) -> bool:
    """Whether `state` satisfies some disjunct (positive mask, negative mask) of `dnf`."""
    return any(state & p == p and not state & n for p, n in dnf)


def _path(parents: dict, key: int) -> list[int]:
    """Actions from the root to `key`; parents map a state key to (parent key, action id)."""
    plan: list[int] = []
    while True:
        prev = parents[key]
        if prev is None:
            return plan[::-1]
        key, action = prev
        plan.append(action)


def _identity(state: int) -> int:
    return state


def greedy_plan(
    gen: SuccessorGenerator, start: int, goal: list[tuple[int, int]], heuristic, budget: Budget, canon=_identity
) -> list[int] | None:
    """Greedy best-first search; a plan (not necessarily shortest), or None when proven impossible.

    `heuristic(state)` may return inf to prune a state that provably cannot reach the goal.
    """
    if satisfies(start, goal):
        return []
    k0 = canon(start)
    parents: dict[int, tuple[int, int] | None] = {k0: None}
    tie = count()
    h0 = heuristic(start)
    if h0 == float("inf"):
        return None
    open_ = [(h0, next(tie), start, k0)]
    while open_:
        _, _, s, ks = heapq.heappop(open_)
        budget.spend()
        for op, t in gen.successors(s):
            kt = canon(t)
            if kt in parents:
                continue
            parents[kt] = (ks, op.action)
            if satisfies(t, goal):
                return _path(parents, kt)
            budget.check()  # one expansion may evaluate thousands of successors
            h = heuristic(t)
            if h != float("inf"):
                heapq.heappush(open_, (h, next(tie), t, kt))
    return None


@dataclass
class OptimalResult:
    """h*(start), the actions that start an optimal plan, and one optimal plan (None: no plan exists)."""

    cost: int | None
    first_actions: frozenset[int]
    plan: list[int] | None


def optimal_first_actions(
    gen: SuccessorGenerator, start: int, goal: list[tuple[int, int]], heuristic, budget: Budget, canon=_identity
) -> OptimalResult:
    """A* ordered by (f, g) that keeps, per state, the first actions of all its cheapest paths.

    With an admissible, consistent heuristic and ties broken towards lower g, every parent on a
    cheapest path to t is expanded before t, so first-action sets are complete when t is expanded.
    Expanding every state with f <= h* then yields *all* optimal first actions in one search:
    a is optimal iff h*(s[a]) = h*(s) - 1 iff a starts some cheapest path to a goal state.
    With symmetry keys, a state stands for its whole orbit; orbits share h*, so this stays exact.

    When the budget runs out, the BudgetExceeded carries `floor`, a proven lower bound on h*(start):
    the f of the last state taken from the open list. Some state on an optimal path is always open
    with its optimal g, so its f <= h*; A* takes the least f first, so every f it took is <= h*.
    """
    floor = [0.0]
    try:
        return _first_actions_search(gen, start, goal, heuristic, budget, canon, floor)
    except BudgetExceeded as e:
        e.floor = floor[0]
        raise


def _first_actions_search(gen, start, goal, heuristic, budget: Budget, canon, floor: list) -> OptimalResult:
    """optimal_first_actions' search; floor[0] is the f of the last state it took."""
    INF = float("inf")
    if satisfies(start, goal):
        return OptimalResult(0, frozenset(), [])
    h0 = heuristic(start)
    if h0 == INF:
        return OptimalResult(None, frozenset(), None)
    k0 = canon(start)
    floor[0] = h0
    g = {k0: 0}
    first: dict[int, set[int]] = {k0: set()}
    parents: dict[int, tuple[int, int] | None] = {k0: None}
    closed: set[int] = set()
    tie = count()
    open_ = [(h0, 0, next(tie), start, k0)]
    best: int | None = None
    best_key = None
    optimal: set[int] = set()
    while open_:
        f, gs, _, s, ks = heapq.heappop(open_)
        if best is not None and f > best:
            break
        floor[0] = f
        if ks in closed or gs != g[ks]:
            continue
        closed.add(ks)
        if satisfies(s, goal):
            if best is None:
                best, best_key = gs, ks
            optimal |= first[ks]
            continue
        budget.spend()
        fs = first[ks]
        for op, t in gen.successors(s):
            kt = canon(t)
            gt = gs + 1
            old = g.get(kt)
            if old is not None and old < gt:
                continue
            fa = fs if ks != k0 else {op.action}
            if old == gt:
                if kt not in closed:
                    first[kt] |= fa
                continue
            budget.check()
            h = heuristic(t)
            g[kt] = gt
            if h == INF:
                closed.add(kt)
                continue
            first[kt] = set(fa)
            parents[kt] = (ks, op.action)
            heapq.heappush(open_, (gt + h, gt, next(tie), t, kt))
    if best is None or best_key is None:
        return OptimalResult(None, frozenset(), None)
    return OptimalResult(best, frozenset(optimal), _path(parents, best_key))


def restrict(operators: list[Operator], banned_add: int = 0) -> list[Operator]:
    """Operators that never add an atom of `banned_add` (conditional adds are dropped only if they
    could fire; an operator whose unconditional effect adds a banned atom is removed)."""
    if not banned_add:
        return operators
    kept = []
    for op in operators:
        if op.add & banned_add:
            continue
        if any(ca & banned_add for _, _, ca, _ in op.conds):
            # split the operator: forbid the conditions that would add the banned atom
            kept.extend(_forbid_conditions(op, banned_add))
            continue
        kept.append(op)
    return kept


def _forbid_conditions(op: Operator, banned_add: int) -> list[Operator]:
    """Versions of `op` in which no condition that adds a banned atom holds (a DNF of negations)."""
    bad = [(cp, cn) for cp, cn, ca, _ in op.conds if ca & banned_add]
    variants = [(op.pre, op.neg)]
    for cp, cn in bad:
        # not (cp and not cn) = some atom of cp is false, or some atom of cn is true
        new = []
        for p, n in variants:
            for i in range(max(cp.bit_length(), cn.bit_length())):
                bit = 1 << i
                if cp & bit and not p & bit:
                    new.append((p, n | bit))
                elif cn & bit and not n & bit:
                    new.append((p | bit, n))
        variants = [(p, n) for p, n in set(new) if not p & n]
    conds = tuple(c for c in op.conds if not c[2] & banned_add)
    return [Operator(op.action, p, n, op.add, op.dele, conds, op.cost) for p, n in variants]
