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
    q.optimal_next()                     # nexta: h*, optimal next actions, a plan (regrets: actions=, table=True)

States are lists of atom strings (closed world), an int bitset, or None for the problem's init.
Budgets are seconds or a `Budget` the caller holds (and may cancel); a verdict that could not be
proven within the budget says `unknown`. Every plan returned is a list of action names.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..budget import DEFAULT_SECONDS, Budget, Effort
from ..engine import weighted
from ..engine.cost_optimal import CostOptimizer
from ..engine.numeric_optimal import NumericOptimizer
from ..engine.numeric_search import NumericEngine
from ..engine.optimal import HStar, Optimizer
from ..engine.reachability import Engine
from ..engine.weighted import exact
from ..errors import AcpError
from ..ground.grounded import GroundedTask
from ..verdict import Proof, Verdict
from . import basic, landmarks, nexta, numeric_reach, reach
from .basic import Progression, Removal, Validation
from .nexta import ActionValue, NextActionReport
from .results import Item, ItemList

__all__ = [
    "Questions",
    "Progression",
    "Removal",
    "Validation",
    "ActionValue",
    "NextActionReport",
    "HStarReport",
    "Item",
    "ItemList",
    "DEFAULT_SECONDS",
]


@dataclass
class HStarReport:
    """h* of a state and one optimal plan (action names). known=False: the budget ran out;
    known=True with h_star None: the goal is unreachable (proven by `how`)."""

    h_star: int | None
    plan: list[str] | None
    how: str
    known: bool
    lower: int | None = None  # proven lower <= h* <= upper (None: unreachable, or no plan found)
    upper: int | None = None
    upper_plan: list[str] | None = None  # unknown: the shortest plan found (upper long), re-validated
    from_store: bool = False  # read from the proof store (acptools.truth), not proven by this call
    metric: str = "length"  # what h* measures: "cost" (the task's action costs) or "length" (steps)

    def bounds(self) -> dict:
        """What an unknown h* is proven to be: {h_star_lower, h_star_upper, upper_plan}; {} when known."""
        return (
            {}
            if self.known
            else {"h_star_lower": self.lower, "h_star_upper": self.upper, "upper_plan": self.upper_plan}
        )


class Questions:
    """Ask the eight questions (and h*, plans) about one task; engines are built on first use.

    Every method reads its state through `state()`, which grounds what the state needs
    (`task.ensure`), before it takes `engine` or `optimizer`: those are rebuilt whenever the task's
    operators grew since they were made (see grounded.py)."""

    def __init__(self, task: GroundedTask):
        self.task = task
        self._engine: Engine | None = None
        self._optimizer: Optimizer | CostOptimizer | None = None

    @property
    def engine(self) -> Engine:
        """The reachability engine of this task (built on first use)."""
        engine = self._engine
        if engine is None or engine.generation != self.task.generation:
            make = Engine if self.task.numeric is None else NumericEngine  # numeric: search over real states
            engine = self._engine = make(self.task, shown=engine.shown if engine else None)
        return engine

    @property
    def optimizer(self) -> Optimizer | CostOptimizer:
        """The optimal planner of this task (built on first use): by action costs when the task's
        metric is "cost", else by plan length."""
        engine = self.engine
        opt = self._optimizer
        if opt is None or opt.engine is not engine:
            if isinstance(engine, NumericEngine):
                opt = self._optimizer = NumericOptimizer(engine)
            else:
                opt = self._optimizer = (CostOptimizer if weighted.metric_of(self.task) == "cost" else Optimizer)(
                    engine
                )
        return opt

    @property
    def metric(self) -> str:
        """What h*, plans and regrets measure: "cost" (the task's action costs) or "length"."""
        return weighted.metric_of(self.task)

    def plan_cost(self, plan: list[int], state: int):
        """A plan's cost from `state` under the task's action costs (None: not a plan from there)."""
        return weighted.plan_cost(self.task, plan, state)

    @property
    def approx_bytes(self) -> int:
        """Rough memory of the engines built so far and their caches."""
        return sum(e.approx_bytes for e in (self._engine, self._optimizer) if e is not None)

    # ---- inputs -----------------------------------------------------------------------------
    def state(self, state=None) -> int:
        """The state as a bitset: None is the problem's init; atom strings are read closed-world.
        Whatever the state needs is grounded before any engine sees it."""
        if state is None:
            s = self.task.init
        elif isinstance(state, int):
            s = state
        else:
            s = self.task.parse_state(state)
        self.task.ensure(s)
        return s

    def as_budget(self, budget: float | Budget | Effort | None) -> Budget:
        """Wall seconds (default DEFAULT_SECONDS), a Budget the caller holds (to cancel it), or an
        Effort (CPU seconds per question)."""
        if isinstance(budget, Budget):
            return budget
        if isinstance(budget, Effort):
            return budget.budget()
        return Budget(DEFAULT_SECONDS if budget is None else budget, None)

    def _action(self, action) -> int:
        return self.task.action_id(action, "action")

    def _atom(self, atom) -> int:
        return atom if isinstance(atom, int) else self.task.parse_atom(atom, where="atom")

    def _plan(self, plan) -> list[int]:
        return self.task.parse_plan(plan)

    # ---- app, prog, val, just -----------------------------------------------------------------
    def applicable(self, state=None) -> list[str]:
        """app: every ground action applicable in the state, sorted by name."""
        return basic.applicable(self.task, self.state(state))

    def progress(self, action, state=None) -> Progression:
        """prog: apply one action; the next state, its positive and negative effects, or (when it
        is not applicable) the unsatisfied preconditions."""
        return basic.progress(self.task, self._action(action), self.state(state))

    def validate(self, plan, state=None) -> Validation:
        """val: replay a sequence; the 0-based index of the first inapplicable action (None when
        all apply), why it fails, and whether the goal is reached."""
        return basic.validate(self.task, self._plan(plan), self.state(state))

    def is_plan(self, plan, state=None) -> bool:
        """Do the actions apply in turn and reach the goal?"""
        return self.task.is_plan(self._plan(plan), self.state(state))

    def simplify(self, plan, state=None, budget: float | Budget | None = None) -> list[Removal]:
        """just: every single action and consecutive pair whose removal leaves a plan."""
        return basic.simplify(self.task, self._plan(plan), self.state(state), self.as_budget(budget))

    # ---- reach, areach ------------------------------------------------------------------------
    def is_reachable(self, atom, state=None, budget: float | Budget | None = None) -> Verdict:
        """reach: can the atom ever hold? True with a witness plan, False with a proof, or unknown.
        A list of atoms asks whether they can all hold at once (ACPBench's two-fact questions)."""
        if isinstance(atom, (list, tuple)):
            if not atom:
                raise AcpError("an empty list of atoms", "atom", "pass one atom or a list of atoms")
            mask = 0
            for k, a in enumerate(atom):
                mask |= 1 << (a if isinstance(a, int) else self.task.parse_atom(a, where=f"atom[{k}]"))
        else:
            mask = 1 << self._atom(atom)
        s = self.state(state)
        return reach.is_reachable(self.engine, mask, s, self.as_budget(budget))

    def unreachable_atoms(self, state=None, budget: float | Budget | None = None, limit: int | None = None) -> ItemList:
        """reach: every proposition that can never hold, each with its proof; `complete` says
        every other one was shown reachable."""
        s, engine = self.state(state), self.engine
        if isinstance(engine, NumericEngine):
            return numeric_reach.unreachable_atoms(engine, s, self.as_budget(budget), limit)
        return reach.unreachable_atoms(engine, s, self.as_budget(budget), limit)

    def is_action_reachable(self, action, state=None, budget: float | Budget | None = None) -> Verdict:
        """areach: can the ground action ever become applicable? (witness, proof, or unknown)"""
        a, s = self._action(action), self.state(state)
        engine = self.engine
        if isinstance(engine, NumericEngine):
            return numeric_reach.is_action_reachable(engine, a, s, self.as_budget(budget))
        return reach.is_action_reachable(engine, a, s, self.as_budget(budget))

    def unreachable_actions(
        self, state=None, budget: float | Budget | None = None, limit: int | None = None
    ) -> ItemList:
        """areach: every type-correct ground action that can never become applicable, with proofs."""
        s, engine = self.state(state), self.engine
        if isinstance(engine, NumericEngine):
            return numeric_reach.unreachable_actions(engine, s, self.as_budget(budget), limit)
        return reach.unreachable_actions(engine, s, self.as_budget(budget), limit)

    # ---- land --------------------------------------------------------------------------------
    def is_landmark(self, atom, state=None, budget: float | Budget | None = None) -> Verdict:
        """land: must every plan from the state make the atom true? False comes with a plan that
        avoids it; trivial landmarks (true now, or in the goal) say so in `extra['trivial']`."""
        a, s = self._atom(atom), self.state(state)
        return landmarks.is_landmark(self.engine, a, s, self.as_budget(budget))

    def landmarks(self, state=None, budget: float | Budget | None = None) -> ItemList:
        """land: every non-trivial fact landmark of the state, with proofs."""
        s = self.state(state)
        return landmarks.landmarks(self.engine, s, self.as_budget(budget))

    # ---- nexta, planning ---------------------------------------------------------------------
    def optimal_next(
        self,
        state=None,
        budget: float | Budget | None = None,
        actions=None,
        table: bool = False,
        root: HStar | None = None,
    ) -> NextActionReport:
        """nexta: h*, every optimal next action and one optimal plan; h* after and the regret of
        each action named in `actions`; with `table`, of every applicable action (costs a search
        per action the cheap arguments leave open). When the budget runs out, h* and the regrets
        come as proven intervals. `root`: h* of the state proven already (see nexta.optimal_next)."""
        s = self.state(state)
        picked = self.applicable_ids(actions, s)
        report = nexta.optimal_next(self.optimizer, s, self.as_budget(budget), picked, table, root)
        report.metric = self.metric
        return report

    def applicable_ids(self, actions, state: int) -> list[int]:
        """Action names (or ids) that must be applicable in the state, as ids; a clear error for an
        unknown name or an inapplicable action."""
        if actions is None:
            return []
        if isinstance(actions, (str, int)):
            actions = [actions]
        ids = []
        for name in actions:
            a = self._action(name)
            if self.task.op_for(a, state) is None:
                raise AcpError(
                    f"{self.task.action_names[a]} is not applicable in the state",
                    "actions",
                    "name actions from list_applicable / applicable()",
                )
            ids.append(a)
        return ids

    def h_star(self, state=None, budget: float | Budget | None = None) -> HStarReport:
        """The length of a shortest plan from the state, with one such plan; when the budget runs
        out, proven bounds (`lower`, `upper` with the plan it comes from)."""
        s = self.state(state)
        return self._report(self.optimizer.h_star(s, self.as_budget(budget)))

    def action_value(self, action, state=None, budget: float | Budget | None = None) -> HStarReport | None:
        """h*(s[a]) for one action; None when the action is not applicable in the state."""
        a, s = self._action(action), self.state(state)
        h = self.optimizer.action_value(s, a, self.as_budget(budget))
        return None if h is None else self._report(h)

    def plan_of(self, h: HStar) -> Verdict:
        """The optimal plan an h* search found, as `plan` answers it."""
        if not h.known:
            return Verdict(None, Proof.UNKNOWN, extra={**self._report(h).bounds(), "metric": self.metric})
        if h.cost is None:
            return Verdict(False, h.how, detail="the goal is unreachable from this state")
        return Verdict(
            True, h.how, self.task.action_list(h.plan), extra={"h_star": exact(h.cost), "metric": self.metric}
        )

    def _report(self, h) -> HStarReport:
        plan = None if h.plan is None else self.task.action_list(h.plan)
        upper = None if h.upper_plan is None else self.task.action_list(h.upper_plan)
        lo, hi = h.bounds
        return HStarReport(
            exact(h.cost) if h.known else None,
            plan,
            h.how,
            h.known,
            exact(lo),
            exact(hi),
            upper,
            h.from_store,
            self.metric,
        )

    def plan(self, state=None, optimal: bool = True, budget: float | Budget | None = None) -> Verdict:
        """A plan from the state: optimal (with h* in extra['h_star']) or the first one greedy
        search finds. answer False: proven unsolvable; None: the budget ran out, and for an optimal
        plan extra holds what is still proven: h_star_lower, h_star_upper and upper_plan (a plan that
        long; None when none was found)."""
        s = self.state(state)
        b = self.as_budget(budget)
        if optimal:
            return self.plan_of(self.optimizer.h_star(s, b))
        opt = self.optimizer
        p = opt.satisficing(s, b) if isinstance(opt, NumericOptimizer) else nexta.satisficing_plan(opt, s, b)
        if p is False:
            return Verdict(None, Proof.UNKNOWN)
        if p is None:
            return Verdict(False, Proof.EXHAUSTIVE, detail="the goal is unreachable from this state")
        return Verdict(True, Proof.WITNESS, self.task.action_list(p))
