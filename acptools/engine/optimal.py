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
seconds (see acptools.budget), so a busy machine slows a search down without changing its outcome.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

from ..budget import Budget
from ..errors import BudgetExceeded
from ..ground.grounded import GroundedTask
from ..ground.grounding import Operator
from ..planners import fd, symk
from ..util.lru import CacheMiss, LRUCache
from ..verdict import Proof, chained
from .hstar_table import INF, Bound, Cost, Gated, HStarTable, Row, settle, settle_each, side_by_side, split
from .lmcut import LmCut
from .race import race
from .relaxed import Relaxation
from .relevance import relevant_operators
from .search import greedy_plan, optimal_first_actions, satisfies
from .successors import SuccessorGenerator, operators_bytes
from .symmetry import Symmetry, goal_targets

QUICK_SECONDS = 0.05  # in-process A* alone, before any process start
QUICK_WORK = 40_000  # ... and at most this many expansions x ground operators
SYMMETRY_SECONDS = 30.0  # CPU seconds for the in-process A* beside Fast Downward, with object symmetries
ASTAR_DELAY = 0.3  # wall seconds before that A* joins a race (Fast Downward settles most states sooner)
SYMK_DELAY = 3.0  # SymK joins the race this late: Fast Downward settles most states sooner
FD_HEAD_START = 0.02  # wall seconds the quick in-process A* runs alone before Fast Downward joins (tables)
LMCUT_BOUND_SHARE = 0.3  # of what is left for the bounds of an unknown h*: LM-cut's lower bound (the rest seeks a plan)
GATE_WORKERS = 2  # gated searches side by side (planner processes: 2 cores are worth it)
REACHABLE_CACHE = 16  # states whose relaxed-reachable operator lists are kept
BOUND_SHARE = 0.15  # of a budget kept back for bounds (a satisficing plan) when the exact search runs out
PROGRESS_CACHE = 256  # states whose partial search results (floors, plans) are kept for their bounds
NEXT_CACHE = 1024  # states whose optimal next actions are kept
# measured with tracemalloc (x1.6 margin): LM-cut, symmetry and the relevance index per operator; a
# state's kept answer (its optimal next actions, a plan)
BYTES_PER_OPERATOR = 1300
BYTES_PER_STATE = 2000
FD_BOUND_SHARE = 0.6  # of a bound's budget for Fast Downward's lazy greedy search (then the in-process one)


log = logging.getLogger("acptools.engine")  # each search it starts, at DEBUG


@dataclass
class HStar:
    """h*(s) with an optimal plan (action ids); cost None and known: no plan exists."""

    cost: Cost | None
    plan: list[int] | None
    how: str  # which engine proved it
    known: bool = True
    first_actions: frozenset[int] | None = None  # all optimal first actions, when computed
    lower: Bound = 0  # unknown: a proven lower bound on h* (inf: the goal is unreachable)
    upper_plan: list[int] | None = None  # unknown: the shortest plan found (an upper bound on h*)
    upper_cost: Bound | None = None  # unknown, metric "cost": upper_plan's cost (else its length bounds h*)
    from_store: bool = field(default=False, compare=False)  # read from the proof store (acptools.truth)

    @property
    def bounds(self) -> tuple[Bound, Bound]:
        """A proven interval lower <= h* <= upper (inf: no plan known, or none exists)."""
        if self.known:
            return (INF, INF) if self.cost is None else (self.cost, self.cost)
        if self.upper_plan is None:
            return self.lower, INF
        return self.lower, len(self.upper_plan) if self.upper_cost is None else self.upper_cost


@dataclass
class NextActions:
    """h* of a state, its optimal first actions and a plan, with how they were proven."""

    cost: Cost | None  # h*(s); None when the goal is unreachable
    optimal: frozenset[int]  # action ids a with h*(s[a]) = h*(s) - 1
    plan: list[int] | None
    how: str
    table: HStarTable | None = None  # h* after each action, as far as the search settled it
    plans: dict[int, list[int]] = field(default_factory=dict)  # optimal action -> an optimal plan starting with it

    @property
    def quick(self) -> bool:
        """Settled by the quick in-process A* alone (no planner process)."""
        return self.how == Proof.ASTAR

    def after(self, action: int, cost=1) -> HStar:
        """h* of the state an optimal `action` of `cost` leads to (h* less that cost), with an optimal
        plan from it when one is known (the plan, or a gated search's, that starts with `action`)."""
        plan = self.plan if self.plan and self.plan[0] == action else self.plans.get(action)
        assert self.cost is not None, "only an optimal action of a solvable state has a state after it"
        if cost == 1:
            rest = plan[1:] if plan and len(plan) == self.cost else None
        else:  # a cost task's plan is the search's cheapest plan
            rest = plan[1:] if plan and plan is self.plan else None
        return HStar(self.cost - cost, rest, chained(self.how, Proof.OPTIMAL_STEP))


class SharedRoot:
    """h* of a race's state as the first planner proves it. The planners race their own root
    searches; the first to finish hands its answer to the others, whose root searches stop, and
    all go on to their gated searches from it (a second root search would prove nothing new). The
    winner keeps GATE_WORKERS gated searches side by side, the others one each: the cores they
    would have spent on their own root search."""

    def __init__(self):
        self._lock = threading.Lock()
        self.found: HStar | None = None
        self._stops: list[threading.Event] = []

    def solve(self, search, budget: Budget, seat: Seat) -> HStar | None:
        """`search(budget)` -> HStar or None, unless another planner's root is known first."""
        with self._lock:
            if self.found is not None:
                return self.found
            stop = threading.Event()
            self._stops.append(stop)
        res = search(budget.child(cancel=stop))
        with self._lock:
            if res is not None and res.known and self.found is None:
                self.found, seat.won = res, True
                for other in self._stops:
                    if other is not stop:
                        other.set()
            return self.found or res


@dataclass
class Seat:
    """One planner's place in a race with a shared root."""

    won: bool = False

    def workers(self) -> int:
        """Gated searches this planner runs side by side."""
        return GATE_WORKERS if self.won else 1


def fd_how(res: fd.FdResult) -> str:
    """The proof's name for an optimal Fast Downward search (its heuristic depends on the operators
    it was given: LM-cut once conditional effects are compiled away, else h^max)."""
    return "fast-downward-" + res.heuristic


class Optimizer:
    """Optimal planning for an engine's task: h* and optimal first actions over the goal-relevant
    operators, with symmetry. Plans are measured by their length (cost_optimal.py: by action costs)."""

    metric = "length"

    def __init__(self, engine):
        self.engine = engine
        self.task = engine.task
        self.sym = Symmetry(self.task, goal_targets(self.task.goal), engine.static_classes)
        # only goal-relevant operators: same h* and optimal first actions, often far less search
        # (not with axioms: an operator can matter through the derived atoms it changes)
        self.ops = (
            list(engine.operators)
            if self.task.axioms
            else [engine.operators[i] for i in relevant_operators(engine.operators, self.task.goal)]
        )
        self._relevant = {id(op) for op in self.ops}
        if len(self.ops) == len(engine.operators):  # every operator is relevant: the engine's indexes serve
            self.gen, self.relax = engine.gen, engine.relax
        else:
            self.gen = SuccessorGenerator(self.ops, self.task.axioms)
            self.relax = Relaxation(len(self.task.atoms), self.ops, engine.relaxed_axioms())
        own = 0 if self.gen is engine.gen else operators_bytes(self.ops)
        self.base_bytes = BYTES_PER_OPERATOR * len(self.ops) + own
        self._reachable: dict[int, list[Operator]] = {}
        self._progress: dict[int, tuple[Bound, list[int] | None]] = {}  # state -> (floor, best plan)
        self._progress_lock = threading.Lock()
        self._next: LRUCache[int, NextActions] = LRUCache(NEXT_CACHE, remember_evicted=0, kind="state")

    @property
    def approx_bytes(self) -> int:
        """Rough memory of this optimizer and its caches (operator lists per state, kept answers)."""
        lists = sum(len(ops) for ops in list(self._reachable.values()) if ops is not self.ops)
        return self.base_bytes + 8 * lists + BYTES_PER_STATE * (len(self._progress) + len(self._next))

    def step_cost(self, action: int, state: int) -> int:
        """What one step adds to a plan's measure: 1."""
        return 1

    def plan_cost(self, plan: list[int], state: int) -> int | None:
        """A plan's measure from `state`: its length (None when it is not a plan from there)."""
        return len(plan) if self.task.is_plan(plan, state) else None

    # ---- bounds: what searches that ran out still proved ---------------------------------------
    def note(self, state: int, floor: Bound = 0, plan: list[int] | None = None) -> None:
        """Keep a proven lower bound on h*(state) and a plan from it (the shortest seen)."""
        with self._progress_lock:
            old_floor, old_plan = self._progress.pop(state, (0, None))
            if plan is None or (old_plan is not None and len(old_plan) <= len(plan)):
                plan = old_plan
            if len(self._progress) >= PROGRESS_CACHE:
                self._progress.pop(next(iter(self._progress)))
            self._progress[state] = (max(floor, old_floor), plan)

    def bounds(self, state: int, budget: Budget) -> HStar:
        """h*(state) when an exact search ran out: lower = the best admissible bound reached (h^max
        or LM-cut of the state, the f-layer an A* (in-process, or Fast Downward's) completed),
        upper = the shortest plan found (by the exact searches, or in `budget` by Fast Downward's lazy
        greedy search, then the in-process greedy search, which also proves a dead end),
        re-validated. Known when they meet, or when a bound proves the goal unreachable. Each step
        checks `budget`: once it is spent, the bounds are what the steps before it proved."""
        goal = self.task.goal
        with self._progress_lock:
            lower, plan = self._progress.get(state, (0, None))
        try:
            lower = max(lower, self.relax.hmax(state, goal, budget=budget))
            if self.lmcut is not None and lower < INF:
                lower = max(lower, self.lmcut.value(state, goal, budget=budget.share(LMCUT_BOUND_SHARE)))
            if lower == INF:
                return HStar(None, None, Proof.RELAXED)
            if plan is None or len(plan) > lower:
                found = self._fd_greedy(state, budget.share(FD_BOUND_SHARE)) or self._greedy(state, budget)
                if found is Proof.NO_PLAN:
                    return HStar(None, None, Proof.EXHAUSTIVE)
                if isinstance(found, list) and (plan is None or len(found) < len(plan)):
                    plan = found
        except BudgetExceeded:
            pass
        if plan is not None and not self.task.is_plan(plan, state):
            plan = None  # never report a bound that a replay does not confirm
        if plan is not None and len(plan) <= lower:
            return HStar(len(plan), plan, "plan+lower-bound")
        return HStar(None, None, Proof.UNKNOWN, known=False, lower=lower, upper_plan=plan)

    def _greedy(self, state: int, budget: Budget) -> list[int] | str | None:
        """A plan by greedy best-first search with h^add; Proof.NO_PLAN: proven none; None: out of budget."""
        goal, relax = self.task.goal, self.engine.relax
        try:
            plan = greedy_plan(
                self.engine.gen,
                state,
                goal,
                lambda s: relax.hmax(s, goal, combine=sum, budget=budget),
                budget,
                canon=self.sym.canonical,
            )
        except BudgetExceeded:
            return None
        return Proof.NO_PLAN if plan is None else plan

    def _fd_greedy(self, state: int, budget: Budget) -> list[int] | None:
        """A plan by Fast Downward's lazy greedy search with preferred operators (far sooner than the
        in-process search on large tasks); None when it found none."""
        ops = self.ops_from(state, budget)
        res = fd.solve(
            len(self.task.atoms),
            ops,
            state,
            self.task.goal,
            budget,
            optimal=False,
            greedy=fd.FAST_SATISFICING,
            **self.fd_args,
        )
        return None if res.plan is None else [ops[i].action for i in res.plan]

    # ---- operators a search from a state needs -----------------------------------------------
    def ops_from(self, state: int, budget: Budget | None = None) -> list[Operator]:
        """The relevant operators that are relaxed-reachable from `state`: no plan from it uses
        another, and the planners parse and search less (cached for the last few states). With a
        `budget`, checked as the relaxation runs (raises BudgetExceeded)."""
        hit = self._reachable.get(state)
        if hit is None:
            _, fired = self.relax.reachable(state, budget)
            entry = self.relax.entry_of_op
            hit = [op for i, op in enumerate(self.ops) if fired[entry[i]]]
            if len(hit) == len(self.ops):
                hit = self.ops  # the same list object keeps the planners' text caches warm
            if len(self._reachable) >= REACHABLE_CACHE:
                self._reachable.pop(next(iter(self._reachable)))
            self._reachable[state] = hit
        return hit

    def _irrelevant_first(self, state: int) -> list[Operator]:
        """Applicable operators left out as goal-irrelevant: they never start an optimal plan, but
        the table still needs h* after them."""
        return [op for op in self.engine.gen.applicable(state) if id(op) not in self._relevant]

    def rows_of(self, state: int) -> HStarTable:
        """The successor table of `state` before anything is known about h*."""
        return HStarTable.of_state(
            self.task, self.sym.canonical, state, ((op.action, t) for op, t in self.engine.gen.successors(state))
        )

    def new_table(
        self,
        state: int,
        d: Cost,
        plan: list[int] | None,
        optimal=None,
        rows: HStarTable | None = None,
        hmax: bool = True,
        budget: Budget | None = None,
    ) -> HStarTable:
        """The h* table of `state` rooted at h* = `d` with `plan`; goal-irrelevant first actions are
        marked not optimal. `hmax`: each row's h^max as its lower bound (admissible: a row at or
        above d is no optimal start), for as long as `budget` lasts (a row without keeps the bound it
        has). A table for the optimal set alone goes without: its gated searches decide those rows
        anyway, and on large tasks the rows' h^max cost more than they spared."""
        not_optimal = frozenset(op.action for op in self._irrelevant_first(state))
        table = (rows or self.rows_of(state)).set_root(d, plan, optimal, not_optimal)
        if hmax:
            goal = self.task.goal
            try:
                for row in table.open_rows():
                    row.lo = max(row.lo, self.relax.hmax(row.state, goal, budget=budget))
            except BudgetExceeded:
                pass
        return table

    @property
    def fd_args(self) -> dict:
        """What every Fast Downward call on this task passes: its axioms, the atoms that become
        variables and the task's SasCache."""
        return {"axioms": self.task.axioms, "used": self.used_atoms, "cache": fd.sas_cache(self.task)}

    @property
    def used_atoms(self) -> int:
        """The atoms the task's operators mention: Fast Downward's variables on every call for this
        task, so each operator's text is written once whatever list of them a search gets."""
        return fd.mentioned_atoms(self.engine.operators, fd.sas_cache(self.task))

    @cached_property
    def lmcut(self) -> LmCut | None:
        """LM-cut over the goal-relevant operators (None where their conditional effects do not
        compile away small)."""
        return LmCut.of(len(self.task.atoms), self.ops, self.engine.relaxed_axioms())

    # ---- engines ----------------------------------------------------------------------------
    def _astar(self, state: int, budget: Budget):
        goal = self.task.goal
        return optimal_first_actions(
            self.gen, state, goal, lambda s: self.relax.hmax(s, goal), budget, canon=self.sym.canonical
        )

    def _astar_h(self, state: int, budget: Budget) -> HStar | None:
        try:
            r = self._astar(state, budget)
        except BudgetExceeded as e:
            self.note(state, getattr(e, "floor", 0))
            return None
        return HStar(
            r.cost,
            r.plan,
            Proof.EXHAUSTIVE if r.cost is None else Proof.ASTAR,
            first_actions=frozenset(r.first_actions),
        )

    def _fd(self, state: int, budget: Budget) -> fd.FdResult:
        ops = self.ops_from(state)
        res = fd.solve(len(self.task.atoms), ops, state, self.task.goal, budget, **self.fd_args)
        if res.plan is not None:
            res.plan = [ops[i].action for i in res.plan]
        return res

    def _symk(self, state: int, budget: Budget) -> HStar | None:
        try:
            domain = self.task.written_domain_text
        except ValueError:  # not expressible for SymK's translator: leave it to the other engines
            return None
        res = symk.optimal_plan(domain, self.task.problem_for(state), budget)
        if res.plan is not None:
            plan = [self.task.parse_action(a) for a in res.plan]
            self.note(state, len(plan), plan)  # exact: should the optimal set run out of budget, h* stays known
            return HStar(len(plan), plan, Proof.SYMK)
        if res.proven_none:
            return HStar(None, None, Proof.SYMK)
        return None

    # ---- gated searches: plans from a state whose first action must start given table rows ----
    def fd_gate(self, state: int):
        """`solve(rows, stop_floor, budget)` -> Gated with Fast Downward: A* over the operators
        reachable from `state` (plus the applicable irrelevant ones, which rows start), only the
        rows' actions allowed first, stopped once no plan shorter than `stop_floor` can exist."""
        ops = self.ops_from(state) + self._irrelevant_first(state)
        firsts: dict[int, list[int]] = {}  # row key -> operator indices that start it
        for j, op in enumerate(ops):
            if state & op.pre == op.pre and not state & op.neg:
                firsts.setdefault(self.sym.canonical(self.task.apply_op(op, state)), []).append(j)

        def solve(rows: list[Row], stop: float, budget: Budget) -> Gated | None:
            allowed = {j for r in rows for j in firsts.get(r.key, ())}
            not_first = frozenset(j for js in firsts.values() for j in js if j not in allowed)
            bound = int(stop) if stop < INF else None  # a plan that long or longer would decide nothing
            r = fd.solve(
                len(self.task.atoms),
                ops,
                state,
                self.task.goal,
                budget,
                not_first=not_first,
                bound=bound,
                stop_floor=bound,
                **self.fd_args,
            )
            if r.plan is not None:
                return Gated([ops[i].action for i in r.plan], len(r.plan), how=fd_how(r))
            if r.proven_none or r.floor:
                return Gated(None, r.floor, complete=not r.timed_out, how=fd_how(r))
            return None

        return solve

    def symk_gate(self, state: int):
        """The same question for SymK, on the domain compiled with a first-action gate, bounded
        like Fast Downward's (a plan `stop` long or longer would decide nothing)."""

        def solve(rows: list[Row], stop: float, budget: Budget) -> Gated | None:
            try:
                domain = self.task.gated_domain_text
            except ValueError:
                return None
            allowed = {a for r in rows for a in r.actions}
            bound = int(stop) if stop < INF else None
            res = symk.optimal_plan(domain, self.task.problem_for(state, allowed), budget, bound=bound)
            if res.plan is not None:
                return Gated([self.task.parse_action(a) for a in res.plan], len(res.plan))
            if res.proven_none:
                return Gated(None, INF if bound is None else bound)
            return None

        return solve

    # ---- questions --------------------------------------------------------------------------
    def _quick(self, budget: Budget) -> Budget:
        return budget.child(QUICK_SECONDS, max(10, QUICK_WORK // max(1, len(self.ops))))

    def _astar_job(self, job) -> list:
        """The in-process A* as a race entry: only worth a core beside the outside planners when
        object symmetries shrink its state space (without them it rarely wins after QUICK_SECONDS;
        measured: racing it anyway made nothing faster). It joins after ASTAR_DELAY: until then the
        planners' own Python work (writing the task, reading the plan) has the interpreter to itself."""
        return [lambda b: None if b.pause(ASTAR_DELAY) else job(b.child(SYMMETRY_SECONDS))] if self.sym.active else []

    def _fd_h(self, state: int, budget: Budget) -> HStar | None:
        res = self._fd(state, budget)
        if res.plan is not None:
            self.note(state, len(res.plan), res.plan)
            return HStar(len(res.plan), res.plan, fd_how(res))
        if res.timed_out and res.floor:
            self.note(state, res.floor)
        if res.proven_none:
            return HStar(None, None, fd_how(res))
        return None

    def h_star(self, state: int, budget: Budget, quick: bool = True, astar: bool = True, bound: bool = True) -> HStar:
        """Exact h*(state) or, when every engine ran out of budget, known=False with proven bounds
        (`bound`: BOUND_SHARE of the budget is kept for them). `quick` and `astar` False leave out
        the in-process A* (its first slice, and its race entry), for states where it already failed
        on a sibling."""
        if satisfies(state, self.task.goal):
            return HStar(0, [], Proof.HOLDS)
        if bound:
            log.debug("search: h* of a state with %d true atoms", state.bit_count())
            h = self.h_star(state, budget.share(1 - BOUND_SHARE), quick, astar, bound=False)
            return h if h.known else self.bounds(state, budget)
        if quick:
            quick_h = self._astar_h(state, self._quick(budget))
            if quick_h:
                return quick_h
        h = race(
            [lambda b: self._fd_h(state, b), lambda b: None if b.pause(SYMK_DELAY) else self._symk(state, b)]
            + (self._astar_job(lambda b: self._astar_h(state, b)) if astar else []),
            budget,
        )
        return h or HStar(None, None, Proof.UNKNOWN, known=False)

    def h_below(self, state: int, bound: int, budget: Budget) -> HStar:
        """h*(state) when it is below `bound`; otherwise the proof that it is not (known=False,
        lower >= bound). What grading one next action needs (is h*(s[a]) < h*(s)?): the searches stop
        at the f-layer `bound`, sparing the last layers, which dominate an A* search; before them,
        LM-cut reaching `bound` proves it with no search. When the budget runs out first: the
        bounds that `h_star` gives."""
        if satisfies(state, self.task.goal):
            return HStar(0, [], Proof.HOLDS)
        log.debug("search: h* below %d of a state with %d true atoms", bound, state.bit_count())
        share = budget.share(1 - BOUND_SHARE)
        if self.lmcut is not None:
            lower = self.lmcut.value(state, self.task.goal, bound=bound, budget=share)
            if lower == INF:
                return HStar(None, None, Proof.RELAXED)
            if lower >= bound:
                return HStar(None, None, Proof.LMCUT, known=False, lower=lower)
        h = self._astar_h(state, self._quick(share))
        if h is None:
            h = race(
                [lambda b: self._fd_below(state, bound, b)] + self._astar_job(lambda b: self._astar_h(state, b)), share
            )
        if h is None:
            h = self.bounds(state, budget)
        return h

    def _fd_below(self, state: int, bound: int, budget: Budget) -> HStar | None:
        """Fast Downward's A* for plans shorter than `bound`, stopped once none can exist."""
        ops = self.ops_from(state)
        res = fd.solve(
            len(self.task.atoms), ops, state, self.task.goal, budget, bound=bound, stop_floor=bound, **self.fd_args
        )
        if res.plan is not None:
            plan = [ops[i].action for i in res.plan]
            self.note(state, len(plan), plan)
            return HStar(len(plan), plan, fd_how(res))
        if res.floor == INF:
            return HStar(None, None, fd_how(res))
        if res.floor >= bound:
            self.note(state, res.floor)
            return HStar(None, None, fd_how(res) + "-bounded", known=False, lower=res.floor)
        if res.floor:
            self.note(state, res.floor)
        return None

    # ---- whole tables: each strategy settles every row it can; the first to finish wins -------
    def _settled_by_gate(
        self, table: HStarTable, gate, budget: Budget, exact: bool, workers=GATE_WORKERS
    ) -> HStarTable | None:
        settle(table, gate, budget, exact, workers=workers)
        return None if table.open_rows(exact) else table

    def _settled_by_quick(self, table: HStarTable, budget: Budget) -> HStarTable | None:
        """Each open row by the in-process A* in its quick slice (small states: no process at all)."""
        for row in table.open_rows():
            h = self._astar_h(row.state, self._quick(budget))
            if h is None:
                return None
            table.learn_value(row, h.cost, h.plan)
        return table

    def _settled_by_astar(self, table: HStarTable, budget: Budget) -> HStarTable | None:
        """Each open row by the in-process A* (worth it with symmetries, which the planners lack)."""
        for row in table.open_rows():
            h = self._astar_h(row.state, budget)
            if h is None:
                return None
            table.learn_value(row, h.cost, h.plan)
        return table

    def _by_planner(
        self,
        state: int,
        root: HStar | None,
        gate,
        budget: Budget,
        exact: bool,
        partial: list | None,
        rows: HStarTable | None = None,
        learned=(),
        seat: Seat | None = None,
    ) -> NextActions | None:
        """The optimal first actions (with `exact`, h* after every action) from a planner's root
        solve and gated re-solves, each finding the best of the rows still open. `learned`: gated
        results (row keys, Gated) found before the root was known. A table that decides the
        optimal actions but not every row goes to `partial`. `seat`: this planner's place in a race
        with a shared root (how many gated searches it runs side by side)."""
        if root is None:
            return None
        if root.cost is None:
            return NextActions(None, frozenset(), None, root.how)
        table = self.new_table(state, root.cost, root.plan, rows=rows, hmax=exact, budget=budget)
        for keys, res in learned:
            table.learn_gated([table.rows[k] for k in keys], res)
        table.learn_lookahead(self.engine.gen, [root.plan], exact)
        done = self._settled_by_gate(table, gate, budget, exact, GATE_WORKERS if seat is None else seat.workers)
        if table.open_rows(exact=False):
            return None
        optimal = frozenset(table.optimal_actions())
        plans = {a: p for a, p in table.plans.items() if a in optimal and len(p) == root.cost}
        plan = root.plan or min(plans.values(), default=None)  # a known h* without its plan: a gated search's
        res = NextActions(root.cost, optimal, plan, root.how, table, plans)
        if done is None:
            if partial is not None:
                partial.append(res)
            return None
        return res

    def by_fd(
        self,
        state: int,
        budget: Budget,
        exact: bool = False,
        partial: list | None = None,
        shared: SharedRoot | None = None,
    ) -> NextActions | None:
        """Fast Downward's table. With `exact`, the root's solve is itself split: the rows in two
        groups, one gated search each side by side; h*(s) is the shorter of their plans, and the
        longer one already settles a row of the other group. `shared`: the race's root (another
        planner's proof stops this one's root search)."""
        gate = self.fd_gate(state)
        rows = self.rows_of(state)
        groups = split(list(rows.rows.values()), GATE_WORKERS) if exact else []
        learned: list = []

        def split_root(b: Budget) -> HStar | None:
            found = side_by_side([lambda bb, g=g: gate(g, INF, bb) for g in groups], b)
            if any(res is None or not res.complete for res in found):
                return None
            best = min(found, key=lambda res: res.floor)
            learned.extend(([r.key for r in g], res) for g, res in zip(groups, found, strict=True))
            return HStar(None if best.plan is None else len(best.plan), best.plan, best.how)

        search = split_root if len(groups) >= 2 else (lambda b: self._fd_h(state, b))
        if shared is None:
            return self._by_planner(state, search(budget), gate, budget, exact, partial, rows, learned)
        seat = Seat()
        root = shared.solve(search, budget, seat)
        return self._by_planner(state, root, gate, budget, exact, partial, rows, learned, seat)

    def _quick_next(self, state: int, budget: Budget) -> NextActions | None:
        try:
            r = self._astar(state, self._quick(budget))
        except BudgetExceeded as e:
            self.note(state, getattr(e, "floor", 0))
            return None
        return NextActions(r.cost, r.first_actions, r.plan, Proof.ASTAR)

    def by_symk(
        self,
        state: int,
        budget: Budget,
        exact: bool = False,
        partial: list | None = None,
        shared: SharedRoot | None = None,
    ) -> NextActions | None:
        """SymK's table: its root solve (or the race's root, once another planner proved it), then
        gated SymK searches on the first-action-gated domain."""
        gate = self.symk_gate(state)
        if shared is None:
            return self._by_planner(state, self._symk(state, budget), gate, budget, exact, partial)
        seat = Seat()
        root = shared.solve(lambda b: self._symk(state, b), budget, seat)
        return self._by_planner(state, root, gate, budget, exact, partial, seat=seat)

    def by_astar(
        self, state: int, budget: Budget, exact: bool = False, partial: list | None = None
    ) -> NextActions | None:
        """NextActions from an A* search (None when the budget runs out); with `exact`, only once h*
        after every action is settled too (else None, the unsettled result appended to `partial`)."""
        try:
            r = self._astar(state, budget)
        except BudgetExceeded as e:
            self.note(state, getattr(e, "floor", 0))
            return None
        res = NextActions(r.cost, r.first_actions, r.plan, Proof.ASTAR_SYMMETRY if self.sym.active else Proof.ASTAR)
        if not exact or r.cost is None:
            return res
        res.table = self.new_table(state, r.cost, r.plan, optimal=r.first_actions, budget=budget)
        res.table.learn_lookahead(self.engine.gen, [r.plan])
        if self._settled_by_astar(res.table, budget) is None:
            if partial is not None:
                partial.append(res)
            return None
        return res

    def next_actions(
        self, state: int, budget: Budget, exact: bool = False, known: HStar | None = None, quick: bool = True
    ) -> NextActions | None:
        """All optimal next actions of `state`, or None when the budget ran out. With `exact`, the
        race's engines go on to settle h* after every action (`NextActions.table`, complete unless
        the budget ran out; None after the quick in-process A*, which leaves the rows to the caller).
        `known`: h*(state) already proven (its plan may be None), as along an optimal path: only the
        gated searches for the optimal rows run, no root search. `quick` False skips the in-process
        A*'s first slice (for states where it keeps failing). The last NEXT_CACHE answers without
        `exact` are kept: optimal paths drawn from nearby states (generation) meet the same states."""
        if exact:
            return self._next_actions(state, budget, True)
        try:
            return self._next.get(state)
        except CacheMiss:
            pass
        found = self._next_actions(state, budget, False, known, quick)
        if found is not None:
            self._next.put(state, replace(found, table=None))  # the rows' states would cost far more memory
        return found

    def _next_actions(
        self, state: int, budget: Budget, exact: bool, known: HStar | None = None, quick: bool = True
    ) -> NextActions | None:
        task = self.task
        if satisfies(state, task.goal):
            return NextActions(0, frozenset(), [], Proof.HOLDS)
        log.debug("search: next actions of a state with %d true atoms", state.bit_count())
        if not exact and quick:
            found = self._quick_next(state, budget)
            if found is not None:
                return found
        if not exact and known is not None and known.known and known.cost:
            found = self._by_planner(state, known, self.fd_gate(state), budget, False, None)
            if found is not None:
                return found
        partial: list[NextActions] = []
        # for a table the quick A* races Fast Downward, which starts after a head start: a failed
        # quick slice then costs no wall time, and a state the A* settles at once starts no process
        # (with symmetries the A* race entry below does the same search without the slice)
        quick_jobs = [lambda b: self._quick_next(state, b)] if exact and not self.sym.active else []
        shared = SharedRoot()
        result = race(
            quick_jobs
            + [
                lambda b: None if exact and b.pause(FD_HEAD_START) else self.by_fd(state, b, exact, partial, shared),
                lambda b: None if b.pause(SYMK_DELAY) else self.by_symk(state, b, exact, partial, shared),
            ]
            + self._astar_job(lambda b: self.by_astar(state, b, exact, partial)),
            budget,
        )
        if result is not None:
            return result
        if partial:
            return max(partial, key=lambda res: len(res.table.rows) - len(res.table.open_rows()) if res.table else 0)
        # last resort: exact h* of the state and of one successor per symmetry class
        root = self.h_star(state, budget, bound=False)
        if not root.known:
            return None
        if root.cost is None:
            return NextActions(None, frozenset(), None, root.how)
        table = self.new_table(state, root.cost, root.plan, budget=budget)
        settle_each(table, lambda t, b: self.h_star(t, b, bound=False), budget, exact)
        if table.open_rows(exact=False):
            return None
        return NextActions(root.cost, frozenset(table.optimal_actions()), root.plan, root.how, table)

    def successor_table(self, state: int, budget: Budget) -> tuple[NextActions | None, HStarTable | None]:
        """The optimal next actions and h* after every applicable action (rows left open when the
        budget ran out). The root's race settles the rows when a planner or the A* with symmetries
        wins it. When the quick in-process A* settles the root: bounds from its plan and lookahead,
        then a race of whole-table strategies for the open rows: the quick A* per row, gated Fast
        Downward searches, gated SymK searches, the A* with symmetries per row."""
        res = self.next_actions(state, budget, exact=True)
        if res is None or res.cost is None:
            return res, None
        if res.table is not None:
            table = res.table
        else:
            table = self.new_table(state, res.cost, res.plan, optimal=res.optimal, budget=budget)
            table.learn_lookahead(self.engine.gen, [res.plan])
        if table.open_rows():
            gated = res.cost > 0  # (no search from a goal state can be gated)
            # one in-process A* job: without symmetries in quick slices per row (it gives way to
            # the planners on any hard row), with them for as long as it takes (the planners lack them)
            won = race(
                [
                    lambda b: (
                        self._settled_by_astar(table.copy(), b.child(SYMMETRY_SECONDS))
                        if self.sym.active
                        else self._settled_by_quick(table.copy(), b)
                    )
                ]
                + (
                    [
                        lambda b: (
                            None
                            if b.pause(FD_HEAD_START)
                            else self._settled_by_gate(table.copy(), self.fd_gate(state), b, True)
                        ),
                        lambda b: (
                            None
                            if b.pause(SYMK_DELAY)
                            else self._settled_by_gate(table.copy(), self.symk_gate(state), b, True)
                        ),
                    ]
                    if gated
                    else []
                ),
                budget,
            )
            table = won or table
        if table.open_rows():  # nothing else could run: each row's own search
            settle_each(table, lambda t, b: self.h_star(t, b, quick=False, bound=False), budget)
        return res, table

    def action_value(self, state: int, action: int, budget: Budget) -> HStar | None:
        """h*(s[a]) for one applicable action (None if `action` is not applicable)."""
        return h_star_after(self.task, self.h_star, state, action, budget)


def h_star_after(
    task: GroundedTask, h_star: Callable[[int, Budget], HStar], state: int, action: int, budget: Budget
) -> HStar | None:
    """h*(s[a]) by an optimizer's `h_star`, of either metric (None if `action` is not applicable in `state`)."""
    op = task.op_for(action, state)
    if op is None:
        return None
    return h_star(task.apply_op(op, state), budget)
