"""The optimizer of tasks measured by action costs (metric "cost"): the interface of
optimal.Optimizer (h*, its bounds, the optimal next actions, h* after each action) in cost.

Exact engines, over the goal-relevant operators: the in-process A* of weighted.py with h^max over
the operators' costs, alone for a quick slice (it also yields every optimal first action), then
raced with Fast Downward's A* (LM-cut) on the SAS+ encoding with operator costs. A plan Fast
Downward returns is replayed and its cost recomputed here. When every engine runs out of budget,
the answer is `unknown` with proven bounds: the f-layer a search completed (or h^max of the state)
below, and the cost of a plan the greedy search found, replayed, above. Optimal next actions
come from the A*'s first-action sets, or else from h* after every applicable action:
a is optimal iff cost(a) + h*(s[a]) = h*(s).
"""

from __future__ import annotations

from ..budget import Budget
from ..errors import BudgetExceeded
from ..planners import fd
from ..verdict import Proof
from . import weighted
from .hstar_table import INF, Bound, HStarTable
from .optimal import BOUND_SHARE, QUICK_SECONDS, QUICK_WORK, HStar, NextActions, fd_how, h_star_after
from .race import race
from .relaxed import Relaxation
from .relevance import relevant_operators
from .search import greedy_plan, satisfies
from .successors import SuccessorGenerator
from .weighted import NoSymmetry, cheapest_first_actions

BYTES_PER_OPERATOR = 600  # the relaxation's and successor generator's share per operator


def cost_relaxation(num_atoms: int, ops, axioms) -> Relaxation:
    """A Relaxation whose entries cost their operator's cost (axioms stay free): its h^max is an
    admissible, consistent estimate of the cheapest plan's cost."""
    relax = Relaxation(num_atoms, ops, axioms)
    charge_costs(relax, ops, len(axioms))
    return relax


def charge_costs(relax: Relaxation, ops, num_axioms: int) -> None:
    """Give each relaxed entry its operator's cost (an operator's conditional entries follow its own)."""
    ends = relax.entry_of_op[1:] + [len(relax.costs) - num_axioms]
    for i, op in enumerate(ops):
        for e in range(relax.entry_of_op[i], ends[i]):
            relax.costs[e] = weighted.op_cost(op)


class CostOptimizer:
    """Cost-optimal planning for an engine's task whose metric is "cost"."""

    metric = "cost"

    def __init__(self, engine):
        self.engine = engine
        self.task = engine.task
        self.sym = NoSymmetry()
        self.ops = (
            list(engine.operators)
            if self.task.axioms
            else [engine.operators[i] for i in relevant_operators(engine.operators, self.task.goal)]
        )
        axioms = engine.relaxed_axioms()
        self.gen = SuccessorGenerator(self.ops, self.task.axioms)
        self.relax = cost_relaxation(len(self.task.atoms), self.ops, axioms)
        self.approx_bytes = BYTES_PER_OPERATOR * len(self.ops)
        self._floor: dict[int, Bound] = {}

    def step_cost(self, action: int, state: int):
        """The cost of applying `action` in `state` (None when it is not applicable)."""
        op = self.task.op_for(action, state)
        return None if op is None else weighted.op_cost(op)

    def plan_cost(self, plan: list[int], state: int):
        return weighted.plan_cost(self.task, plan, state)

    def _hmax(self, state: int, budget: Budget | None = None) -> float:
        return self.relax.hmax(state, self.task.goal, budget=budget)

    def goal_test(self):
        """The goal as the A* tests it: the task's goal DNF."""
        return self.task.goal

    def _search(self, state: int, budget: Budget):
        """The A*'s result, or None when the budget ran out (its floor kept for the bounds)."""
        try:
            return cheapest_first_actions(self.gen, state, self.goal_test(), self._hmax, budget, self.engine.gen)
        except BudgetExceeded as e:
            self._floor[state] = max(self._floor.get(state, 0), getattr(e, "floor", 0))
            return None

    def _astar_h(self, state: int, budget: Budget) -> HStar | None:
        r = self._search(state, budget)
        if r is None:
            return None
        how = Proof.EXHAUSTIVE if r.cost is None else Proof.ASTAR
        return HStar(r.cost, r.plan, how, first_actions=r.first_actions)

    def _fd_h(self, state: int, budget: Budget) -> HStar | None:
        """Fast Downward's cost-optimal A*; its plan is replayed and costed here."""
        res = fd.solve(len(self.task.atoms), self.ops, state, self.task.goal, budget, **self._fd_args)
        if res.plan is not None:
            plan = [self.ops[i].action for i in res.plan]
            cost = self.plan_cost(plan, state)
            return None if cost is None else HStar(cost, plan, fd_how(res))
        if res.timed_out and res.floor:
            self.note(state, res.floor)
        return HStar(None, None, fd_how(res)) if res.proven_none else None

    @property
    def _fd_args(self) -> dict:
        return {"axioms": self.task.axioms, "cache": fd.sas_cache(self.task)}

    def _quick(self, budget: Budget) -> Budget:
        return budget.child(QUICK_SECONDS, max(10, QUICK_WORK // max(1, len(self.ops))))

    def h_star(self, state: int, budget: Budget, quick: bool = True, astar: bool = True, bound: bool = True) -> HStar:
        """The cost of a cheapest plan from `state`; out of budget, known=False with proven bounds."""
        if satisfies(state, self.task.goal):
            return HStar(0, [], Proof.HOLDS)
        share = budget.share(1 - BOUND_SHARE) if bound else budget
        h = self._astar_h(state, self._quick(share))
        if h is None:
            h = race([lambda b: self._fd_h(state, b), lambda b: self._astar_h(state, b)], share)
        if h is None:
            return self.bounds(state, budget) if bound else HStar(None, None, Proof.UNKNOWN, known=False)
        return h

    def h_below(self, state: int, bound, budget: Budget) -> HStar:
        """h*(state) when below `bound`, else the proof that it is not (known=False, lower >= bound)."""
        lower = self._hmax(state)
        if lower == INF:
            return HStar(None, None, Proof.RELAXED)
        if lower >= bound:
            return HStar(None, None, Proof.RELAXED, known=False, lower=lower)
        return self.h_star(state, budget)

    def bounds(self, state: int, budget: Budget) -> HStar:
        """Proven bounds on h*: the A*'s completed f-layer or h^max below; a greedy plan's cost above."""
        lower = max(self._floor.get(state, 0), self._hmax(state))
        if lower == INF:
            return HStar(None, None, Proof.RELAXED)
        try:
            plan = greedy_plan(
                self.gen,
                state,
                self.task.goal,
                lambda s: self.relax.hmax(s, self.task.goal, combine=sum, budget=budget),
                budget,
            )
        except BudgetExceeded:
            plan = None
        else:
            if plan is None:
                return HStar(None, None, Proof.EXHAUSTIVE)
        cost = None if plan is None else self.plan_cost(plan, state)
        if cost is None:
            plan = None
        elif cost <= lower:
            return HStar(cost, plan, "plan+lower-bound")
        return HStar(None, None, Proof.UNKNOWN, known=False, lower=lower, upper_plan=plan, upper_cost=cost)

    def note(self, state: int, floor: Bound = 0, plan: list[int] | None = None) -> None:
        """Keep a proven lower bound on h*(state)."""
        self._floor[state] = max(self._floor.get(state, 0), floor)

    def next_actions(
        self, state: int, budget: Budget, exact: bool = False, known: HStar | None = None, quick: bool = True
    ) -> NextActions | None:
        """h*, every optimal next action (cost(a) + h*(s[a]) = h*(s)) and a cheapest plan; with
        `exact`, h* after every applicable action too (`table`). None when the budget ran out."""
        if satisfies(state, self.task.goal):
            return NextActions(0, frozenset(), [], Proof.HOLDS)
        root = known if known is not None and known.known and known.first_actions is not None else None
        root = root or self.h_star(state, budget, bound=False)
        if not root.known:
            return None
        res = NextActions(root.cost, root.first_actions or frozenset(), root.plan, root.how)
        if root.cost is None or (root.first_actions is not None and not exact):
            return res
        res.table = self._table(state, res, budget)
        if root.first_actions is None:  # from h* after each action: a optimal iff cost(a) + h*(s[a]) = h*(s)
            if any(not row.settled for row in res.table.rows.values()):
                return None
            res.optimal = frozenset(
                a
                for row in res.table.rows.values()
                for a in row.actions
                if self.step_cost(a, state) + row.lo == root.cost
            )
        return res

    def _table(self, state: int, res: NextActions, budget: Budget) -> HStarTable:
        """h* after each applicable action, each row by its own search (rows left open when out of budget)."""
        table = HStarTable.of_state(
            self.task, self.sym.canonical, state, ((op.action, t) for op, t in self.engine.gen.successors(state))
        )
        assert res.cost is not None, "a table is built for a solvable state"
        table.d = res.cost
        for row in table.open_rows():
            h = self.h_star(row.state, budget, bound=False)
            if h.known:
                row.lo = row.hi = INF if h.cost is None else h.cost
            else:
                row.lo = max(row.lo, self._floor.get(row.state, 0), self._hmax(row.state))
        return table

    def successor_table(self, state: int, budget: Budget):
        res = self.next_actions(state, budget, exact=True)
        return res, None if res is None else res.table

    def action_value(self, state: int, action: int, budget: Budget) -> HStar | None:
        """h*(s[a]) for one applicable action (None if `action` is not applicable)."""
        return h_star_after(self.task, self.h_star, state, action, budget)
