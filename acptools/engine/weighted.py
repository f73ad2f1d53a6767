"""Cost-optimal planning for tasks whose metric is a sum of fixed action costs (`:action-costs`).

The unit-cost optimizer (optimal.py) measures plans by their length; this one by the sum of their
operators' costs, for tasks whose `metric` is "cost". It is separate code so that unit-cost tasks
keep their engines untouched. Its exact engine is A* with h^max over the operators' costs
(admissible and consistent), in process, raced with Fast Downward's A* (LM-cut) on the SAS+
encoding with operator costs. Object symmetries are not used: a renaming of objects may change
costs (a road's length is a static function of its two ends).

`op_cost` and `metric_of` are the one place that reads an operator's cost and a task's metric.
"""

from __future__ import annotations

import heapq
from itertools import count
from typing import NamedTuple

from ..budget import Budget
from ..errors import BudgetExceeded
from .search import _path, satisfies

INF = float("inf")


def op_cost(op) -> int:
    """An operator's cost under the task's metric (1 for a task without action costs)."""
    return getattr(op, "cost", 1)


def metric_of(task) -> str:
    """'cost' when plans are measured by their actions' costs, else 'length' (a Task or its grounded task)."""
    return getattr(getattr(task, "grounded", task), "metric", "length")


def step_cost(task, action: int, state: int):
    """What applying `action` in `state` adds to a plan's measure: its cost under the metric "cost",
    else 1 (None when it is not applicable)."""
    if metric_of(task) != "cost":
        return 1
    op = task.op_for(action, state)
    return None if op is None else op_cost(op)


def plan_cost(task, plan: list[int], state: int, to_goal: bool = True):
    """The cost of `plan` replayed from `state` (None when it does not apply, or with `to_goal`
    when it does not end in a goal state)."""
    total = 0
    for a in plan:
        op = task.op_for(a, state)
        if op is None:
            return None
        total += op_cost(op)
        state = task.apply_op(op, state)
    return total if not to_goal or task.is_goal(state) else None


def exact(x):
    """A cost as it leaves the library: an int when whole (Fractions otherwise), None for inf."""
    if x is None or x == INF:
        return None
    if getattr(x, "denominator", 1) == 1:
        return int(x)
    return x


class CheapestResult(NamedTuple):
    """h*(start) in cost, the actions that start a cheapest plan, and one cheapest plan (None: no plan)."""

    cost: object
    first_actions: frozenset[int]
    plan: list[int] | None


def cheapest_first_actions(gen, start: int, goal, heuristic, budget: Budget, first_gen=None) -> CheapestResult:
    """A* by operator cost that collects, per state, the first actions of all its cheapest paths.

    The search starts at a root node of its own, whose successors are `start`'s (by `first_gen`,
    default `gen`): a cheapest plan may pass through `start` again over zero-cost steps, and the
    action that began it is optimal too. With a consistent heuristic every state is settled with
    its cheapest g when first expanded; zero-cost operators may still bring a settled state new
    first actions at the same g, and such a state is expanded again to pass them on (the sets only
    grow, so this ends). Every state with f <= h* is expanded, so the goal states reached at cost
    h* carry every optimal first action. On BudgetExceeded, `floor` is a proven lower bound on h*:
    the f of the last state taken. `goal`: a DNF over atoms, or the goal test itself (a callable)."""
    floor = [0]
    try:
        return _cheapest_search(gen, start, goal, heuristic, budget, floor, first_gen or gen)
    except BudgetExceeded as e:
        e.floor = floor[0]
        raise


ROOT = -1  # the search's root node (states are non-negative ints)


class _Frontier:
    """A*'s open list, g values, first-action sets and parents."""

    def __init__(self, heuristic):
        self.heuristic = heuristic
        self.g: dict[int, object] = {}
        self.first: dict[int, set[int]] = {}
        self.parents: dict = {ROOT: None}
        self.closed: set[int] = set()
        self.tie = count()
        self.open: list = []

    def reach(self, s: int, op, t: int, gt, fa: set[int], budget: Budget) -> None:
        """t reached from s by op at cost gt with first actions fa."""
        old = self.g.get(t)
        if old is not None and old < gt:
            return
        if old == gt:
            if not fa <= self.first[t]:
                self.first[t] |= fa
                if t in self.closed and (h := self.heuristic(t)) != INF:  # pass the new first actions on
                    self.closed.discard(t)
                    heapq.heappush(self.open, (gt + h, gt, next(self.tie), t))
            return
        budget.check()
        h = self.heuristic(t)
        self.g[t], self.first[t], self.parents[t] = gt, set(fa), (s, op.action)
        if h == INF:
            self.closed.add(t)
        else:
            heapq.heappush(self.open, (gt + h, gt, next(self.tie), t))


def _cheapest_search(gen, start, goal, heuristic, budget: Budget, floor: list, first_gen) -> CheapestResult:
    is_goal = goal if callable(goal) else lambda s: satisfies(s, goal)
    if is_goal(start):
        return CheapestResult(0, frozenset(), [])
    h0 = heuristic(start)
    if h0 == INF:
        return CheapestResult(None, frozenset(), None)
    floor[0] = h0
    front = _Frontier(heuristic)
    budget.spend()
    for op, t in first_gen.successors(start):
        front.reach(ROOT, op, t, op_cost(op), {op.action}, budget)
    best, best_state, optimal = None, None, set()
    while front.open:
        f, gs, _, s = heapq.heappop(front.open)
        if best is not None and f > best:
            break
        floor[0] = max(floor[0], f)
        if s in front.closed or gs != front.g[s]:
            continue
        front.closed.add(s)
        if is_goal(s):
            if best is None:
                best, best_state = gs, s
            optimal |= front.first[s]
            continue
        budget.spend()
        fs = front.first[s]
        for op, t in gen.successors(s):
            front.reach(s, op, t, gs + op_cost(op), fs, budget)
    if best is None:
        return CheapestResult(None, frozenset(), None)
    assert best_state is not None  # set together with best
    return CheapestResult(best, frozenset(optimal), _path(front.parents, best_state))


class NoSymmetry:
    """The identity symmetry: cost tasks search their states as they are."""

    active = False

    @staticmethod
    def canonical(state: int) -> int:
        return state

    @staticmethod
    def carry_plan(plan, a: int, b: int):
        return plan if a == b else None
