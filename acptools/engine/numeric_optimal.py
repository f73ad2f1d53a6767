"""Optimal and satisficing planning for tasks with numeric state, under the task's metric.

The interface of CostOptimizer (h*, its bounds, the optimal next actions, h* after each action),
answered over real states: A* with h^max of the projection (numeric_proofs.py), over the operators'
costs when the metric is "cost", else over plan length; admissible and consistent, so the A* is
exact when it finishes, and it also yields every optimal first action. When it runs out of budget
the answer is `unknown` with proven bounds: the f-layer it completed or the projection's h^max
below, the measure of a replayed greedy plan above. Every plan is replayed before it is reported.
"""

from __future__ import annotations

from collections.abc import Callable

from ..budget import Budget
from ..planners import enhsp
from ..verdict import Proof
from . import weighted
from .cost_optimal import CostOptimizer
from .hstar_table import Cost
from .numeric_proofs import ProjectedRelaxation
from .numeric_search import REAL_EXHAUSTIVE, NumericEngine, greedy_search
from .optimal import BOUND_SHARE, HStar, NextActions
from .search import satisfies
from .weighted import NoSymmetry

BYTES_PER_OPERATOR = 600
GREEDY_SHARE = 0.5  # of a satisficing plan's budget, for greedy search (then the A*)


class NumericOptimizer(CostOptimizer):
    """h*, optimal next actions and plans of a task with numeric state."""

    def __init__(self, engine: NumericEngine):
        self.engine = engine
        self.task = engine.task
        self.metric = weighted.metric_of(self.task)
        self.sym = NoSymmetry()
        self.ops = list(engine.operators)
        self.gen = engine.gen  # its steps cost 1 unless the metric is "cost"
        self.relax = ProjectedRelaxation(self.task, self.ops, costs=self.metric == "cost")
        self.approx_bytes = BYTES_PER_OPERATOR * len(self.ops)
        self._floor = {}

    def step_cost(self, action: int, state: int) -> object:
        return weighted.step_cost(self.task, action, state)

    def plan_cost(self, plan: list[int], state: int) -> Cost | None:
        """A plan's measure from `state` under the metric (None when it is not a plan from there)."""
        cost = weighted.plan_cost(self.task, plan, state)
        if cost is None or self.metric == "cost":
            return cost
        return len(plan)

    def goal_test(self) -> Callable[[int], bool]:
        """The task's own goal test (it also needs the values the goal's comparisons read defined)."""
        return self.task.is_goal

    def _astar_h(self, state: int, budget: Budget) -> HStar | None:
        r = self._search(state, budget)
        if r is None:
            return None
        if r.cost is None:
            return HStar(None, None, REAL_EXHAUSTIVE)
        cost = None if r.plan is None else self.plan_cost(r.plan, state)
        if cost is None or cost != r.cost:
            return None  # never report what a replay does not confirm
        return HStar(cost, r.plan, Proof.NUMERIC_ASTAR, first_actions=r.first_actions)

    def h_star(self, state: int, budget: Budget, quick: bool = True, astar: bool = True, bound: bool = True) -> HStar:
        """h*(state) under the metric; out of budget, known=False with proven bounds (`bound`:
        BOUND_SHARE of the budget is kept for them)."""
        if self.task.is_goal(state):
            return HStar(0, [], Proof.HOLDS)
        h = self._astar_h(state, budget.share(1 - BOUND_SHARE) if bound else budget)
        if h is None:
            return self.bounds(state, budget) if bound else HStar(None, None, Proof.UNKNOWN, known=False)
        return h

    def next_actions(
        self, state: int, budget: Budget, exact: bool = False, known: HStar | None = None, quick: bool = True
    ) -> NextActions | None:
        if satisfies(state, self.task.goal) and not self.task.is_goal(state):
            # the goal's atoms hold but a value it reads is undefined: no shortcut for goal states
            h = self.h_star(state, budget, bound=False)
            if not h.known:
                return None
            return NextActions(h.cost, h.first_actions or frozenset(), h.plan, h.how)
        return super().next_actions(state, budget, exact, known, quick)

    def satisficing(self, state: int, budget: Budget) -> list[int] | None | bool:
        """A plan found fast, replayed; None: proven unsolvable; False: the budget ran out.

        Greedy best-first over real states with the projection's h^add runs on GREEDY_SHARE of the
        budget, raced by ENHSP (enhsp.race: its numeric heuristics follow numeric goals that the
        projection cannot see); when neither finds a plan, the A* gets the rest (greedy search may
        follow an unbounded numeric variable forever). Every plan is replayed before it is returned."""
        plan = enhsp.race(self.task, state, budget, self._greedy, GREEDY_SHARE)
        if plan is False:
            h = self.h_star(state, budget, bound=False)
            if not h.known:
                return False
            plan = h.plan
        if plan is None:
            return None
        return plan if self.plan_cost(plan, state) is not None else False

    def _greedy(self, state: int, budget: Budget) -> list[int] | None:
        """Greedy best-first search with the projection's h^add (raises BudgetExceeded)."""
        goal = self.task.goal
        return greedy_search(
            self.gen, state, self.task.is_goal, lambda s: self.engine.relax.hmax(s, goal, combine=sum), budget
        )
