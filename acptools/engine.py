"""The one reachability engine under the eight questions, bound to a task.

Everything reduces to: can a goal (a DNF over fluent atoms) be reached from a state, possibly
with some atoms never added? We try sound cheap proofs first (delete relaxation, then h^2), then
greedy search for a witness, which is also an exhaustive proof when it runs out of states.
"""

from __future__ import annotations

from functools import lru_cache

from . import fd

from .errors import BudgetExceeded
from .h2 import h2_pairs, pair_reachable
from .relaxed import Relaxation
from .search import Budget, greedy_plan, optimal_first_actions, restrict, satisfies
from .successors import SuccessorGenerator
from .symmetry import Symmetry, goal_targets
from .task import Task
from . import verdict as V


QUICK_SECONDS = 0.05   # in-process greedy search first: most witnesses are a few steps away
QUICK_STATES = 2000


class Engine:
    """Caches per task: the successor index and relaxation over all operators."""

    def __init__(self, task: Task):
        self.task = task
        self.gen = SuccessorGenerator(task.operators)
        self.relax = Relaxation(len(task.atoms), task.operators)
        self._h2 = lru_cache(maxsize=32)(lambda state: h2_pairs(len(task.atoms), task.operators, state))
        self._restricted = lru_cache(maxsize=256)(self._make_restricted)

    def h2(self, state: int) -> list[int]:
        return self._h2(state)

    def _make_restricted(self, banned_add: int):
        ops = restrict(self.task.operators, banned_add)
        return ops, SuccessorGenerator(ops), Relaxation(len(self.task.atoms), ops)

    def parts(self, banned_add: int = 0):
        if not banned_add:
            return self.task.operators, self.gen, self.relax
        return self._restricted(banned_add)

    def names(self, plan: list[int]) -> list[str]:
        return [self.task.action_names[a] for a in plan]

    def reach(self, state: int, goal: list[tuple[int, int]], budget: Budget, banned_add: int = 0,
              h2: bool = True) -> V.Verdict:
        """Is some state satisfying `goal` reachable from `state` without ever adding `banned_add`?"""
        if satisfies(state, goal):
            return V.Verdict(True, V.HOLDS, [])
        ops, gen, relax = self.parts(banned_add)
        reached, _ = relax.reachable(state)
        if not any(p & reached == p for p, _ in goal):
            return V.Verdict(False, V.RELAXED)
        if h2:
            pairs = self.h2(state) if not banned_add else h2_pairs(len(self.task.atoms), ops, state)
            if not any(pair_reachable(pairs, p) for p, _ in goal):
                return V.Verdict(False, V.H2)
        hadd = lambda s: relax.hmax(s, goal, combine=sum)
        canon = Symmetry(self.task, goal_targets(goal, banned_add)).canonical
        quick = Budget(min(QUICK_SECONDS, budget.left() or QUICK_SECONDS), QUICK_STATES)
        for stage in ("python", "fast-downward", "python"):
            if stage == "fast-downward":
                res = fd.solve(len(self.task.atoms), ops, state, goal, budget.left() or 3600, optimal=False)
                if res.plan is not None:
                    return V.Verdict(True, V.WITNESS, self.names([ops[i].action for i in res.plan]))
                if res.proven_none:
                    return V.Verdict(False, V.EXHAUSTIVE)
                continue
            try:
                plan = greedy_plan(gen, state, goal, hadd, quick, canon=canon)
            except BudgetExceeded as e:
                quick = budget
                continue
            if plan is None:
                return V.Verdict(False, V.EXHAUSTIVE)
            return V.Verdict(True, V.WITNESS, self.names(plan))
        return V.Verdict(None, V.UNKNOWN, detail="the search budget ran out")

    def optimal(self, state: int, budget: Budget, goal=None):
        """h*, all optimal first actions and one optimal plan (A* with h^max); raises BudgetExceeded."""
        goal = self.task.goal if goal is None else goal
        hmax = lambda s: self.relax.hmax(s, goal)
        return optimal_first_actions(self.gen, state, goal, hmax, budget)
