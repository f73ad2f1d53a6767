"""nexta and planning: h*, optimal next actions, the regret of named actions (or of all), plans.

By default a question costs what h* and the optimal next actions cost (one search that finds all
of them, see engine/optimal.py); the regret of an action is computed only for the actions named,
and the h* after every applicable action (the table) only when asked. When the budget runs out,
h* and each regret come as proven intervals (see `Optimizer.bounds`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..budget import Budget
from ..engine import weighted
from ..engine.cost_optimal import CostOptimizer
from ..engine.hstar_table import INF, Bound, Cost, HStarTable
from ..engine.optimal import BOUND_SHARE, HStar, NextActions, Optimizer
from ..engine.search import greedy_plan
from ..engine.weighted import exact
from ..errors import BudgetExceeded
from ..planners import enhsp
from ..verdict import Proof, chained

AFTER_SHARE = 0.5  # of what is left, for the h* after one named action (the rest for the others)


@dataclass
class ActionValue:
    """One applicable action: h* after it, its regret, whether it is optimal, whether that is known.
    Unknown values come with proven bounds (None upper: no plan known)."""

    action: str
    h_star_after: Cost | None  # None: the goal is unreachable after it (or unknown, see known)
    regret: Cost | None  # h*(s[a]) + 1 - h*(s)
    optimal: bool | None  # None: the bounds do not decide it
    known: bool = True
    h_star_after_lower: Cost | None = None  # None: the goal is unreachable after it
    h_star_after_upper: Cost | None = None
    regret_lower: Cost | None = None
    regret_upper: Cost | None = None

    def bounds(self) -> dict:
        """The proven intervals of a value that is not known exactly (else {})."""
        if self.known:
            return {}
        return {
            "h_star_after_lower": self.h_star_after_lower,
            "h_star_after_upper": self.h_star_after_upper,
            "regret_lower": self.regret_lower,
            "regret_upper": self.regret_upper,
        }


@dataclass
class NextActionReport:
    """h*, the optimal next actions, an optimal plan, how it is known, and the values of the actions
    asked about. Unknown: h* within [h_star_lower, h_star_upper] (upper None: no plan found; a plan
    of that length is `upper_plan`), and `optimal_actions` holds those the bounds prove optimal."""

    h_star: Cost | None
    optimal_actions: list[str]
    plan: list[str] | None
    how: str
    known: bool
    actions: list[ActionValue]
    h_star_lower: Cost | None = None
    h_star_upper: Cost | None = None
    upper_plan: list[str] | None = None  # unknown: a plan h_star_upper long (re-validated), if one was found
    from_store: bool = False  # h* and the optimal actions read from the proof store (acptools.truth)
    metric: str = "length"  # what h* and regrets measure: "cost" (action costs) or "length" (steps)

    def bounds(self) -> dict:
        """What an unknown h* is proven to be: {h_star_lower, h_star_upper, upper_plan}; {} when known."""
        return (
            {}
            if self.known
            else {"h_star_lower": self.h_star_lower, "h_star_upper": self.h_star_upper, "upper_plan": self.upper_plan}
        )


def _int(x: Bound) -> Cost | None:
    """A bound as it leaves the library: None for inf, an int when whole (a cost may be a Fraction)."""
    return exact(x)


def _finite(x: Bound) -> Cost:
    """A finite bound as it leaves the library: an int when whole (a cost may be a Fraction)."""
    value = exact(x)
    assert value is not None, "a finite bound"
    return value


def optimal_next(
    opt: Optimizer | CostOptimizer,
    state: int,
    budget: Budget,
    actions: list[int] | None = None,
    table: bool = False,
    root: HStar | None = None,
) -> NextActionReport:
    """h* of the state, every optimal next action and a plan; the values (h* after, regret) of
    `actions` (applicable action ids); with `table`, of every applicable action. `root`: h* of the
    state proven already (a table searches anyway): with its plan and all optimal first actions it
    is the answer, without a search; otherwise only the searches for the optimal actions run."""
    if table:
        res, tab = opt.successor_table(state, budget.share(1 - BOUND_SHARE))
        picked = opt.task.applicable(state)
    else:
        res = settled(root) or opt.next_actions(state, budget.share(1 - BOUND_SHARE), known=root)
        tab, picked = None, list(dict.fromkeys(actions or ()))
    if res is None:
        return _unknown(opt, state, budget, picked)
    return _report(opt, state, res, _values(opt, state, res, tab, picked, budget))


def settled(root: HStar | None) -> NextActions | None:
    """The optimal next actions a proven h* settles on its own: the goal unreachable, or h* with an
    optimal plan and the complete set of optimal first actions; else None."""
    if root is None or not root.known:
        return None
    if root.cost is None:
        return NextActions(None, frozenset(), None, root.how)
    if root.plan is not None and root.first_actions is not None:
        return NextActions(root.cost, root.first_actions, root.plan, root.how)
    return None


def _report(
    opt: Optimizer | CostOptimizer, state: int, res: NextActions, values: list[ActionValue]
) -> NextActionReport:
    task = opt.task
    names = sorted(task.action_names[a] for a in res.optimal)
    plan = [task.action_names[a] for a in res.plan] if res.plan is not None else None
    return NextActionReport(res.cost, names, plan, res.how, True, values, res.cost, res.cost)


def _values(
    opt: Optimizer | CostOptimizer,
    state: int,
    res: NextActions,
    tab: HStarTable | None,
    picked: list[int],
    budget: Budget,
) -> list[ActionValue]:
    """The values of the picked actions given the state's exact answer: from the table when there
    is one, else from the set of optimal actions and the plan, searching only when those do not
    settle it."""
    task, d = opt.task, res.cost
    values = []
    for a in picked:
        name = task.action_names[a]
        if d is None:  # no plan from s, so none from any successor
            values.append(ActionValue(name, None, None, False))
            continue
        if tab is not None:
            row = tab.rows[tab.row_of[a]]
            after = (row.lo, row.lo) if row.lo == INF else (row.lo, row.hi)
        else:
            after = _after(opt, state, a, res, budget.share(AFTER_SHARE)).bounds
        values.append(_value(name, after, (d, d), opt.step_cost(a, state)))
    return values


def _after(opt: Optimizer | CostOptimizer, state: int, a: int, res: NextActions, budget: Budget) -> HStar:
    """h*(s[a]) given h*(s) = d and the complete set of optimal first actions: a (of cost c) optimal
    means d - c; otherwise h*(s[a]) > d - c, and the optimal plan replayed from s[a] proves <= d."""
    task, d = opt.task, res.cost
    assert d is not None, "h*(s) is known here"
    c = opt.step_cost(a, state)
    t = task.apply_op(task.op_for(a, state), state)
    if a in res.optimal:
        return HStar(d - c, None, res.how)
    if res.plan is not None and opt.plan_cost(res.plan, t) == d:
        return HStar(d, res.plan, chained(Proof.PLAN_REPLAY, res.how))
    h = opt.h_star(t, budget)
    if not h.known:
        h.lower = max(h.lower, d - c)
    return h


def _value(name: str, after: tuple[Bound, Bound], root: tuple[Bound, Bound], cost: Cost = 1) -> ActionValue:
    """An action's value from h*(s[a]) and h*(s), each a proven interval (equal ends: exact; inf:
    unreachable or no plan known): regret = cost(a) + h*(s[a]) - h*(s), exact when both are."""
    lo_f, hi = after
    lo_s, hi_s = root
    if lo_f == INF:  # the goal is unreachable after it: never optimal
        return ActionValue(name, None, None, False, True)
    lo = _finite(lo_f)
    if lo >= hi and lo_s >= hi_s:
        regret = lo + cost - _finite(lo_s)
        return ActionValue(name, lo, regret, regret == 0, True, lo, lo, regret, regret)
    # h*(s[a]) >= h*(s) - cost(a) always, so regret >= 0
    r_lo = 0 if hi_s == INF else max(0, lo + cost - _finite(hi_s))
    r_hi = None if hi == INF else _finite(hi) + cost - _finite(lo_s)
    decided = True if r_hi == 0 else (False if r_lo > 0 else None)
    return ActionValue(name, lo if lo >= hi else None, None, decided, lo >= hi, lo, _int(hi), r_lo, r_hi)


def _unknown(opt: Optimizer | CostOptimizer, state: int, budget: Budget, picked: list[int]) -> NextActionReport:
    """The budget ran out: h* and the picked actions' h* after as proven intervals, the plan the
    upper bound comes from, and the actions the bounds prove optimal."""
    task = opt.task
    root = opt.bounds(state, budget)
    lo_s, hi_s = root.bounds
    after: tuple[Bound, Bound]
    if root.known:  # the bounds met (or proved the goal unreachable); the optimal set is still open
        lo_s = hi_s = INF if root.cost is None else root.cost
    plan = root.plan if root.known else root.upper_plan
    values, optimal = [], []
    for a in picked:
        if lo_s == INF:  # the goal is unreachable from s, so from s[a] too
            after = (INF, INF)
        else:
            after = _after_bounds(opt, state, a, lo_s, plan, budget)
        v = _value(task.action_names[a], after, (lo_s, hi_s), opt.step_cost(a, state))
        values.append(v)
        if v.optimal:
            optimal.append(v.action)
    names = None if plan is None else task.action_list(plan)
    return NextActionReport(None, sorted(optimal), None, Proof.UNKNOWN, False, values, _int(lo_s), _int(hi_s), names)


def _after_bounds(
    opt: Optimizer | CostOptimizer, state: int, a: int, lo_s: Bound, plan: list[int] | None, budget: Budget
) -> tuple[Bound, Bound]:
    """Proven bounds on h*(s[a]) while h*(s) is only bounded: at least h*(s) - 1; at most the length
    of the plan from s less one when it starts with `a` (or its length when it replays from s[a]);
    then, while the budget lasts, what a search from s[a] proves. A table has a row per applicable
    action, so once the budget is spent the rows get only what costs a replay."""
    task = opt.task
    c = opt.step_cost(a, state)
    t = task.apply_op(task.op_for(a, state), state)
    lo: Bound = max(0, lo_s - c)
    hi: Bound = INF
    if plan is not None:
        rest = opt.plan_cost(plan[1:], t) if plan[:1] == [a] else None
        whole = opt.plan_cost(plan, t) if rest is None else None
        if rest is not None:
            hi = rest
        elif whole is not None:
            hi = whole
    if not _spent(budget):
        found_lo, found_hi = opt.bounds(t, budget.share(AFTER_SHARE)).bounds
        lo, hi = max(lo, found_lo), min(hi, found_hi)
    return lo, hi


def _spent(budget: Budget) -> bool:
    try:
        budget.check()
    except BudgetExceeded:
        return True
    return False


def satisficing_plan(opt: Optimizer | CostOptimizer, state: int, budget: Budget) -> list[int] | None | bool:
    """A fast plan (greedy best-first with h^add); None: proven unsolvable; False: budget ran out.
    On a task with action costs, ENHSP races the greedy search (enhsp.race), as on numeric tasks."""
    task = opt.task
    relax = opt.engine.relax

    def greedy(s: int, b: Budget) -> list[int] | None:
        def hadd(t: int) -> float:
            return relax.hmax(t, task.goal, combine=sum, budget=b)

        return greedy_plan(opt.engine.gen, s, task.goal, hadd, b, canon=opt.sym.canonical)

    if weighted.metric_of(task) == "cost":
        return enhsp.race(task, state, budget, greedy, 1.0)
    try:
        return greedy(state, budget)
    except BudgetExceeded:
        return False
