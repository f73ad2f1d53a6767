"""The eight ACPBench Hard questions over one grounded task: the library's public face.

    from acptools import load_task
    q = load_task(domain_text, problem_text).questions
    q.applicable()                       # app
    q.progress("(board c1 l0)")          # prog
    q.validate(["(sail l0 l1)", ...])    # val
    q.simplify(plan)                     # just
    q.is_reachable("(at c1 l1)")         # reach (one atom), q.unreachable_atoms() (all)
    q.is_action_reachable("(sail l0 l0)")  # areach, q.unreachable_actions()
    q.is_landmark("(on c1)")             # land, q.landmarks()
    q.optimal_next()                     # nexta: h*, optimal next actions, regrets, a plan

States are lists of atom strings (closed world), an int bitset, or None for the problem's init.
Budgets are seconds; a verdict that could not be proven in time says `unknown`.
"""

from __future__ import annotations

from functools import cached_property

from ..engine import Engine
from ..optimal import Optimizer
from ..search import Budget
from ..task import Task
from .. import verdict as V
from . import basic, landmarks as land, nexta, reach
from .basic import Progression, Removal, Validation
from .nexta import ActionValue, NextActionReport
from .results import Item, ItemList

DEFAULT_SECONDS = 60.0

__all__ = ["Questions", "Progression", "Removal", "Validation", "ActionValue", "NextActionReport", "Item",
           "ItemList", "DEFAULT_SECONDS"]


class Questions:
    def __init__(self, task: Task):
        self.task = task

    @cached_property
    def engine(self) -> Engine:
        return Engine(self.task)

    @cached_property
    def optimizer(self) -> Optimizer:
        return Optimizer(self.engine)

    # ---- inputs -----------------------------------------------------------------------------
    def state(self, state=None) -> int:
        if state is None:
            return self.task.init
        if isinstance(state, int):
            return state
        return self.task.parse_state(state)

    def as_budget(self, budget: "float | Budget | None") -> Budget:
        """Seconds (default DEFAULT_SECONDS), or a Budget the caller holds (to cancel it)."""
        if isinstance(budget, Budget):
            return budget
        return Budget(DEFAULT_SECONDS if budget is None else budget, None)

    def _action(self, action) -> int:
        return action if isinstance(action, int) else self.task.parse_action(action)

    def _atom(self, atom) -> int:
        return atom if isinstance(atom, int) else self.task.parse_atom(atom)

    # ---- app, prog, val, just -----------------------------------------------------------------
    def applicable(self, state=None) -> list[str]:
        return basic.applicable(self.task, self.state(state))

    def progress(self, action, state=None) -> Progression:
        return basic.progress(self.task, self._action(action), self.state(state))

    def validate(self, plan, state=None) -> Validation:
        return basic.validate(self.task, basic.parse_plan(self.task, plan), self.state(state))

    def is_plan(self, plan, state=None) -> bool:
        return basic.is_plan(self.task, basic.parse_plan(self.task, plan), self.state(state))

    def simplify(self, plan, state=None) -> list[Removal]:
        return basic.simplify(self.task, basic.parse_plan(self.task, plan), self.state(state))

    # ---- reach, areach ------------------------------------------------------------------------
    def is_reachable(self, atom, state=None, budget: float | None = None) -> V.Verdict:
        return reach.is_reachable(self.engine, self._atom(atom), self.state(state), self.as_budget(budget))

    def unreachable_atoms(self, state=None, budget: float | None = None, limit: int | None = None) -> ItemList:
        return reach.unreachable_atoms(self.engine, self.state(state), self.as_budget(budget), limit)

    def is_action_reachable(self, action, state=None, budget: float | None = None) -> V.Verdict:
        return reach.is_action_reachable(self.engine, self._action(action), self.state(state), self.as_budget(budget))

    def unreachable_actions(self, state=None, budget: float | None = None, limit: int | None = None) -> ItemList:
        return reach.unreachable_actions(self.engine, self.state(state), self.as_budget(budget), limit)

    # ---- land --------------------------------------------------------------------------------
    def is_landmark(self, atom, state=None, budget: float | None = None) -> V.Verdict:
        return land.is_landmark(self.engine, self._atom(atom), self.state(state), self.as_budget(budget))

    def landmarks(self, state=None, budget: float | None = None) -> ItemList:
        return land.landmarks(self.engine, self.state(state), self.as_budget(budget))

    # ---- nexta, planning ---------------------------------------------------------------------
    def optimal_next(self, state=None, budget: float | None = None, with_values: bool = True) -> NextActionReport:
        return nexta.optimal_next(self.optimizer, self.state(state), self.as_budget(budget), with_values)

    def h_star(self, state=None, budget: float | None = None):
        return self.optimizer.h_star(self.state(state), self.as_budget(budget))

    def action_value(self, action, state=None, budget: float | None = None):
        """h*(s[a]) for one action; None when the action is not applicable in the state."""
        return self.optimizer.action_value(self.state(state), self._action(action), self.as_budget(budget))

    def plan(self, state=None, optimal: bool = True, budget: float | None = None) -> V.Verdict:
        """A plan from the state: optimal (with h*) or the first one greedy search finds."""
        s = self.state(state)
        b = self.as_budget(budget)
        if optimal:
            h = self.optimizer.h_star(s, b)
            if not h.known:
                return V.Verdict(None, V.UNKNOWN)
            if h.cost is None:
                return V.Verdict(False, h.how, detail="the goal is unreachable from this state")
            return V.Verdict(True, h.how, [self.task.action_names[a] for a in h.plan], extra={"h_star": h.cost})
        p = nexta.satisficing_plan(self.optimizer, s, b)
        if p is False:
            return V.Verdict(None, V.UNKNOWN)
        if p is None:
            return V.Verdict(False, V.EXHAUSTIVE, detail="the goal is unreachable from this state")
        return V.Verdict(True, V.WITNESS, [self.task.action_names[a] for a in p])
