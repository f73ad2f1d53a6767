"""The one reachability engine under the eight questions, bound to a task.

Everything reduces to: can a goal (a DNF over fluent atoms) be reached from a state, possibly
with some atoms never added? We try sound cheap proofs first (delete relaxation, then h^2), then
greedy search for a witness, which is also an exhaustive proof when it runs out of states.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass
from functools import cached_property
from typing import cast

from ..budget import Budget
from ..errors import BudgetExceeded
from ..ground.grounded import GroundedTask
from ..planners import fd
from ..util.lru import CacheMiss, LRUCache
from ..util.shortrepr import bounded_repr
from ..verdict import Proof, Verdict
from .h2 import h2_pairs, pair_reachable
from .literal_h2 import LiteralH2
from .race import race
from .relaxed import Relaxation
from .search import greedy_plan, optimal_first_actions, restrict, satisfies
from .successors import SuccessorGenerator, operators_bytes
from .symmetry import Symmetry, goal_targets, static_classes

QUICK_SECONDS = 0.05  # the in-process greedy search's first slice: most witnesses are a few steps away
QUICK_STATES = 2000
H2_SHARE = 0.3  # a list question's h^2 may use this share of what is left; past it, searches decide
FD_AFTER = 0.05  # wall seconds h^2 runs alone before Fast Downward joins a reach question
WALK_AFTER = 0.1  # wall seconds before random walks join (most questions are settled by then)
WALK_STEPS = 100_000  # random-walk steps a reach question tries (about 0.5-2 CPU s)
WALK_LENGTH = 200  # steps before a walk restarts from the state
SHOWN_STATES = 8  # states whose atoms and actions shown reachable are kept for later lists
H2_STATES = 32  # states whose h^2 pairs are kept (each a bitset per atom: atoms^2 / 8 bytes)
RESTRICTED = 256  # restricted operator sets kept (landmarks ask one per candidate) ...
RESTRICTED_OPERATORS = 4  # ... while they hold at most this many times the task's operators (plus MIN_ROOM)
MIN_ROOM = 20_000
BYTES_PER_PAIRS_ATOM = 40  # an h^2 bitset per atom: its bits and the int's header (x1.6 margin)


@bounded_repr
@dataclass
class Shown:
    """What lists showed about one state: atoms and actions (bitsets) shown reachable from it; a
    whole list (complete) also proves everything else unreachable from it."""

    atoms: int = 0
    actions: int = 0
    swept: bool = True  # its breadth-first sweep alone decided its lists (they are cheap)
    whole_atoms: bool = False
    whole_actions: bool = False


class Engine:
    """Caches per task: the successor index and relaxation over the task's operators as they were
    when it was built (`generation`); valid for states within `covered` (see grounded.py)."""

    def __init__(self, task: GroundedTask, shown: LRUCache | None = None):
        task.refuse_numeric("reachability, landmarks, h* and plans (their proofs read states as atoms alone)")
        self.task = task
        # atoms and actions shown reachable from a state: facts of the task, so an engine rebuilt
        # after the task grew keeps them (atom and action ids never change)
        self.shown = shown if shown is not None else LRUCache(SHOWN_STATES, kind="state")
        self.generation, self.covered, self.operators = task.snapshot()
        self.axioms = task.axioms  # derived predicates: None for most tasks
        self.gen = SuccessorGenerator(self.operators, self.axioms)
        self.relax = Relaxation(len(task.atoms), self.operators, self.relaxed_axioms())
        self._h2: dict[int, list[int]] = {}
        self._literal_h2: dict[int, list[int]] = {}
        self._h2_lock = threading.Lock()  # searches of one task run side by side (races, the server)
        self.base_bytes = operators_bytes(self.operators)
        room = RESTRICTED_OPERATORS * len(self.operators) + MIN_ROOM
        self._restricted: LRUCache = LRUCache(
            RESTRICTED,
            max_bytes=room,
            sizeof=lambda parts: len(parts[0]),
            remember_evicted=0,
            kind="restricted operator set",
        )
        self._plans: dict[int, list[int] | None] = {}

    def remember_shown(
        self, state: int, atoms: int = 0, actions=(), swept: bool = True, whole: str | None = None
    ) -> None:
        """What a list showed about `state`: atoms and actions (ids) that visited states showed
        reachable from it (a later list from a state with a plan to `state` inherits them); `swept`
        False when its breadth-first sweep did not decide the list; `whole` ("atoms" or "actions"):
        that list came out complete, so everything else is unreachable from `state` (given in the
        same call as what the list showed, so an entry evicted meanwhile cannot lose it)."""
        try:
            old = self.shown.get(state)
        except CacheMiss:
            old = Shown()
        for a in actions:
            old.actions |= 1 << a
        old.atoms |= atoms
        old.swept = old.swept and swept
        if whole is not None:
            setattr(old, "whole_" + whole, True)
        self.shown.put(state, old)

    @property
    def approx_bytes(self) -> int:
        """Rough memory of this engine and its caches (tracemalloc: 400-600 bytes per operator and
        400 per conditional effect for the index and relaxation, an h^2 table a bitset per atom)."""
        atoms = len(self.task.atoms)
        pairs = atoms * (atoms // 8 + BYTES_PER_PAIRS_ATOM)
        literal_pairs = 4 * atoms * (atoms // 4 + BYTES_PER_PAIRS_ATOM)
        copies = 1 + self._restricted.bytes / max(1, len(self.operators)) + ("literals" in self.__dict__)
        return int(self.base_bytes * copies + len(self._h2) * pairs + len(self._literal_h2) * literal_pairs)

    def relaxed_axioms(self, banned: int = 0) -> list[tuple[int, int]]:
        """The axioms as zero-cost relaxed actions, those deriving a `banned` atom left out."""
        return self.axioms.relaxed(banned) if self.axioms else []

    def h2(self, state: int, budget: Budget | None = None, operators=None) -> list[int]:
        """h^2 pairs of a state (cached for the full operator set); raises BudgetExceeded. With
        axioms h^2 is not computed: every pair counts as reachable, which proves nothing."""
        self.check_covers(state)
        if self.axioms:
            return [(1 << len(self.task.atoms)) - 1] * len(self.task.atoms)
        if operators is not None and operators is not self.operators:
            return h2_pairs(len(self.task.atoms), operators, state, budget)
        return self._cached(self._h2, state, lambda: h2_pairs(len(self.task.atoms), self.operators, state, budget))

    def _cached(self, cache: dict, state: int, compute) -> list[int]:
        """Pairs of a state from `cache`, else computed and kept (the last 32 states)."""
        hit = cache.get(state)
        if hit is None:
            hit = compute()
            with self._h2_lock:
                if len(cache) >= H2_STATES:
                    cache.pop(next(iter(cache)))
                cache[state] = hit
        return hit

    @cached_property
    def literals(self) -> LiteralH2 | None:
        """h^2 over literals, for tasks with preconditions that need atoms false (None for the
        others, and with axioms, as for h^2)."""
        if self.axioms or not any(op.neg or any(c[1] for c in op.conds) for op in self.operators):
            return None
        return LiteralH2(len(self.task.atoms), self.operators)

    def literal_h2(self, state: int, budget: Budget | None = None) -> list[int]:
        """h^2 pairs over literals of a state (cached; `literals` must not be None); raises BudgetExceeded."""
        self.check_covers(state)

        def compute() -> list[int]:
            literals = self.literals  # built on the first miss only
            assert literals is not None, "literal_h2 without literals"
            return literals.pairs(state, budget)

        return self._cached(self._literal_h2, state, compute)

    def refuted_by_literals(self, state: int, goal, budget: Budget | None = None) -> bool:
        """Does h^2 over literals prove that no disjunct of `goal` (needing atoms false) can hold?"""
        if self.literals is None or not any(neg for _, neg in goal):
            return False
        pairs = self.literal_h2(state, budget)
        return not any(self.literals.reachable(pairs, pre, neg) for pre, neg in goal)

    @cached_property
    def static_classes(self) -> list[list[str]]:
        """Objects interchangeable as far as the static facts go (the goal-independent part of
        every symmetry; computed once per task)."""
        return static_classes(self.task)

    def check_covers(self, state: int) -> None:
        """Raise when the state needs operators this engine lacks: a caller skipped task.ensure."""
        if state & ~self.covered and (self.generation != self.task.generation or state & ~self.task.reached):
            raise RuntimeError(
                "internal error: a state outside the grounded part of the task reached an engine "
                "(call task.ensure(state) first)"
            )

    def _make_restricted(self, banned_add: int):
        ops = restrict(self.operators, banned_add)
        return (
            ops,
            SuccessorGenerator(ops, self.axioms, banned_add & self.task.derived),
            Relaxation(len(self.task.atoms), ops, self.relaxed_axioms(banned_add)),
        )

    def parts(self, banned_add: int = 0):
        """Operators, successor generator and relaxation, restricted to the operators that never add
        an atom of `banned_add` (cached). A banned derived atom may never hold: its axioms are left
        out of the relaxation and states in which it holds out of the search."""
        if not banned_add:
            return self.operators, self.gen, self.relax
        return self._restricted.get_or_make(banned_add, lambda: self._make_restricted(banned_add))

    def witness(self, plan: list[int]) -> Verdict:
        """A reached goal: the plan as names for the caller, as ids for the library."""
        return Verdict(True, Proof.WITNESS, self.task.action_list(plan), plan_ids=list(plan))

    def reach(self, state: int, goal: list[tuple[int, int]], budget: Budget, banned_add: int = 0) -> Verdict:
        """Is some state satisfying `goal` reachable from `state` without ever adding `banned_add`?

        Order: the delete relaxation (a proof, microseconds), a first slice of in-process greedy
        search (most witnesses are a few steps away), then h^2 (a stronger proof), Fast Downward's
        complete greedy search and seeded random walks (witnesses where dead ends the relaxation
        does not see trap the heuristic searches) side by side, then in-process search on what is left.
        """
        self.check_covers(state)
        if satisfies(state, goal):
            return Verdict(True, Proof.HOLDS, [], plan_ids=[])
        try:
            return self._reach(state, goal, budget, banned_add)
        except BudgetExceeded as e:
            return Verdict(None, Proof.UNKNOWN, detail=str(e))

    def _reach(self, state: int, goal, budget: Budget, banned_add: int) -> Verdict:
        ops, gen, relax = self.parts(banned_add)
        reached, _ = relax.reachable(state, budget)
        if not any(p & reached == p for p, _ in goal):
            return Verdict(False, Proof.RELAXED)

        def hadd(s):
            return relax.hmax(s, goal, combine=sum)

        canon = Symmetry(self.task, goal_targets(goal, banned_add), self.static_classes).canonical
        try:
            plan = greedy_plan(gen, state, goal, hadd, budget.child(QUICK_SECONDS, QUICK_STATES), canon=canon)
            if plan is None:
                return Verdict(False, Proof.EXHAUSTIVE)
            return self.witness(plan)
        except BudgetExceeded:
            budget.check()  # the slice ran out, not the whole budget (that raises on)
        # h^2 (a proof that the goal is unreachable) and Fast Downward's complete greedy search (a
        # witness, or a proof by exhaustion) side by side: the first to decide wins. Fast Downward
        # starts after FD_AFTER, so that the h^2 proofs that come at once start no process.
        verdict = race(
            [
                lambda b: self._refuted_by_h2(state, goal, ops, b),
                lambda b: None if b.pause(FD_AFTER) else self._by_fd(state, goal, ops, b, banned_add),
                lambda b: None if b.pause(WALK_AFTER) else self._by_walk(state, goal, gen, b),
            ],
            budget,
        )
        if verdict is not None:
            return verdict
        plan = greedy_plan(gen, state, goal, hadd, budget, canon=canon)
        if plan is None:
            return Verdict(False, Proof.EXHAUSTIVE)
        return self.witness(plan)

    def _refuted_by_h2(self, state: int, goal, ops, budget: Budget) -> Verdict | None:
        """Unreachable by h^2 (no goal disjunct's atoms, or literals, are pairwise reachable), else None."""
        pairs = self.h2(state, budget, ops)
        if not any(pair_reachable(pairs, p) for p, _ in goal):
            return Verdict(False, Proof.H2)
        if ops is self.operators and self.refuted_by_literals(state, goal, budget):
            return Verdict(False, Proof.H2)
        return None

    def _by_fd(self, state: int, goal, ops, budget: Budget, banned_add: int) -> Verdict | None:
        """Fast Downward's complete greedy search: a witness, a proof that none exists, or None."""
        if banned_add & self.task.derived:  # a banned derived atom cannot be expressed to Fast Downward
            return None
        cache = fd.sas_cache(self.task)
        res = fd.solve(
            len(self.task.atoms),
            ops,
            state,
            goal,
            budget,
            optimal=False,
            axioms=self.axioms,
            used=fd.mentioned_atoms(self.operators, cache),
            cache=cache,
        )
        if res.plan is not None:
            return self.witness([ops[i].action for i in res.plan])
        return Verdict(False, Proof.EXHAUSTIVE) if res.proven_none else None

    def _by_walk(self, state: int, goal, gen, budget: Budget) -> Verdict | None:
        """Seeded random walks from the state: a witness (its loops cut out) where the heuristic
        searches are trapped, e.g. by dead ends the relaxation does not see; None once WALK_STEPS
        are spent."""
        rng = random.Random(0)
        steps = budget.child(None, WALK_STEPS)
        path: list[int] = []
        at = {state: 0}  # state -> its position on the path
        s, walked = state, 0
        try:
            while True:
                steps.spend()
                nexts = list(gen.successors(s))
                if not nexts or walked >= WALK_LENGTH:
                    s, walked, path, at = state, 0, [], {state: 0}
                    continue
                op, s = rng.choice(nexts)
                walked += 1
                if s in at:  # a loop: back to where it began
                    del path[at[s] :]
                    at = {k: i for k, i in at.items() if i <= at[s]}
                    continue
                path.append(op.action)
                at[s] = len(path)
                if satisfies(s, goal):
                    return self.witness(path)
        except BudgetExceeded:
            budget.check()  # the steps ran out, not the race's budget (that raises on)
            return None

    def some_plan(self, state: int, budget: Budget) -> list[int] | None:
        """Any plan from `state` (cached per state): one plan refutes every landmark candidate it
        never makes true. None when no plan was found (or none exists)."""
        hit = self._plans.get(state, False)
        if hit is not False:
            return cast("list[int] | None", hit)
        v = self.reach(state, self.task.goal, budget)
        plan = v.plan_ids if v.answer else None
        if v.known:
            if len(self._plans) > 256:
                self._plans.clear()
            self._plans[state] = plan
        return plan

    def optimal(self, state: int, budget: Budget, goal=None):
        """h*, all optimal first actions and one optimal plan (A* with h^max); raises BudgetExceeded."""
        self.check_covers(state)
        goal = self.task.goal if goal is None else goal

        def hmax(s):
            return self.relax.hmax(s, goal)

        return optimal_first_actions(self.gen, state, goal, hmax, budget)
