"""nexta and planning: h*, optimal next actions, per-action regret, plans."""

from __future__ import annotations

from dataclasses import dataclass

from ..budget import Budget
from ..engine.hstar_table import INF
from ..engine.optimal import Optimizer
from ..engine.search import greedy_plan
from ..errors import BudgetExceeded


@dataclass
class ActionValue:
    """One applicable action: h* after it, its regret, whether it is optimal, whether that is known."""
    action: str
    h_star_after: int | None   # None: the goal is unreachable after it (or unknown, see known)
    regret: int | None         # h*(s[a]) + 1 - h*(s)
    optimal: bool
    known: bool = True


@dataclass
class NextActionReport:
    """h*, the optimal next actions, a plan, how it is known, and the per-action values."""
    h_star: int | None
    optimal_actions: list[str]
    plan: list[str] | None
    how: str
    known: bool
    actions: list[ActionValue]


def optimal_next(opt: Optimizer, state: int, budget: Budget, with_values: bool = True) -> NextActionReport:
    """h* of the state, every optimal next action and a plan; with_values: h* after every applicable action too."""
    task = opt.task
    if with_values:
        res, table = opt.successor_table(state, budget)
    else:
        res, table = opt.next_actions(state, budget), None
    if res is None:
        return NextActionReport(None, [], None, "unknown", False, [])
    names = sorted(task.action_names[a] for a in res.optimal)
    plan = [task.action_names[a] for a in res.plan] if res.plan is not None else None
    values: list[ActionValue] = []
    for a in task.applicable(state) if with_values else ():
        name = task.action_names[a]
        if res.cost is None:  # no plan from s, so none from any successor
            values.append(ActionValue(name, None, None, False))
            continue
        settled, h = table.value(a)
        if not settled:
            values.append(ActionValue(name, None, None, False, known=False))
        elif h == INF:
            values.append(ActionValue(name, None, None, False))
        else:
            values.append(ActionValue(name, int(h), int(h) + 1 - res.cost, a in res.optimal))
    return NextActionReport(res.cost, names, plan, res.how, True, values)


def satisficing_plan(opt: Optimizer, state: int, budget: Budget) -> list[int] | None | bool:
    """A fast plan (greedy best-first with h^add); None: proven unsolvable; False: budget ran out."""
    task = opt.task
    relax = opt.engine.relax
    try:
        return greedy_plan(opt.engine.gen, state, task.goal, lambda s: relax.hmax(s, task.goal, combine=sum), budget,
                           canon=opt.sym.canonical)
    except BudgetExceeded:
        return False
