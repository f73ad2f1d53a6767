"""Optimal planning: h*(s), an optimal plan, and which next actions are optimal.

A portfolio of exact engines, cheapest first, each on a slice of the budget:
  1. in-process A* (h^max, object symmetries): tiny tasks, no process start;
  2. Fast Downward A*/LM-cut on our SAS+ encoding: most states in tens of milliseconds;
  3. in-process A* again, longer, when the task has object symmetries (many interchangeable
     objects make the state space collapse, which the outside planners do not exploit);
  4. SymK bidirectional symbolic search: proves large lower bounds (non-optimal next actions).
Every answer is exact; if all engines run out of budget the answer is `unknown`.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from . import fd, symk
from .questions import basic
from .errors import BudgetExceeded
from .search import Budget, optimal_first_actions, satisfies
from .symmetry import Symmetry, goal_targets

FIRST_TRY_SECONDS = 0.25   # in-process A* before anything else
FD_SECONDS = 5.0           # Fast Downward's slice for h*(s)
SYMMETRY_SECONDS = 10.0    # the longer in-process try when symmetries exist
_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="acptools-opt")
_race_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="acptools-race")


@dataclass
class HStar:
    """h*(s) with an optimal plan (action ids); cost None and known: no plan exists."""

    cost: int | None
    plan: list[int] | None
    how: str            # which engine proved it
    known: bool = True


@dataclass
class NextActions:
    cost: int | None                 # h*(s); None when the goal is unreachable
    optimal: frozenset[int]          # action ids a with h*(s[a]) = h*(s) - 1
    plan: list[int] | None
    how: str


class Optimizer:
    def __init__(self, engine):
        self.engine = engine
        self.task = engine.task
        self.sym = Symmetry(self.task, goal_targets(self.task.goal))

    # ---- engines ----------------------------------------------------------------------------
    def _astar(self, state: int, budget: Budget):
        goal = self.task.goal
        relax = self.engine.relax
        return optimal_first_actions(self.engine.gen, state, goal, lambda s: relax.hmax(s, goal), budget,
                                     canon=self.sym.canonical)

    def _astar_h(self, state: int, budget: Budget) -> HStar | None:
        try:
            r = self._astar(state, budget)
        except BudgetExceeded:
            return None
        return HStar(r.cost, r.plan, "exhaustive-search" if r.cost is None else "astar-hmax")

    def _fd(self, state: int, budget: Budget) -> fd.FdResult:
        res = fd.solve(len(self.task.atoms), self.task.operators, state, self.task.goal, budget.wall(),
                       cancelled=budget.cancelled)
        if res.plan is not None:
            res.plan = [self.task.operators[i].action for i in res.plan]
        return res

    def _symk(self, state: int, budget: Budget) -> HStar | None:
        res = symk.optimal_plan(self.task.domain_text, self.task.problem_for(state), budget.wall(),
                                cancelled=budget.cancelled)
        if res.plan is not None:
            return HStar(len(res.plan), [self.task.parse_action(a) for a in res.plan], "symk-bidirectional")
        if res.proven_none:
            return HStar(None, None, "symk-bidirectional")
        return None

    # ---- questions --------------------------------------------------------------------------
    def h_star(self, state: int, budget: Budget) -> HStar:
        """Exact h*(state) or, when every engine ran out of budget, known=False."""
        if satisfies(state, self.task.goal):
            return HStar(0, [], "holds-in-state")
        h = self._astar_h(state, budget.child(FIRST_TRY_SECONDS))
        if h:
            return h
        res = self._fd(state, budget.child(FD_SECONDS))
        if res.plan is not None:
            return HStar(len(res.plan), res.plan, "fast-downward-lmcut")
        if res.proven_none:
            return HStar(None, None, "fast-downward-lmcut")
        if self.sym.active:
            h = self._astar_h(state, budget.child(SYMMETRY_SECONDS))
            if h:
                return h
        if budget.wall() > 0:
            h = self._symk(state, budget)
            if h:
                return h
        h = self._astar_h(state, budget)
        return h or HStar(None, None, "unknown", known=False)

    def _first_action_classes(self, state: int) -> dict[int, tuple[int, list[int], list[int]]]:
        """Applicable operators of `state` grouped by symmetry class of their successor:
        canonical key -> (a successor state, action ids, operator indices)."""
        index = {id(op): i for i, op in enumerate(self.task.operators)}
        classes: dict[int, tuple[int, list[int], list[int]]] = {}
        for op, t in self.engine.gen.successors(state):
            entry = classes.setdefault(self.sym.canonical(t), (t, [], []))
            entry[1].append(op.action)
            entry[2].append(index[id(op)])
        return classes

    def _optimal_by_exclusion(self, state: int, plan: list[int], budget: Budget) -> set[int] | None:
        """All optimal first actions, given h*(state) = d and one optimal first action: ask Fast
        Downward again with every known-optimal first action forbidden as a first step; a plan of
        length d reveals another, a longer plan (or none) proves there is no other."""
        classes = self._first_action_classes(state)
        d, first = len(plan), plan[0]
        optimal: set[int] = set()
        banned: set[int] = set()

        def take(action: int) -> None:
            for _, acts, ops in classes.values():
                if action in acts:
                    optimal.update(acts)
                    banned.update(ops)

        def promote(plan: list[int]) -> None:
            """Moving a later step of an optimal plan to the front, when the result is still a
            plan, proves that step an optimal first action too (commuting actions are common)."""
            for _, acts, _ in list(classes.values()):
                if optimal & set(acts):
                    continue
                for k, a in enumerate(plan[1:], 1):
                    if a in acts and basic.is_plan(self.task, [a] + plan[:k] + plan[k + 1:], state):
                        take(a)
                        break

        take(first)
        promote(plan)
        while len(banned) < sum(len(c[2]) for c in classes.values()):
            res = fd.solve(len(self.task.atoms), self.task.operators, state, self.task.goal, budget.wall(),
                           not_first=frozenset(banned), cancelled=budget.cancelled)
            if res.plan is None:
                return optimal if res.proven_none else None
            if len(res.plan) > d:
                return optimal
            found = [self.task.operators[i].action for i in res.plan]
            take(found[0])
            promote(found)
        return optimal

    def _fd_next(self, state: int, budget: Budget) -> NextActions | None:
        res = self._fd(state, budget)
        if res.proven_none:
            return NextActions(None, frozenset(), None, "fast-downward-lmcut")
        if res.plan is None:
            return None
        d = len(res.plan)
        optimal = self._optimal_by_exclusion(state, res.plan, budget)
        return None if optimal is None else NextActions(d, frozenset(optimal), res.plan, "fast-downward-lmcut")

    def _symmetric_next(self, state: int, budget: Budget) -> NextActions | None:
        try:
            r = self._astar(state, budget)
        except BudgetExceeded:
            return None
        return NextActions(r.cost, r.first_actions, r.plan, "astar-hmax-symmetry")

    def _race(self, state: int, budget: Budget) -> NextActions | None:
        """Fast Downward (+ exclusion) and, when objects are interchangeable, the symmetry-reduced
        in-process A*, run side by side (a subprocess and a thread): the first exact answer wins
        and the other is cancelled."""
        stop = threading.Event()
        jobs = [self._fd_next]
        if self.sym.active:
            jobs.append(self._symmetric_next)
        futures = [_race_pool.submit(job, state, budget.child(cancel=stop)) for job in jobs]
        result = None
        try:
            for f in as_completed(futures):
                result = f.result()
                if result is not None:
                    break
        finally:
            stop.set()
        return result

    def _is_closer(self, t: int, d: int, budget: Budget) -> bool | None:
        """Is h*(t) = d - 1 for a successor t of a state with h* = d? None: unknown."""
        h = self.h_star(t, budget)
        return None if not h.known else h.cost == d - 1

    def next_actions(self, state: int, budget: Budget) -> NextActions | None:
        """All optimal next actions of `state`, or None when the budget ran out."""
        task = self.task
        if satisfies(state, task.goal):
            return NextActions(0, frozenset(), [], "holds-in-state")
        try:
            r = self._astar(state, budget.child(FIRST_TRY_SECONDS))
            return NextActions(r.cost, r.first_actions, r.plan, "astar-hmax")
        except BudgetExceeded:
            pass
        result = self._race(state, budget)
        if result is not None:
            return result
        # last resort: exact h* of the state and of one successor per symmetry class
        root = self.h_star(state, budget)
        if not root.known:
            return None
        if root.cost is None:
            return NextActions(None, frozenset(), None, root.how)
        d = root.cost
        optimal: set[int] = set()
        todo = []
        for t, acts, _ in self._first_action_classes(state).values():
            if root.plan[0] in acts:  # the optimal plan's first action proves its whole class
                optimal.update(acts)
            else:
                todo.append((t, acts))
        verdicts = list(_pool.map(lambda item: self._is_closer(item[0], d, budget), todo))
        for (t, acts), ok in zip(todo, verdicts):
            if ok is None:
                return None
            if ok:
                optimal.update(acts)
        return NextActions(d, frozenset(optimal), root.plan, root.how)

    def action_value(self, state: int, action: int, budget: Budget) -> HStar | None:
        """h*(s[a]) for one applicable action (None if `action` is not applicable)."""
        op = self.task.op_for(action, state)
        if op is None:
            return None
        return self.h_star(self.task.apply_op(op, state), budget)
