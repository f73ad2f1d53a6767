"""Proofs for tasks with numeric state, from their propositional projection and interval relaxation.

The projection keeps a task's atoms, propositional preconditions, effects and action costs, and drops
the numeric effects; a comparison atom (`(< (fuel t) 5)`, set by the values) is a free fact of it when
the interval relaxation (intervals.py) says it can hold in some state reachable from the one asked,
and never reached otherwise. Every real transition is then a transition of the projection (every
comparison a real state satisfies is among the free ones), and every real plan a plan of it with the
same cost. So whatever the projection's delete relaxation proves holds for the real task: an atom it
never reaches is unreachable, an action whose preconditions it never reaches is never applicable, an
atom all its relaxed plans need is a landmark, and its h^max (with the operators' costs) is a lower
bound on h*.

Comparison atoms stay in preconditions, `when` conditions, axiom bodies and goals (an operator, a
conditional effect or a derived atom that needs an impossible comparison never fires); negated ones
count as possibly true, as every negative condition does in the delete relaxation.
"""

from __future__ import annotations

from collections.abc import Callable

from ..budget import Budget
from ..ground.grounded import GroundedTask
from ..ground.grounding import Operator
from ..util.lru import LRUCache
from ..verdict import Proof, chained
from .cost_optimal import charge_costs
from .intervals import IntervalRelaxation
from .relaxed import Relaxation

DNF = list[tuple[int, int]]
PROJECTED_RELAXED = chained(Proof.PROJECTION, Proof.RELAXED)
INTERVAL_RELAXED = chained(
    Proof.INTERVALS, Proof.PROJECTION, Proof.RELAXED
)  # intervals ruled out a comparison it needed
POSSIBLE_KEPT = 256  # value vectors whose possible comparisons are kept


class ProjectedRelaxation(Relaxation):
    """The delete relaxation of a numeric task's projection. Its methods take real states (values
    packed above the atoms) and goals that mention comparison atoms. `reachable` and `landmarks`
    take as reached the comparisons the intervals allow from the state (all of them with
    `intervals=False`); `hmax` takes every comparison as reached, so the bound is the same function
    of the atoms on every state (consistent, as A* needs). With `costs`, entries cost their
    operator's cost (h^max: an admissible, consistent bound on the cheapest plan's cost), else 1."""

    def __init__(self, task: GroundedTask, operators: list[Operator], costs: bool = False):
        num = task.numeric
        assert num is not None, "the projection of a task with numeric state"
        self.numeric = num
        self.comparisons = num.comparison_mask
        self.atom_mask = num.atom_mask
        self.intervals = IntervalRelaxation(num, operators)
        self._possible: LRUCache[tuple, int] = LRUCache(POSSIBLE_KEPT, remember_evicted=0, kind="value vector")
        axioms = list(task.axioms.relaxed()) if task.axioms else []
        super().__init__(len(task.atoms), operators, axioms)
        if costs:
            charge_costs(self, operators, len(axioms))

    def possible(self, state: int) -> int:
        """The comparison atoms that can hold in some state reachable from `state`."""
        values = self.numeric.values(state)
        return self._possible.get_or_make(values, lambda: self.intervals.possible(values))

    def seed(self, state: int, intervals: bool = True) -> int:
        """The state's atoms with the comparisons taken as reached. A seed (no values packed above
        its atoms; a real state always has some) is its own seed: Relaxation.landmarks asks
        `reachable` of the state it was given."""
        if not state >> self.numeric.n_atoms:
            return state
        free = self.possible(state) if intervals else self.comparisons
        return (state & self.atom_mask & ~self.comparisons) | free

    def reachable(
        self, state: int, budget: Budget | None = None, banned: int = 0, intervals: bool = True
    ) -> tuple[int, list[bool]]:
        return super().reachable(self.seed(state, intervals), budget, banned)

    def how(self, state: int, reached: DNF, budget: Budget | None = None, banned: int = 0) -> str:
        """The proof that no disjunct of `reached` is relaxed-reachable from the state: the
        projection's alone when it suffices, else one that names the intervals."""
        plain, _ = self.reachable(state, budget, banned, intervals=False)
        return PROJECTED_RELAXED if not any(p & plain == p for p, _ in reached) else INTERVAL_RELAXED

    def landmarks(self, state: int, goal: DNF, budget: Budget | None = None) -> int | None:
        found = super().landmarks(self.seed(state), goal, budget)
        return None if found is None else found & ~self.comparisons

    def hmax(self, state: int, goal: DNF, combine: Callable = max, budget: Budget | None = None) -> float:
        return super().hmax(self.seed(state, intervals=False), goal, combine, budget)
