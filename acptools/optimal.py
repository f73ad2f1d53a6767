"""Optimal planning: h*(s), an optimal plan, and which next actions are optimal.

All searches use only the goal-relevant operators (relevance.py). A portfolio of exact engines:
  1. in-process A* (h^max, object symmetries) alone for a few hundredths of a second: most small
     states end here, with no process start;
  2. a race: Fast Downward A*/LM-cut on our SAS+ encoding (a subprocess); the in-process A* (a
     thread, for SYMMETRY_SECONDS of CPU) when the task has object symmetries, which collapse its
     state space and which the outside planners do not exploit; SymK bidirectional symbolic search
     after SYMK_DELAY seconds. The first exact answer wins and the others are stopped before the
     call returns.
Every answer is exact; if all engines run out of budget the answer is `unknown`. Slices are CPU
seconds (see search.Budget), so a busy machine slows a search down without changing its outcome.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, as_completed, wait
from dataclasses import dataclass

from . import fd, symk
from .errors import BudgetExceeded
from .relaxed import Relaxation
from .relevance import relevant_operators
from .search import Budget, optimal_first_actions, satisfies
from .successors import SuccessorGenerator
from .symmetry import Symmetry, goal_targets

QUICK_SECONDS = 0.05       # in-process A* alone, before any process start
QUICK_WORK = 40_000        # ... and at most this many expansions x ground operators
SYMMETRY_SECONDS = 30.0    # CPU seconds for the in-process A* beside Fast Downward, with object symmetries
SYMK_DELAY = 3.0           # SymK joins the race this late: Fast Downward settles most states sooner
LOSER_GRACE = 5.0          # a race waits this long (at most) for its cancelled engines to stop
_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="acptools-opt")
# up to 3 jobs a race, several races at once (the server runs searches side by side)
_race_pool = ThreadPoolExecutor(max_workers=12, thread_name_prefix="acptools-race")


def race(jobs, budget: Budget):
    """Run `jobs` (callables taking a Budget, returning a result or None) side by side; the first
    non-None result wins and the others are cancelled through their shared cancel event. A job's
    exception is raised only when no other job answers."""
    stop = threading.Event()
    futures = [_race_pool.submit(job, budget.child(cancel=stop)) for job in jobs]
    failure = None
    try:
        for f in as_completed(futures):
            try:
                result = f.result()
            except Exception as e:  # one engine failing must not stop the others from answering
                failure = failure or e
                continue
            if result is not None:
                return result
    finally:
        stop.set()
        wait(futures, timeout=LOSER_GRACE)  # the losers stop at their next check: no work outlives the call
    if failure is not None:
        raise failure
    return None


@dataclass
class HStar:
    """h*(s) with an optimal plan (action ids); cost None and known: no plan exists."""

    cost: int | None
    plan: list[int] | None
    how: str            # which engine proved it
    known: bool = True
    first_actions: frozenset[int] | None = None  # all optimal first actions, when computed


@dataclass
class NextActions:
    cost: int | None                 # h*(s); None when the goal is unreachable
    optimal: frozenset[int]          # action ids a with h*(s[a]) = h*(s) - 1
    plan: list[int] | None
    how: str


class Optimizer:
    def __init__(self, engine):
        self.engine = engine
        self.task = engine.task
        self.sym = Symmetry(self.task, goal_targets(self.task.goal), engine.static_classes)
        # only goal-relevant operators: same h* and optimal first actions, often far less search
        self.ops = [engine.operators[i] for i in relevant_operators(engine.operators, self.task.goal)]
        self.gen = SuccessorGenerator(self.ops)
        self.relax = Relaxation(len(self.task.atoms), self.ops)
        self.fd_how = "fast-downward-" + fd.optimal_heuristic(self.ops)

    # ---- engines ----------------------------------------------------------------------------
    def _astar(self, state: int, budget: Budget):
        goal = self.task.goal
        return optimal_first_actions(self.gen, state, goal, lambda s: self.relax.hmax(s, goal), budget,
                                     canon=self.sym.canonical)

    def _astar_h(self, state: int, budget: Budget) -> HStar | None:
        try:
            r = self._astar(state, budget)
        except BudgetExceeded:
            return None
        return HStar(r.cost, r.plan, "exhaustive-search" if r.cost is None else "astar-hmax",
                     first_actions=frozenset(r.first_actions))

    def _fd(self, state: int, budget: Budget) -> fd.FdResult:
        res = fd.solve(len(self.task.atoms), self.ops, state, self.task.goal, budget)
        if res.plan is not None:
            res.plan = [self.ops[i].action for i in res.plan]
        return res

    def _symk(self, state: int, budget: Budget) -> HStar | None:
        try:
            domain = self.task.written_domain_text
        except ValueError:  # not expressible for SymK's translator: leave it to the other engines
            return None
        res = symk.optimal_plan(domain, self.task.problem_for(state), budget)
        if res.plan is not None:
            return HStar(len(res.plan), [self.task.parse_action(a) for a in res.plan], "symk-bidirectional")
        if res.proven_none:
            return HStar(None, None, "symk-bidirectional")
        return None

    # ---- questions --------------------------------------------------------------------------
    def _quick(self, budget: Budget) -> Budget:
        return budget.child(QUICK_SECONDS, max(10, QUICK_WORK // max(1, len(self.ops))))

    def _astar_job(self, job) -> list:
        """The in-process A* as a race entry: only worth a core beside the outside planners when
        object symmetries shrink its state space (without them it rarely wins after QUICK_SECONDS;
        measured: racing it anyway made nothing faster)."""
        return [lambda b: job(b.child(SYMMETRY_SECONDS))] if self.sym.active else []

    def _fd_h(self, state: int, budget: Budget) -> HStar | None:
        res = self._fd(state, budget)
        if res.plan is not None:
            return HStar(len(res.plan), res.plan, self.fd_how)
        if res.proven_none:
            return HStar(None, None, self.fd_how)
        return None

    def h_star(self, state: int, budget: Budget) -> HStar:
        """Exact h*(state) or, when every engine ran out of budget, known=False."""
        if satisfies(state, self.task.goal):
            return HStar(0, [], "holds-in-state")
        h = self._astar_h(state, self._quick(budget))
        if h:
            return h
        h = race([lambda b: self._fd_h(state, b),
                  lambda b: None if b.pause(SYMK_DELAY) else self._symk(state, b)]
                 + self._astar_job(lambda b: self._astar_h(state, b)), budget)
        return h or HStar(None, None, "unknown", known=False)

    def _first_action_classes(self, state: int) -> dict[int, tuple[int, list[int], list[int]]]:
        """Applicable relevant operators of `state` grouped by symmetry class of their successor:
        canonical key -> (a successor state, action ids, indices into self.ops). Irrelevant
        operators never start an optimal plan (see relevance.py)."""
        index = {id(op): i for i, op in enumerate(self.ops)}
        classes: dict[int, tuple[int, list[int], list[int]]] = {}
        for op, t in self.gen.successors(state):
            entry = classes.setdefault(self.sym.canonical(t), (t, [], []))
            entry[1].append(op.action)
            entry[2].append(index[id(op)])
        return classes

    def _optimal_by_exclusion(self, state: int, plan: list[int], solve) -> set[int] | None:
        """All optimal first actions, given h*(state) = d and one optimal plan: re-solve with only
        the open candidate first actions allowed (`solve(actions, operators)` -> (plan as action ids
        or None, proven_none)); a plan of length d reveals another optimal one, a longer plan (or
        none) proves the rest non-optimal. None: the budget ran out."""
        if not plan:
            return set()
        classes = list(self._first_action_classes(state).values())
        d = len(plan)
        optimal: set[int] = set()

        def take(action: int) -> None:
            for _, acts, _ in classes:
                if action in acts:
                    optimal.update(acts)

        def promote(plan: list[int]) -> None:
            """Moving a later step of an optimal plan to the front, when the result is still a
            plan, proves that step an optimal first action too (commuting actions are common)."""
            for _, acts, _ in classes:
                if optimal & set(acts):
                    continue
                for k, a in enumerate(plan[1:], 1):
                    if a in acts and self.task.is_plan([a] + plan[:k] + plan[k + 1:], state):
                        take(a)
                        break

        take(plan[0])
        promote(plan)
        while True:
            open_ = [c for c in classes if not optimal & set(c[1])]
            if not open_:
                return optimal
            found, proven_none = solve({a for c in open_ for a in c[1]}, {i for c in open_ for i in c[2]})
            if found is None:
                return optimal if proven_none else None
            if len(found) > d:
                return optimal
            take(found[0])
            promote(found)

    def _fd_next(self, state: int, budget: Budget) -> NextActions | None:
        res = self._fd(state, budget)
        if res.proven_none:
            return NextActions(None, frozenset(), None, self.fd_how)
        if res.plan is None:
            return None
        every_op = range(len(self.ops))

        def solve(actions, ops):
            r = fd.solve(len(self.task.atoms), self.ops, state, self.task.goal, budget,
                         not_first=frozenset(set(every_op) - ops))
            plan = None if r.plan is None else [self.ops[i].action for i in r.plan]
            return plan, r.proven_none

        optimal = self._optimal_by_exclusion(state, res.plan, solve)
        return None if optimal is None else NextActions(len(res.plan), frozenset(optimal), res.plan,
                                                        self.fd_how)

    def _symk_next(self, state: int, budget: Budget) -> NextActions | None:
        """SymK, then exclusion re-solves on the domain compiled with a first-action gate."""
        root = self._symk(state, budget)
        if root is None:
            return None
        if root.cost is None:
            return NextActions(None, frozenset(), None, root.how)

        def solve(actions, ops):
            res = symk.optimal_plan(self.task.gated_domain_text, self.task.problem_for(state, actions), budget)
            plan = None if res.plan is None else [self.task.parse_action(a) for a in res.plan]
            return plan, res.proven_none

        optimal = self._optimal_by_exclusion(state, root.plan, solve)
        return None if optimal is None else NextActions(root.cost, frozenset(optimal), root.plan, root.how)

    def _astar_next(self, state: int, budget: Budget) -> NextActions | None:
        try:
            r = self._astar(state, budget)
        except BudgetExceeded:
            return None
        return NextActions(r.cost, r.first_actions, r.plan, "astar-hmax-symmetry" if self.sym.active else "astar-hmax")

    def _is_closer(self, t: int, d: int, budget: Budget) -> bool | None:
        """Is h*(t) = d - 1 for a successor t of a state with h* = d? None: unknown."""
        h = self.h_star(t, budget)
        return None if not h.known else h.cost == d - 1

    def next_actions(self, state: int, budget: Budget) -> NextActions | None:
        """All optimal next actions of `state`, or None when the budget ran out."""
        task = self.task
        if satisfies(state, task.goal):
            return NextActions(0, frozenset(), [], "holds-in-state")
        try:
            r = self._astar(state, self._quick(budget))
            return NextActions(r.cost, r.first_actions, r.plan, "astar-hmax")
        except BudgetExceeded:
            pass
        result = race([lambda b: self._fd_next(state, b),
                       lambda b: None if b.pause(SYMK_DELAY) else self._symk_next(state, b),
                       ] + self._astar_job(lambda b: self._astar_next(state, b)), budget)
        if result is not None:
            return result
        # last resort: exact h* of the state and of one successor per symmetry class
        root = self.h_star(state, budget)
        if not root.known:
            return None
        if root.cost is None:
            return NextActions(None, frozenset(), None, root.how)
        d = root.cost
        optimal: set[int] = set()
        todo = []
        for t, acts, _ in self._first_action_classes(state).values():
            if root.plan[0] in acts:  # the optimal plan's first action proves its whole class
                optimal.update(acts)
            else:
                todo.append((t, acts))
        verdicts = list(_pool.map(lambda item: self._is_closer(item[0], d, budget), todo))
        for (t, acts), ok in zip(todo, verdicts):
            if ok is None:
                return None
            if ok:
                optimal.update(acts)
        return NextActions(d, frozenset(optimal), root.plan, root.how)

    def action_value(self, state: int, action: int, budget: Budget) -> HStar | None:
        """h*(s[a]) for one applicable action (None if `action` is not applicable)."""
        op = self.task.op_for(action, state)
        if op is None:
            return None
        return self.h_star(self.task.apply_op(op, state), budget)
