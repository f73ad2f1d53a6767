"""Proofs for tasks with numeric state, from their propositional projection.

The projection keeps a task's atoms, propositional preconditions, effects and action costs, treats
every comparison atom (`(< (fuel t) 5)`, set by the values) as possibly true and possibly false, and
drops the numeric effects. Every real transition is then a transition of the projection, and every
real plan a plan of it with the same cost. So whatever the projection's delete relaxation proves
holds for the real task: an atom it never reaches is unreachable, an action whose preconditions it
never reaches is never applicable, an atom all its relaxed plans need is a landmark, and its h^max
(with the operators' costs) is a lower bound on h*.

Comparison atoms are left out of preconditions, `when` conditions, axiom bodies and goals (so a
conditional effect or a derived atom whose condition reads values counts as possibly happening), and
count as reached: the relaxation never proves that a comparison cannot hold.
"""

from __future__ import annotations

from collections.abc import Callable

from ..budget import Budget
from ..ground.grounded import GroundedTask
from ..ground.grounding import Operator
from .cost_optimal import charge_costs
from .relaxed import Relaxation

DNF = list[tuple[int, int]]


def project(op: Operator, comparisons: int) -> Operator:
    """`op` with the comparison atoms of its conditions left out (its numeric part dropped)."""
    keep = ~comparisons
    conds = tuple((cp & keep, cn & keep, ca, cd) for cp, cn, ca, cd in op.conds)
    return Operator(op.action, op.pre & keep, op.neg & keep, op.add, op.dele, conds, op.cost)


class ProjectedRelaxation(Relaxation):
    """The delete relaxation of a numeric task's projection. Its methods take real states (values
    packed above the atoms) and goals that mention comparison atoms; `reachable` counts every
    comparison atom as reached. With `costs`, entries cost their operator's cost (h^max: an
    admissible, consistent bound on the cheapest plan's cost), else 1 (on its length)."""

    def __init__(self, task: GroundedTask, operators: list[Operator], costs: bool = False):
        num = task.numeric
        assert num is not None, "the projection of a task with numeric state"
        self.comparisons = num.comparison_mask
        self.atom_mask = num.atom_mask
        ops = [project(op, self.comparisons) for op in operators]
        axioms = [(pos & ~self.comparisons, head) for pos, head in task.axioms.relaxed()] if task.axioms else []
        super().__init__(len(task.atoms), ops, axioms)
        if costs:
            charge_costs(self, ops, len(axioms))
        self._goal: tuple[DNF | None, DNF] = (None, [])

    def project_goal(self, goal: DNF) -> DNF:
        """A DNF with its comparison atoms left out (the last one asked is kept: searches ask one)."""
        if self._goal[0] is not goal:
            keep = ~self.comparisons
            self._goal = (goal, [(p & keep, n & keep) for p, n in goal])
        return self._goal[1]

    def reachable(self, state: int, budget: Budget | None = None, banned: int = 0) -> tuple[int, list[bool]]:
        reached, fired = super().reachable(state & self.atom_mask, budget, banned)
        return reached | self.comparisons, fired

    def landmarks(self, state: int, goal: DNF, budget: Budget | None = None) -> int | None:
        return super().landmarks(state & self.atom_mask, self.project_goal(goal), budget)

    def hmax(self, state: int, goal: DNF, combine: Callable = max, budget: Budget | None = None) -> float:
        return super().hmax(state & self.atom_mask, self.project_goal(goal), combine, budget)
