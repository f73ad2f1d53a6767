"""Exact search over a grounded task: one engine that every question is expressed on.

All searches take a `Budget` and raise `BudgetExceeded` instead of running on; callers turn that
into an `unknown` verdict. A search that empties its open list without a solution is a proof.
"""

from __future__ import annotations

import heapq
import threading
import time
from dataclasses import dataclass
from itertools import count

from .errors import BudgetExceeded
from .grounding import Operator
from .successors import SuccessorGenerator


CHECK_EVERY = 0.002  # seconds between full budget checks
EFFORT_WALL_FACTOR = 20.0  # an effort budget still stops at this many times its CPU seconds of wall time


@dataclass(frozen=True)
class Effort:
    """A budget per proof counted in CPU seconds: each question asked with it gets a fresh
    `Budget(cpu=seconds)` (with a generous wall-clock safety stop). Batch graders use it so that a
    busy machine changes how long a run takes, not its verdicts."""

    seconds: float

    def budget(self, cancel: threading.Event | None = None) -> "Budget":
        return Budget(EFFORT_WALL_FACTOR * self.seconds, cpu=self.seconds, cancel=cancel)

    def scaled(self, factor: float) -> "Effort":
        return Effort(self.seconds * factor)


class Budget:
    """How much a question may spend: wall seconds, CPU seconds and expanded states (None: no
    limit), and a cancel event shared with every child budget.

    Wall seconds are the caller's promise (a call returns within them, plus a small constant). CPU
    seconds measure effort: the CPU time of the threads that spend the budget and of the planner
    processes it pays for, charged up the chain of parents. Effort does not stretch when the
    machine is busy, so the engines' internal slices are CPU slices, and a batch grader that
    budgets CPU (not wall) time reaches the same verdicts on a quiet or a loaded machine.
    """

    def __init__(self, seconds: float | None = 5.0, states: int | None = None, *, cpu: float | None = None,
                 cancel: threading.Event | None = None, parent: "Budget | None" = None):
        self.seconds, self.states, self.cpu = seconds, states, cpu
        self.cancel, self.parent = cancel, parent
        self.started = time.perf_counter()
        self.expanded = 0
        self.cpu_used = 0.0
        self._marks: dict[int, float] = {}   # per thread: its CPU clock when last charged
        self._lock = threading.Lock()
        self._next_check = 0.0               # wall clock of the next full check (see check)

    def __repr__(self) -> str:
        return f"Budget(seconds={self.seconds}, cpu={self.cpu}, states={self.states}, used={self.cpu_used:.3f})"

    # ---- accounting ---------------------------------------------------------------------------
    def charge(self, cpu_seconds: float) -> None:
        """Add CPU seconds spent for this budget (and so for its parents)."""
        b = self
        while b is not None:
            with b._lock:
                b.cpu_used += cpu_seconds
            b = b.parent

    def charge_thread(self) -> None:
        """Charge the calling thread's CPU time since it last charged this budget (the first call
        in a thread only sets its mark)."""
        tid = threading.get_ident()
        now = time.thread_time()
        last = self._marks.get(tid)
        self._marks[tid] = now
        if last is not None and now > last:
            self.charge(now - last)

    def restart(self) -> None:
        """Start the clocks now (a budget made before its work was queued)."""
        self.started = time.perf_counter()
        self.expanded = 0
        self.cpu_used = 0.0
        self._marks.clear()

    # ---- limits -------------------------------------------------------------------------------
    def cancelled(self) -> bool:
        b = self
        while b is not None:
            if b.cancel is not None and b.cancel.is_set():
                return True
            b = b.parent
        return False

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def left(self) -> float | None:
        """Seconds left on the tightest wall or CPU limit along the chain of parents (0 once
        cancelled); None when nothing is limited."""
        if self.cancelled():
            return 0.0
        best = None
        b = self
        while b is not None:
            for limit, used in ((b.seconds, b.elapsed()), (b.cpu, b.cpu_used)):
                if limit is not None:
                    rest = max(0.0, limit - used)
                    best = rest if best is None else min(best, rest)
            b = b.parent
        return best

    def wall(self, default: float = 3600.0) -> float:
        """Seconds an outside planner may run: what is left, or `default` when unlimited."""
        left = self.left()
        return default if left is None else left

    def check(self) -> None:
        """Raise BudgetExceeded once any limit is reached or the budget is cancelled. Long loops
        call it per unit of work: it costs a look at the cancel events and one clock read, and every
        CHECK_EVERY seconds a full check (charge this thread's CPU, walk the parents' limits), so a
        limit overshoots by at most that and a cancel is seen at once."""
        if self.cancelled():
            raise BudgetExceeded("the search was cancelled")
        now = time.perf_counter()
        if now < self._next_check:
            return
        self._next_check = now + CHECK_EVERY
        self.charge_thread()
        b = self
        while b is not None:
            if b.seconds is not None and b.elapsed() > b.seconds:
                raise BudgetExceeded(f"time budget of {b.seconds:g} s spent")
            if b.cpu is not None and b.cpu_used > b.cpu:
                raise BudgetExceeded(f"effort budget of {b.cpu:g} CPU seconds spent")
            b = b.parent

    def spend(self, n: int = 1) -> None:
        """Count `n` expansions (or units of work) and check every limit."""
        self.expanded += n
        if self.states is not None and self.expanded > self.states:
            raise BudgetExceeded(f"state budget of {self.states} spent")
        self.check()

    def pause(self, seconds: float) -> bool:
        """Wait up to `seconds` unless cancelled first; True when cancelled (or out of time)."""
        end = time.perf_counter() + min(seconds, self.wall())
        while (rest := end - time.perf_counter()) > 0:
            if self.cancelled():
                return True
            if self.cancel is not None:  # wakes at once when this budget's own event is set
                self.cancel.wait(min(0.01, rest))
            else:
                time.sleep(min(0.01, rest))
        return self.cancelled() or self.wall() <= 0

    def child(self, cap: float | None = None, states: int | None = None,
              cancel: threading.Event | None = None) -> "Budget":
        """A slice of at most `cap` CPU seconds (effort, not wall time) of what is left; the
        parent's limits and cancellation still apply."""
        return Budget(None, states, cpu=cap, cancel=cancel, parent=self)


def satisfies(state: int, dnf: list[tuple[int, int]]) -> bool:
    return any(state & p == p and not state & n for p, n in dnf)


def _path(parents: dict, key: int) -> list[int]:
    """Actions from the root to `key`; parents map a state key to (parent key, action id)."""
    plan = []
    while True:
        prev = parents[key]
        if prev is None:
            return plan[::-1]
        key, action = prev
        plan.append(action)


def _identity(state: int) -> int:
    return state


def greedy_plan(gen: SuccessorGenerator, start: int, goal: list[tuple[int, int]], heuristic, budget: Budget,
                canon=_identity) -> list[int] | None:
    """Greedy best-first search; a plan (not necessarily shortest), or None when proven impossible.

    `heuristic(state)` may return inf to prune a state that provably cannot reach the goal.
    """
    if satisfies(start, goal):
        return []
    k0 = canon(start)
    parents: dict[int, tuple[int, int] | None] = {k0: None}
    tie = count()
    h0 = heuristic(start)
    if h0 == float("inf"):
        return None
    open_ = [(h0, next(tie), start, k0)]
    while open_:
        _, _, s, ks = heapq.heappop(open_)
        budget.spend()
        for op, t in gen.successors(s):
            kt = canon(t)
            if kt in parents:
                continue
            parents[kt] = (ks, op.action)
            if satisfies(t, goal):
                return _path(parents, kt)
            budget.check()  # one expansion may evaluate thousands of successors
            h = heuristic(t)
            if h != float("inf"):
                heapq.heappush(open_, (h, next(tie), t, kt))
    return None


@dataclass
class OptimalResult:
    """h*(start), the actions that start an optimal plan, and one optimal plan (None: no plan exists)."""

    cost: int | None
    first_actions: frozenset[int]
    plan: list[int] | None


def optimal_first_actions(gen: SuccessorGenerator, start: int, goal: list[tuple[int, int]], heuristic,
                          budget: Budget, canon=_identity) -> OptimalResult:
    """A* ordered by (f, g) that keeps, per state, the first actions of all its cheapest paths.

    With an admissible, consistent heuristic and ties broken towards lower g, every parent on a
    cheapest path to t is expanded before t, so first-action sets are complete when t is expanded.
    Expanding every state with f <= h* then yields *all* optimal first actions in one search:
    a is optimal iff h*(s[a]) = h*(s) - 1 iff a starts some cheapest path to a goal state.
    With symmetry keys, a state stands for its whole orbit; orbits share h*, so this stays exact.
    """
    INF = float("inf")
    if satisfies(start, goal):
        return OptimalResult(0, frozenset(), [])
    h0 = heuristic(start)
    if h0 == INF:
        return OptimalResult(None, frozenset(), None)
    k0 = canon(start)
    g = {k0: 0}
    first: dict[int, set[int]] = {k0: set()}
    parents: dict[int, tuple[int, int] | None] = {k0: None}
    closed: set[int] = set()
    tie = count()
    open_ = [(h0, 0, next(tie), start, k0)]
    best: int | None = None
    best_key = None
    optimal: set[int] = set()
    while open_:
        f, gs, _, s, ks = heapq.heappop(open_)
        if best is not None and f > best:
            break
        if ks in closed or gs != g[ks]:
            continue
        closed.add(ks)
        if satisfies(s, goal):
            if best is None:
                best, best_key = gs, ks
            optimal |= first[ks]
            continue
        budget.spend()
        fs = first[ks]
        for op, t in gen.successors(s):
            kt = canon(t)
            gt = gs + 1
            old = g.get(kt)
            if old is not None and old < gt:
                continue
            fa = fs if ks != k0 else {op.action}
            if old == gt:
                if kt not in closed:
                    first[kt] |= fa
                continue
            budget.check()
            h = heuristic(t)
            g[kt] = gt
            if h == INF:
                closed.add(kt)
                continue
            first[kt] = set(fa)
            parents[kt] = (ks, op.action)
            heapq.heappush(open_, (gt + h, gt, next(tie), t, kt))
    if best is None:
        return OptimalResult(None, frozenset(), None)
    return OptimalResult(best, frozenset(optimal), _path(parents, best_key))


def restrict(operators: list[Operator], banned_add: int = 0) -> list[Operator]:
    """Operators that never add an atom of `banned_add` (conditional adds are dropped only if they
    could fire; an operator whose unconditional effect adds a banned atom is removed)."""
    if not banned_add:
        return operators
    kept = []
    for op in operators:
        if op.add & banned_add:
            continue
        if any(ca & banned_add for _, _, ca, _ in op.conds):
            # split the operator: forbid the conditions that would add the banned atom
            kept.extend(_forbid_conditions(op, banned_add))
            continue
        kept.append(op)
    return kept


def _forbid_conditions(op: Operator, banned_add: int) -> list[Operator]:
    """Versions of `op` in which no condition that adds a banned atom holds (a DNF of negations)."""
    bad = [(cp, cn) for cp, cn, ca, _ in op.conds if ca & banned_add]
    variants = [(op.pre, op.neg)]
    for cp, cn in bad:
        # not (cp and not cn) = some atom of cp is false, or some atom of cn is true
        new = []
        for p, n in variants:
            for i in range(max(cp.bit_length(), cn.bit_length())):
                bit = 1 << i
                if cp & bit and not p & bit:
                    new.append((p, n | bit))
                elif cn & bit and not n & bit:
                    new.append((p | bit, n))
        variants = [(p, n) for p, n in set(new) if not p & n]
    conds = tuple(c for c in op.conds if not c[2] & banned_add)
    return [Operator(op.action, p, n, op.add, op.dele, conds) for p, n in variants]
