"""Search over the real states of a task with numeric state, and the reachability engine built on it.

States are the task's ints (atoms below, exact values above); successors come from the task's own
numeric semantics (an operator applies when its atoms hold and its numeric part can be evaluated),
so every plan found is a plan of the task. It is still replayed before it is returned. Proofs come
from the projection (numeric_proofs.py) or from a search that ran out of states; numeric state
spaces may be infinite, so a search that never runs out answers `unknown` when the budget is spent.
Outside planners (Fast Downward, SymK) never see these tasks: they would read the atoms alone.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from itertools import count
from typing import NamedTuple

from ..budget import Budget
from ..errors import BudgetExceeded
from ..ground.grounded import GroundedTask
from ..ground.grounding import Operator
from ..util.lru import LRUCache
from ..verdict import Proof, Verdict, chained
from .numeric_proofs import DNF, ProjectedRelaxation
from .reachability import SHOWN_STATES, Engine
from .search import _path, satisfies
from .successors import SuccessorGenerator, operators_bytes
from .weighted import metric_of

INF = float("inf")
SWEEP_STATES = 20_000  # states a list's breadth-first sweep visits before the searches per item
REAL_EXHAUSTIVE = chained(Proof.EXHAUSTIVE, Proof.PROJECTION)  # every real state visited (projection-pruned)


class Step(NamedTuple):
    """An operator as a search sees it: its action and what it adds to a plan's measure."""

    action: int
    cost: int = 1


class RealSuccessors(SuccessorGenerator):
    """The applicable operators of a real state and the states they lead to, under the task's exact
    numeric semantics: indexed by their atoms (comparison atoms hold exactly when true), then their
    numeric parts evaluated; the task's own apply closes the axioms. With `unit`, every step costs 1
    (the task's metric is plan length)."""

    def __init__(self, task: GroundedTask, operators: list[Operator], unit: bool):
        super().__init__(operators)
        self.task = task
        self.unit = unit

    def applicable(self, state: int) -> list[Operator]:
        num = self.task.numeric
        assert num is not None, "real states of a task with numeric state"
        atoms = state & num.atom_mask
        values = None
        found = []
        for op in super().applicable(atoms):
            if op.num is not None:
                if values is None:
                    values = num.values(state)
                if num.why_not(op.num, atoms, values) is not None:
                    continue
            found.append(op)
        return found

    def successors(self, state: int) -> Iterator[tuple[Operator | Step, int]]:
        apply = self.task.apply_op
        for op in self.applicable(state):
            yield (Step(op.action) if self.unit and op.cost != 1 else op), apply(op, state)


def greedy_search(
    gen: SuccessorGenerator,
    start: int,
    is_goal: Callable[[int], bool],
    heuristic: Callable[[int], float],
    budget: Budget,
    banned: int = 0,
) -> list[int] | None:
    """Greedy best-first search over real states for one satisfying `is_goal`, never entering a
    state in which an atom of `banned` holds; None when every state it can reach was visited (a
    state the heuristic rates inf is provably a dead end). Raises BudgetExceeded."""
    if is_goal(start):
        return []
    h0 = heuristic(start)
    if h0 == INF:
        return None
    parents: dict[int, tuple[int, int] | None] = {start: None}
    tie = count()
    frontier = [(h0, next(tie), start)]
    while frontier:
        s = heapq.heappop(frontier)[2]
        budget.spend()
        for op, t in gen.successors(s):
            if t & banned or t in parents:
                continue
            parents[t] = (s, op.action)
            if is_goal(t):
                return _path(parents, t)
            budget.check()
            h = heuristic(t)
            if h < INF:
                heapq.heappush(frontier, (h, next(tie), t))
    return None


def replays(task: GroundedTask, plan: list[int], state: int, is_goal: Callable[[int], bool], banned: int = 0) -> bool:
    """Does `plan` apply from `state`, end where `is_goal` holds, and never make an atom of `banned` true?"""
    for a in plan:
        op = task.op_for(a, state)
        if op is None:
            return False
        state = task.apply_op(op, state)
        if state & banned:
            return False
    return is_goal(state)


class NumericEngine(Engine):
    """The reachability engine of a task with numeric state: the interface of Engine, answered by
    search over real states (witnesses, and proofs once a search runs out of states) and by the
    projection's delete relaxation (proofs)."""

    relax: ProjectedRelaxation

    def __init__(self, task: GroundedTask, shown: LRUCache | None = None):
        self.task = task
        self.shown = shown if shown is not None else LRUCache(SHOWN_STATES, kind="state")
        self.generation, self.covered, self.operators = task.snapshot()
        self.axioms = task.axioms
        self.gen = RealSuccessors(task, self.operators, unit=metric_of(task) != "cost")
        self.relax = ProjectedRelaxation(task, self.operators)
        self.base_bytes = operators_bytes(self.operators)
        self._plans: dict[int, list[int] | None] = {}

    @property
    def approx_bytes(self) -> int:
        return 2 * self.base_bytes

    def check_covers(self, state: int) -> None:
        """Every operator of a numeric task is grounded at load: every state is covered."""

    def h2(self, state: int, budget: Budget | None = None, operators: object = None) -> list[int]:
        """h^2 is not computed on numeric tasks: every pair counts as reachable, which proves nothing."""
        return [(1 << len(self.task.atoms)) - 1] * len(self.task.atoms)

    literals = None  # h^2 over literals: not on numeric tasks

    def parts(self, banned_add: int = 0) -> tuple:
        raise NotImplementedError("a numeric task's searches bar atoms by state (see reach)")

    def goal_test(self, goal: DNF) -> Callable[[int], bool]:
        """The exact test of a goal DNF: the task's own for its goal (it also needs the values its
        comparisons read defined), else the atoms (comparison atoms hold only when defined and true)."""
        if goal is self.task.goal:
            return self.task.is_goal
        return lambda s: satisfies(s, goal)

    def reach(
        self, state: int, goal: DNF, budget: Budget, banned_add: int = 0, test: Callable[[int], bool] | None = None
    ) -> Verdict:
        """Is a state satisfying `goal` (exactly: `test`) reachable from `state` without an atom of
        `banned_add` ever holding? The projection's relaxation first (a proof), then greedy search
        over real states (a witness, replayed, or a proof once it runs out of states)."""
        test = test or self.goal_test(goal)
        if test(state):
            return Verdict(True, Proof.HOLDS, [], plan_ids=[])
        try:
            reached, _ = self.relax.reachable(state, budget, banned=banned_add)
            if not any(p & reached == p for p, _ in goal):
                return Verdict(False, self.relax.how(state, goal, budget, banned_add))
            plan = greedy_search(
                self.gen, state, test, lambda s: self.relax.hmax(s, goal, combine=sum), budget, banned_add
            )
        except BudgetExceeded as e:
            return Verdict(None, Proof.UNKNOWN, detail=str(e))
        if plan is None:
            return Verdict(False, REAL_EXHAUSTIVE)
        if not replays(self.task, plan, state, test, banned_add):
            return Verdict(None, Proof.UNKNOWN, detail="internal error: a plan found did not replay")
        return self.witness(plan)

    def sweep(self, state: int, budget: Budget) -> tuple[int, set[int], bool]:
        """A breadth-first sweep over real states (at most SWEEP_STATES): the atoms seen true and the
        actions seen applicable (all reachable), and whether every reachable state was visited."""
        mask = self.task.atom_mask
        atoms, actions = state & mask, set()
        seen, layer = {state}, [state]
        steps = budget.child(None, SWEEP_STATES)
        try:
            while layer:
                later = []
                for s in layer:
                    steps.spend()
                    for op, t in self.gen.successors(s):
                        actions.add(op.action)
                        if t not in seen:
                            seen.add(t)
                            atoms |= t & mask
                            later.append(t)
                layer = later
        except BudgetExceeded:
            budget.check()  # the sweep's states ran out, not the whole budget (that raises on)
            return atoms, actions, False
        return atoms, actions, True

    def optimal(self, state: int, budget: Budget, goal: object = None) -> None:
        raise NotImplementedError("h* of a numeric task: see numeric_optimal.NumericOptimizer")
