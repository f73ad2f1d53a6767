"""h* after every applicable action of a state, from the root's answer and as few searches as possible.

Given d = h*(s), every successor t = s[a] has h*(t) >= d - 1 (one step cannot gain more), and
h*(t) = d - 1 exactly when a starts an optimal plan. The table keeps, per class of symmetric
successors (they share h*), a proven interval lo <= h*(t) <= hi:
  * upper bounds from plans: a plan from s of length L whose first action is a gives h*(s[a]) <= L-1;
    moving a later step a of it to the front, or replaying it from t whole, still being a plan gives
    h*(t) <= L-1 or <= L; an action from t back to a state symmetric to s gives h*(t) <= d+1;
  * lower bounds from gated searches: an optimal search from s whose first action must start one of
    a set of open rows proves each of them >= F-1 when it finds no plan shorter than F (a plan of
    length F found: its first row is exactly F-1; none at all: the goal is unreachable after each).
A row is settled when lo >= hi (lo = inf: the goal is unreachable after it).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from fractions import Fraction

from ..budget import Budget
from ..ground.grounded import GroundedTask
from ..util.shortrepr import bounded_repr

INF = float("inf")
Cost = int | Fraction  # h* and a plan's cost: whole, or exact when action costs are written as decimals
Bound = float | Cost  # a proven bound on h*: a cost, or INF


@bounded_repr
@dataclass
class Row:
    """One successor class of the table's state: the actions leading into it and bounds on its h*."""

    key: int  # the successor's symmetry key
    state: int  # one successor of the class
    actions: list[int]  # the applicable actions leading into the class
    lo: Bound
    hi: Bound = INF

    @property
    def settled(self) -> bool:
        """Whether the bounds meet (h* of the class is known)."""
        return self.lo >= self.hi


@dataclass
class Gated:
    """What one gated search from s proved about the open rows it allowed first: no such plan is
    shorter than `floor`; `plan` (action ids) is one of exactly that length. `complete` is False when
    the search stopped early (the budget ran out), so the floor is all it proved."""

    plan: list[int] | None
    floor: Bound
    complete: bool = True
    how: str = ""  # the search that proved it


@bounded_repr
@dataclass
class HStarTable:
    """The successors of one state (up to symmetry) with bounds on their h*; `d` is h* of the state."""

    task: GroundedTask
    canon: object  # state -> symmetry key (symmetric states share h*)
    state: int
    d: Cost
    rows: dict[int, Row] = field(default_factory=dict)
    row_of: dict[int, int] = field(default_factory=dict)  # action id -> row key
    after: dict[int, int] = field(default_factory=dict)  # action id -> its successor of s
    plans: dict[int, list[int]] = field(
        default_factory=dict
    )  # action id -> the shortest plan from s known to start with it

    @classmethod
    def of_state(cls, task, canon, state: int, moves) -> HStarTable:
        """Rows for the applicable actions of `state`, given as `moves` (action id, successor)
        pairs; bounds follow from `set_root`."""
        table = cls(task, canon, state, 0)
        for a, t in moves:
            if a in table.row_of:  # another operator of the same action (a disjunctive precondition)
                continue
            key = canon(t)
            row = table.rows.get(key)
            if row is None:
                row = table.rows[key] = Row(key, t, [], 0, 0 if task.is_goal(t) else INF)
            row.actions.append(a)
            table.row_of[a] = key
            table.after[a] = t
            if task.is_goal(t):
                table.plans[a] = [a]
        return table

    def set_root(self, d: Cost, plan: list[int] | None, optimal=None, not_optimal=frozenset()) -> HStarTable:
        """d = h*(s) with an optimal plan. `optimal`: the complete set of optimal first actions,
        when known; `not_optimal`: actions known not to start an optimal plan."""
        self.d = d
        for row in self.rows.values():
            row.lo = max(row.lo, d - 1)
            if optimal is not None:
                if optimal.intersection(row.actions):
                    row.hi = min(row.hi, d - 1)
                else:
                    row.lo = max(row.lo, d)
            elif not_optimal.intersection(row.actions):  # symmetric successors: all optimal or none
                row.lo = max(row.lo, d)
        self.learn_plan(plan)
        return self

    def copy(self) -> HStarTable:
        """A table with its own rows (strategies that race each get one)."""
        rows = {k: replace(r, actions=list(r.actions)) for k, r in self.rows.items()}
        return replace(self, rows=rows, plans=dict(self.plans))

    # ---- what is known ------------------------------------------------------------------------
    def open_rows(self, exact: bool = True) -> list[Row]:
        """Rows whose value is still open; with exact False only whether they are optimal (d-1)."""
        if exact:
            return [r for r in self.rows.values() if not r.settled]
        return [r for r in self.rows.values() if r.lo < self.d and r.hi > self.d - 1]

    def optimal_actions(self) -> set[int]:
        """The actions whose successor's h* is proven at most d - 1: they start an optimal plan."""
        return {a for r in self.rows.values() if r.hi <= self.d - 1 for a in r.actions}

    def value(self, action: int) -> tuple[bool, Bound]:
        """(settled, h* after the action; inf: the goal is unreachable after it)."""
        row = self.rows[self.row_of[action]]
        return row.settled, (row.lo if row.lo == INF else row.hi)

    def stop_floor(self, rows: list[Row], exact: bool = True) -> Bound:
        """The floor a gated search over `rows` must prove to decide all of them (inf: it must
        find a plan or prove there is none)."""
        if not exact:
            return self.d + 1
        return max(r.hi for r in rows) + 1

    # ---- learning -----------------------------------------------------------------------------
    def _upper(self, row: Row, hi: Bound) -> None:
        row.hi = min(row.hi, hi)

    def learn_plan(self, plan: list[int] | None) -> None:
        """Upper bounds from a plan from s: its first action's row, any later step that can be
        moved to the front, and every row from whose state the plan, or the plan without its
        first step, still reaches the goal."""
        if not plan:
            return
        task, n = self.task, len(plan)
        first = self.row_of.get(plan[0])
        if first is not None:
            self._upper(self.rows[first], n - 1)
            self._keep(plan)
        for k in range(1, n):
            key = self.row_of.get(plan[k])
            if (
                key is not None
                and self.rows[key].hi > n - 1
                and task.is_plan(plan[:k] + plan[k + 1 :], self.after[plan[k]])
            ):
                self._upper(self.rows[key], n - 1)
                self._keep([plan[k]] + plan[:k] + plan[k + 1 :])
        self.learn_replay(plan)
        self.learn_replay(plan[1:])  # a plan from one successor often suits its siblings too

    def _keep(self, plan: list[int]) -> None:
        """Remember a plan from s under its first action, when it is the shortest known."""
        known = self.plans.get(plan[0])
        if known is None or len(plan) < len(known):
            self.plans[plan[0]] = plan

    def learn_replay(self, plan: list[int]) -> None:
        """h*(t) <= len(plan) for every row from whose state `plan` reaches the goal."""
        for row in self.rows.values():
            if row.hi > len(plan) and self.task.is_plan(plan, row.state):
                self._upper(row, len(plan))
                self._keep([row.actions[0]] + plan)

    def learn_value(self, row: Row, cost: Cost | None, plan: list[int] | None) -> None:
        """An exact h* of a row's state (cost None: the goal is unreachable from it)."""
        if cost is None:
            row.lo = INF
            return
        row.lo = max(row.lo, cost)
        self._upper(row, cost)
        if plan is not None:
            self.learn_replay(plan)

    def learn_gated(self, rows: list[Row], res: Gated) -> bool:
        """Take a gated search's result over `rows`; True when it settled or raised anything."""
        before = [(r.lo, r.hi) for r in rows]
        for r in rows:
            r.lo = max(r.lo, res.floor - 1)
        if res.plan is not None:
            self.learn_plan(res.plan)
        return before != [(r.lo, r.hi) for r in rows]

    def learn_lookahead(self, gen, plans=(), exact: bool = True) -> None:
        """h*(t) <= 1 + h*(u) for every successor u of a row's state t whose h* is bounded: s
        itself (an action back: <= d + 1), the states along known plans from s, other rows. With
        `exact` False only the rows still open for optimality are looked at (a step that rejoins an
        optimal plan shows its row optimal). States are matched as they are (symmetry keys cost
        more than the rest of this together)."""
        known: dict[int, tuple[Bound, list[int] | None]] = {}  # state -> (bound on h*, a plan that long)

        def note(state: int, cost: Bound, rest: list[int] | None) -> None:
            if cost < known.get(state, (INF, None))[0]:
                known[state] = (cost, rest)

        for plan in plans:
            state = self.state
            for i, a in enumerate(plan or ()):  # (a known h* may come without its plan)
                op = self.task.op_for(a, state)
                assert op is not None, "a plan's step applies"
                state = self.task.apply_op(op, state)
                note(state, len(plan) - i - 1, plan[i + 1 :])
        note(self.state, self.d, None)
        for row in self.rows.values():
            kept = self.plans.get(row.actions[0])
            note(row.state, row.hi, kept[1:] if kept and len(kept) == row.hi + 1 else None)
        for row in self.open_rows(exact):
            for op, u in gen.successors(row.state):
                cost, rest = known.get(u, (INF, None))
                if 1 + cost < row.hi:
                    self._upper(row, 1 + cost)
                    if rest is not None:
                        self._keep([row.actions[0], op.action] + rest)
                if row.settled or not exact and row.hi <= self.d - 1:
                    break


def settle(table: HStarTable, solve, budget: Budget, exact: bool = True, workers=1) -> bool:
    """Gated searches until every row is settled (exact) or known optimal or not; False when the
    budget or the engine gave out first. `solve(rows, stop_floor, budget)` -> Gated or None. With
    `workers` 2 (an int, or a callable asked each round), the open rows are split in two groups
    searched side by side (the searches run in planner processes): each round then settles at
    least one row per group."""
    while True:
        rows = table.open_rows(exact)
        if not rows:
            return True
        if budget.cancelled() or budget.wall() <= 0:
            return False
        groups = split(rows, workers() if callable(workers) else workers)
        results = side_by_side([lambda b, g=g: solve(g, table.stop_floor(g, exact), b) for g in groups], budget)
        progressed = False
        for group, res in zip(groups, results, strict=True):
            if res is not None and table.learn_gated(group, res):
                progressed = True
        spent = budget.cancelled() or budget.wall() <= 0
        if not progressed or (spent and any(res is None or not res.complete for res in results)):
            return not table.open_rows(exact)


def split(rows: list[Row], parts: int) -> list[list[Row]]:
    """Rows in up to `parts` groups of about equal size, rows with close upper bounds together (a
    group whose upper bounds are all finite can stop at a floor)."""
    if not rows:
        return []
    rows = sorted(rows, key=lambda r: (r.hi, r.lo, r.key))
    parts = max(1, min(parts, len(rows)))
    size = -(-len(rows) // parts)
    return [rows[i : i + size] for i in range(0, len(rows), size)]


def side_by_side(jobs, budget: Budget) -> list:
    """Run `jobs` (callables taking a Budget) in threads of their own and return their results;
    the first exception is raised once all have ended."""
    results: list = [None] * len(jobs)
    failures: list[BaseException] = []

    def run(i: int) -> None:
        try:
            results[i] = jobs[i](budget)
        except Exception as e:
            failures.append(e)

    threads = [threading.Thread(target=run, args=(i,), name="acptools-gate", daemon=True) for i in range(1, len(jobs))]
    for t in threads:
        t.start()
    if jobs:
        run(0)
    for t in threads:
        t.join()
    if failures:
        raise failures[0]
    return results


def settle_each(table: HStarTable, h_star, budget: Budget, exact: bool = True) -> None:
    """Each open row's own exact h* search (`h_star(state, budget)` -> HStar), two at a time:
    the searches run in planner processes, so a second thread doubles the work done. A plan one
    of them finds settles every other row it also solves."""
    lock = threading.Lock()
    taken: set[int] = set()
    failures: list[BaseException] = []

    def work() -> None:
        try:
            while True:
                with lock:
                    todo = [r for r in table.open_rows(exact) if r.key not in taken]
                    if not todo or budget.cancelled() or budget.wall() <= 0:
                        return
                    row = todo[0]
                    taken.add(row.key)
                h = h_star(row.state, budget)
                if h.known:
                    with lock:
                        table.learn_value(row, h.cost, h.plan)
        except Exception as e:  # raised in the caller's thread below
            failures.append(e)

    helper = threading.Thread(target=work, name="acptools-rows", daemon=True)
    helper.start()
    work()
    helper.join()
    if failures:
        raise failures[0]
