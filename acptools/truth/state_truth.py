"""Per-state truth, computed once and shared by everything that asks about the same task and state:
the MCP question tools, the scorer, episodes and rollouts, reward functions and question generation,
all through the truth service (acptools.truth.service) that holds the task.

Each fact is computed lazily, the first time a caller needs it: the applicable actions, the effects
of an action, the reachability verdict of an atom or action, the landmark verdict of an atom, the
complete lists, h*(s) with the optimal next actions, and h*(s[a]) per successor. What is proven is
kept, and written to the service's proof store (acptools.proofs.store); what the store holds is read
instead of proven again, after its checks (acptools.proofs.row_checks), and says so (`from_store`).
Verdicts that ran out of budget (unknown) are not cached, so a later call with a larger budget can
still decide them; an h* search that ran out remembers the budget it had, so asking again with no
more budget answers `unknown` at once instead of paying the same search again. An h* found for a
successor is handed to that successor's own truth, so a walk through states (an episode) computes
h* once per state. Everything else (simplifying a plan, a satisficing plan, a successor table) is
passed through to the task's questions.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..budget import Budget, Effort
from ..engine import weighted
from ..engine.hstar_table import Cost
from ..engine.optimal import HStar
from ..proofs import store
from ..proofs.row_checks import floor_problem, hstar_problem, list_problem, verdict_problem
from ..questions import DEFAULT_SECONDS, Item, ItemList, NextActionReport, Progression, Removal, Validation
from ..task import Task
from ..verdict import Proof, Verdict, chained

MAX_MEMO = 512
LISTS = ("atoms", "actions", "landmarks")  # the complete lists a truth keeps (unreachable atoms, ...)


class StateTruth:
    """Lazily computed facts about one state of one task (see the module docstring). `service` is the
    truth service that made it: its proof store, and the truths of the successor states."""

    def __init__(self, task: Task, state: int, service):
        self.task = task
        self.state = state
        self.service = service
        task.grounded.ensure(state)  # every engine this truth asks may then take the state (see grounded.py)
        self.questions = task.questions
        self.lock = threading.RLock()
        self._applicable: list[str] | None = None
        self._effects: dict[int, tuple[frozenset, frozenset] | None] = {}
        self._atom_reach: dict[int, Verdict] = {}
        self._action_reach: dict[int, Verdict] = {}
        self._landmark: dict[int, Verdict] = {}
        self._lists: dict[str, ItemList] = {}
        self._static: list[str | None] = []  # [a never-applicable action by static facts, or None]
        self._partial: dict[str, ItemList] = {}  # the latest list that ran out of budget, per name
        self._h: HStar | None = None
        self._h_failed_with: float | None = None  # the allowance of the last h* search that ran out
        self._after: dict[object, tuple[int, HStar]] = {}  # successor key -> (the successor, its h*)
        self._above: dict[object, HStar] = {}  # successors proven no closer to the goal (h* >= h*(s))
        self._memo: dict[tuple, Any] = {}  # verdicts, lists and reports by question
        self._state_key: str | None = None
        self._remembered = False  # the task and this state are in the store (so verify can rebuild them)

    # ---- app, prog ---------------------------------------------------------------------------
    def applicable(self) -> list[str]:
        """The names of the actions applicable in the state (cached)."""
        if self._applicable is None:
            self._applicable = self.questions.applicable(self.state)
        return self._applicable

    def progress(self, action: int) -> Progression:
        """prog: `action` applied in the state (memoized): the next state and its effects, or the
        unsatisfied preconditions."""
        return self.memo(("progress", action), lambda: self.questions.progress(action, self.state))

    def effects(self, action: int) -> tuple[frozenset, frozenset] | None:
        """(positive, negative) effects of an action in the state; None when it is not applicable."""
        if action not in self._effects:
            p = self.progress(action)
            self._effects[action] = (
                (frozenset(p.positive_effects), frozenset(p.negative_effects)) if p.applicable else None
            )
        return self._effects[action]

    def memo(self, key: tuple, compute):
        """compute(), remembered under `key` (at most MAX_MEMO entries per state, oldest dropped)."""
        if key not in self._memo:
            value = compute()
            if len(self._memo) >= MAX_MEMO:
                self._memo.pop(next(iter(self._memo)))
            self._memo[key] = value
        return self._memo[key]

    def actions_with_effects(self, pos: frozenset, neg: frozenset) -> list[str]:
        """Applicable actions whose effects are exactly (pos, neg)."""
        return self.memo(
            ("effects", pos, neg),
            lambda: [name for name in self.applicable() if self.effects(self.task.action_index[name]) == (pos, neg)],
        )

    def relaxed_reachable(self) -> int:
        """Atoms reachable from the state in the delete relaxation (a mask)."""
        return self.memo(("relaxed",), lambda: self.questions.engine.relax.reachable(self.state)[0])

    # ---- plans (val, just) ---------------------------------------------------------------------
    def validate(self, plan: tuple) -> Validation:
        """The validation of `plan` (action names or ids) replayed from the state (memoized)."""
        return self.memo(("validate", plan), lambda: self.questions.validate(list(plan), self.state))

    def is_plan(self, plan: tuple) -> bool:
        """Do the actions (names or ids) apply in turn from the state and reach the goal? (memoized)"""
        return self.memo(("is_plan", plan), lambda: self.questions.is_plan(list(plan), self.state))

    def simplify(self, plan, budget: float | Budget | None) -> list[Removal]:
        """just: every single action and consecutive pair whose removal leaves a plan (not kept: its
        answer may be long, and a caller asks about one plan once)."""
        return self.questions.simplify(plan, self.state, budget)

    # ---- the persistent store (acptools.proofs.store): proven facts only --------------------------
    @property
    def state_key(self) -> str:
        """The state by its atom names, so it does not depend on how a run numbered the atoms."""
        if self._state_key is None:
            self._state_key = store.state_key(self.task.names(self.state))
        return self._state_key

    def _stored(self, kind: str, key: str = "", check=None) -> dict | None:
        """A stored row that authenticates and passes `check(row)` ('' when it holds: a witness is
        replayed before it is served); a row that fails is bypassed (counted by the store)."""
        found = self.service.store
        row = None if found is None else found.get(self.task.key, self.state_key, kind, key)
        if row is not None and check is not None:
            problem = check(row)
            if problem:
                found.bypass(kind, key, problem)
                return None
        return row

    def _store(self, kind: str, key: str, value: dict) -> None:
        found = self.service.store
        if any(isinstance(v, Fraction) for v in value.values()):
            return  # a cost that is not whole: the store's rows are JSON
        if found is not None:
            if not self._remembered:
                found.remember_task(self.task.key, self.task.domain_text, self.task.problem_text)
                found.remember_state(self.task.key, self.state_key, self.task.names(self.state))
                self._remembered = True
            found.put(self.task.key, self.state_key, kind, key, value)

    def _cached(self, table: dict, kind: str, key: int, name: str, compute) -> Verdict:
        v = table.get(key)
        if v is None:
            with self.lock:
                v = table.get(key)
                if v is None:
                    row = self._stored(kind, name, lambda r: verdict_problem(self.task, self.state, kind, key, r))
                    v = self._verdict_of(row) if row is not None else compute()
                    if v.answer is not None:
                        table[key] = v
                        if row is None:
                            self._store(kind, name, _verdict_row(v))
        return v

    def _verdict_of(self, row: dict) -> Verdict:
        witness = row.get("witness")
        ids = None if witness is None else [self.task.parse_action(a) for a in witness]
        return Verdict(
            row["answer"], row["how"], witness, row.get("detail", ""), row.get("extra") or {}, ids, from_store=True
        )

    def atom_reach(self, atom: int, budget: float | Budget | None) -> Verdict:
        """Whether `atom` is reachable from the state, within `budget` (cached, and read from the proof
        store when it holds it)."""
        return self._cached(
            self._atom_reach,
            "reach-atom",
            atom,
            self.task.atom_names[atom],
            lambda: (
                self._from_list("atoms", self.task.atom_names[atom])
                or self.questions.is_reachable(atom, self.state, budget)
            ),
        )

    def is_reachable(self, atoms, budget: float | Budget | None) -> Verdict:
        """reach: can the atom (an id) ever hold, or can the atoms (a list of ids) all hold at once?
        One atom is `atom_reach`; a set is asked of the questions (and memoized once decided)."""
        if isinstance(atoms, int):
            return self.atom_reach(atoms, budget)
        key = ("reach-atoms", tuple(sorted(set(atoms))))
        found = self._memo.get(key) or self.questions.is_reachable(list(key[1]), self.state, budget)
        return self.memo(key, lambda: found) if found.known else found

    def action_reach(self, action: int, budget: float | None) -> Verdict:
        """Whether `action` can become applicable from the state, within `budget` (cached, and read from
        the proof store when it holds it)."""
        return self._cached(
            self._action_reach,
            "reach-action",
            action,
            self.task.action_names[action],
            lambda: (
                self._from_list("actions", self.task.action_names[action])
                or self.questions.is_action_reachable(action, self.state, budget)
            ),
        )

    def landmark(self, atom: int, budget: float | None) -> Verdict:
        """Whether `atom` is a landmark from the state, within `budget` (cached, and read from the proof
        store when it holds it)."""
        return self._cached(
            self._landmark,
            "landmark",
            atom,
            self.task.atom_names[atom],
            lambda: (
                self._from_list("landmarks", self.task.atom_names[atom])
                or self.questions.is_landmark(atom, self.state, budget)
            ),
        )

    def _list(self, name: str, compute, limit: int | None = None) -> ItemList:
        """The complete list `name` when one is known (kept, or read from the store), cut to `limit`
        items; else compute(), kept (and stored) when it is complete and no limit cut it."""
        res = self._lists.get(name)
        if res is None:
            with self.lock:
                res = self._lists.get(name)
                if res is None:
                    row = self._stored("list-" + name, check=list_problem)
                    if row is not None:
                        res = ItemList(
                            [Item(n, how) for n, how in row["items"]],
                            True,
                            row["total"],
                            [],
                            row.get("detail", ""),
                            from_store=True,
                        )
                    else:
                        res = compute()
                        if res.complete and (limit is None or len(res.items) < limit):
                            self._store(
                                "list-" + name,
                                "",
                                {
                                    "items": [[i.name, i.how] for i in res.items],
                                    "total": res.total,
                                    "detail": res.detail,
                                },
                            )
                        elif res.complete:
                            return res  # cut by the limit: not the whole list
                    if res.complete:
                        self._lists[name] = res
                        self._partial.pop(name, None)
                    else:
                        self._partial[name] = res
        return res if not limit or len(res.items) <= limit else replace(res, items=res.items[:limit])

    def list_so_far(self, name: str) -> ItemList | None:
        """The list 'atoms', 'actions' or 'landmarks' computed so far: complete, else the partial one
        a run out of budget left (its proven members and non-members still decide); None if none."""
        return self._lists.get(name) or self._partial.get(name)

    def _from_list(self, name: str, item: str) -> Verdict | None:
        """The verdict a list computed earlier proves about one item (its membership, or a kept
        witness of non-membership); None when no list at hand decides it with a proof to show."""
        res = self.list_so_far(name)
        if res is None:
            return None
        member, it = res.member(item)
        if member is None or it is None:
            return None
        if name == "landmarks":
            if member:
                return Verdict(True, it.how, None, "the goal cannot be reached without it", {"trivial": False})
            if it.witness is None:
                return None
            return Verdict(
                False,
                Proof.WITNESS,
                list(it.witness),
                "a plan reaches the goal without it",
                {"trivial": False},
                plan_ids=[self.task.parse_action(a) for a in it.witness],
            )
        if member:
            static = "its static preconditions are false in this problem"
            return Verdict(False, it.how, detail=static if it.how == Proof.STATIC else "")
        if it.how == Proof.HOLDS:
            return Verdict(True, Proof.HOLDS, [], plan_ids=[])
        return None

    def unreachable_atoms(self, budget: float | Budget | None, limit: int | None = None) -> ItemList:
        """The atoms that can never hold from the state, with proofs, within `budget` (cached, and read
        from the proof store when it holds them); at most `limit` of them listed."""
        return self._list("atoms", lambda: self.questions.unreachable_atoms(self.state, budget, limit), limit)

    def unreachable_actions(self, budget: float | Budget | None, limit: int | None = None) -> ItemList:
        """The actions that can never become applicable from the state, with proofs, within `budget`
        (cached, and read from the proof store when it holds them); at most `limit` of them listed."""
        return self._list("actions", lambda: self.questions.unreachable_actions(self.state, budget, limit), limit)

    def landmarks(self, budget: float | Budget | None) -> ItemList:
        """The fact landmarks of the state, with proofs, within `budget` (cached, and read from the proof
        store when it holds them)."""
        return self._list("landmarks", lambda: self.questions.landmarks(self.state, budget))

    def static_impossible_action(self) -> str | None:
        """A type-correct ground action whose static preconditions are false (never applicable), if any."""
        if not self._static:
            found = None
            task = self.task
            if task.num_actions > task.num_possible_actions:
                possible = task.possible_set()
                found = next(name for name in task.all_ground_actions() if name not in possible)
            self._static.append(found)
        return self._static[0]

    # ---- nexta ----------------------------------------------------------------------------------
    def h_star(self, budget: float | Budget | None) -> HStar:
        """h*(s) with an optimal plan (known=False when the budget ran out; asked again with no more
        budget than that, it answers at once)."""
        if self._h is None or not self._h.known:
            with self.lock:
                failed_with = self._h_failed_with
                if self._h is None or (not self._h.known and (failed_with is None or allowance(budget) > failed_with)):
                    self._h = self._optimum(budget)
                    self._h_failed_with = None if self._h.known else allowance(budget)
        return self._h

    @property
    def h_known(self) -> bool:
        """Is h* of this state already known (no search needed)?"""
        return self._h is not None and self._h.known

    @property
    def h_tried(self) -> bool:
        """Has h* of this state been searched for (known, or unknown with its bounds)?"""
        return self._h is not None

    def seed_h_star(self, h: HStar) -> None:
        """Take an h* computed elsewhere for exactly this state (e.g. as a successor's)."""
        if h.known and (self._h is None or not self._h.known):
            self._h = h
            if h.plan is not None and self._stored("h*") is None:
                self._store("h*", "", _hstar_row(self.task, h))

    def _optimum(self, budget: float | Budget | None) -> HStar:
        """h*(s) with an optimal plan, and the set of all optimal first actions when the in-process
        A* settled the state (then each answered action is settled by membership). Computing that
        set with the outside planners costs more than the few answered actions' own h* values."""
        h = self._stored_h_star()
        if h is not None:
            return h
        h = self.questions.optimizer.h_star(self.state, self.questions.as_budget(budget))
        if h.known:
            self._store("h*", "", _hstar_row(self.task, h))
        return h

    def _stored_h_star(self) -> HStar | None:
        row = self._stored("h*", check=lambda r: hstar_problem(self.task, self.state, r))
        if row is None:
            return None
        plan = [self.task.parse_action(a) for a in row["plan"]] if row["plan"] is not None else None
        first = row.get("first")
        first = None if first is None else frozenset(self.task.parse_action(a) for a in first)
        return HStar(row["cost"], plan, row["how"], first_actions=first, from_store=True)

    def optimal_next(self, budget: float | Budget | None, actions=(), table: bool = False) -> NextActionReport:
        """nexta: h*, every optimal next action and one optimal plan, the values of `actions` (ids of
        applicable actions) or, with `table`, of every applicable action (Questions.optimal_next).
        An h* known here or in the store is its root: with the optimal first actions known too, no
        search runs. What a search proves is kept as this state's h* (and stored)."""
        root = None if table else self._known_h_star()
        report = self.questions.optimal_next(self.state, budget, list(actions), table, root=root)
        if root is not None:
            report.from_store = root.from_store
        elif report.known:
            self.seed_h_star(self._h_star_of(report))
        return report

    def _known_h_star(self) -> HStar | None:
        """h*(s) known already (found by this truth, or read from the store), else None."""
        with self.lock:
            if self._h is None or not self._h.known:
                stored = self._stored_h_star()
                if stored is not None:
                    self._h = stored
            return self._h if self._h is not None and self._h.known else None

    def _h_star_of(self, report: NextActionReport) -> HStar:
        """The h* a nexta report proves, with its optimal first actions."""
        task = self.task
        plan = None if report.plan is None else [task.action_index[a] for a in report.plan]
        first = frozenset(task.action_index[a] for a in report.optimal_actions)
        return HStar(report.h_star, plan, report.how, first_actions=first)

    def plan(self, optimal: bool = True, budget: float | Budget | None = None) -> Verdict:
        """A plan from the state: optimal (h*, kept and stored; see Questions.plan) or the first one
        greedy search finds (passed through)."""
        if not optimal:
            return self.questions.plan(self.state, False, budget)
        h = self.h_star(budget)
        return replace(self.questions.plan_of(h), from_store=h.from_store)

    def at_least(self, bound: int, budget: float | None) -> HStar:
        """h*(s) when it is below `bound`, else the proof that h*(s) >= bound (known=False, `lower`):
        from what is known or stored, else a search stopped at that f-layer (`Optimizer.h_below`).
        Proven bounds are stored beside the exact values."""
        with self.lock:
            h = self._h
            if h is not None and (h.known or h.lower >= bound):
                return h
            h = self._stored_h_star()
            if h is not None:
                self._h = h
                return h
            row = self._stored("h*-floor", check=floor_problem)
            if row is not None and row["lower"] >= bound:
                return HStar(None, None, row["how"], known=False, lower=row["lower"], from_store=True)
            h = self.questions.optimizer.h_below(self.state, bound, self.questions.as_budget(budget))
            if h.known:
                self.seed_h_star(h)
            elif h.lower >= bound:
                self._store("h*-floor", "", {"lower": int(h.lower), "how": h.how})
            return h

    def successor(self, action: int) -> int | None:
        """The state after `action`, or None when it is not applicable."""
        op = self.task.op_for(action, self.state)
        return None if op is None else self.task.apply_op(op, self.state)

    def _replay(self, state: int, plan) -> bool:
        """Is `plan` (action ids) a plan from `state`?"""
        task = self.task
        for a in plan:
            op = task.op_for(a, state)
            if op is None:
                return False
            state = task.apply_op(op, state)
        return task.is_goal(state)

    def regret(self, action: int, budget: float | None, exact: bool = True) -> HStar | None:
        """h*(s[a]) for grading nexta, given h*(s) = d is known (always h*(s[a]) >= d - 1), settled
        without a search whenever a bound argument suffices: the optimal plan pi found for s, replayed
        from s[a] without a's first occurrence, proves d - 1 (a is optimal); the set of all optimal
        first actions (when the in-process A* computed h*(s)) decides membership, and a outside it
        with pi replayable from s[a] gives exactly d. Otherwise, with `exact`, a search (`h_after`);
        without it, only what a verdict needs: the bound h*(s[a]) >= d for an a outside the optimal
        set (known=False, lower d), or a search stopped at the f-layer d (`_below`). None: a is not
        applicable."""
        root = self._h
        t = self.successor(action)
        if t is None:
            return None
        if root is None or not root.known or not root.cost or root.plan is None or self._by_cost:
            return self.h_after(action, budget)
        canon = self.questions.optimizer.sym.canonical
        key = canon(t)
        hit = self._known_after(key, t)
        if hit is not None:
            return hit
        d, plan = root.cost, list(root.plan)
        if action in plan:
            i = plan.index(action)
            rest = plan[:i] + plan[i + 1 :]
            if self._replay(t, rest):
                hit = HStar(d - 1, rest, Proof.PLAN_REPAIR)
        first = root.first_actions
        if hit is None and first is not None:
            if action in first:
                hit = HStar(d - 1, None, root.how)
            elif self._replay(t, plan):
                hit = HStar(d, plan, chained(Proof.PLAN_REPLAY, root.how))
            elif not exact:
                opt = self.questions.optimizer
                if opt.relax.hmax(t, self.task.goal) == float("inf"):
                    hit = HStar(None, None, Proof.RELAXED)
                else:
                    return HStar(None, None, chained(Proof.NOT_OPTIMAL_FIRST, root.how), known=False, lower=d)
        if hit is None:
            return self.h_after(action, budget) if exact else self._below(t, key, d, plan, budget)
        self._after[key] = (t, hit)
        if hit.plan is not None:
            self.service.truth(self.task, t).seed_h_star(hit)
        return hit

    def _below(self, t: int, key, d: Cost, plan: list[int], budget: float | None) -> HStar:
        """h*(t) for t = s[a] when it is below d = h*(s); else the proof that h*(t) >= d (known=False,
        or exactly d when pi replays from t): a search that stops at that f-layer (`Optimizer.h_below`)."""
        with self.lock:
            hit = self._known_after(key, t) or self._above.get(key)
            if hit is not None:
                return hit
            hit = self.service.truth(self.task, t).at_least(d, budget)
            if not hit.known and hit.lower >= d and self._replay(t, plan):
                hit = HStar(d, plan, chained(Proof.PLAN_REPLAY, hit.how))
            if hit.known:
                self._after[key] = (t, hit)
            elif hit.lower >= d:
                self._above[key] = hit
        return hit

    def h_after(self, action: int, budget: float | None) -> HStar | None:
        """h*(s[a]); None when `action` is not applicable. Successors that are symmetric to each other
        (interchangeable objects) share one computation; the successor along the optimal plan found
        for h*(s) needs none."""
        t = self.successor(action)
        if t is None:
            return None
        canon = self.questions.optimizer.sym.canonical
        key = canon(t)
        hit = self._known_after(key, t)
        if hit is not None:
            return hit
        with self.lock:
            hit = self._known_after(key, t)
            if hit is not None:
                return hit
            root = self._h  # the optimal plan found for h*(s), if it was computed already
            if root is not None and root.known and root.plan and root.cost is not None:
                first = self.successor(root.plan[0])
                if first is not None:
                    along = HStar(root.cost - self._cost(root.plan[0]), root.plan[1:], root.how)
                    self._after.setdefault(canon(first), (first, along))
                    self.service.truth(self.task, first).seed_h_star(along)
            hit = self._known_after(key, t)
            if hit is None and root is not None and root.known and root.cost and action in (root.first_actions or ()):
                # a is one of the optimal first actions the in-process A* found: h*(s[a]) = h*(s) - 1
                hit = HStar(root.cost - self._cost(action), None, root.how)
            if hit is None:
                after = self.service.truth(self.task, t)
                hit = after.h_star(budget)  # computed once per state, shared with that state's truth
                if hit.known:
                    self._after[key] = (t, hit)
        return hit

    @property
    def _by_cost(self) -> bool:
        """Whether h* measures action costs (the bound arguments of `regret` count steps)."""
        return weighted.metric_of(self.task) == "cost"

    def _cost(self, action: int):
        """What `action` adds to a plan's measure from this state."""
        return weighted.step_cost(self.task, action, self.state)

    def _known_after(self, key, t: int) -> HStar | None:
        """h* of the successor t found before, for t or for a symmetric successor (same key): the
        same value, with the plan's objects renamed as the states' are (never a plan that does
        not replay from t)."""
        entry = self._after.get(key)
        if entry is None:
            return None
        state, hit = entry
        if state == t or hit.plan is None:
            return hit
        plan = self.questions.optimizer.sym.carry_plan(hit.plan, state, t)
        return HStar(hit.cost, plan if plan is not None and self._replay(t, plan) else None, hit.how)


def allowance(budget: float | Budget | Effort | None) -> float:
    """How much a budget allows, to compare with a search that ran out (unlimited is infinite)."""
    if isinstance(budget, Budget):
        left = budget.left()
        return float("inf") if left is None else left
    if isinstance(budget, Effort):
        return budget.seconds
    return DEFAULT_SECONDS if budget is None else float(budget)


def _verdict_row(v: Verdict) -> dict:
    return {"answer": v.answer, "how": v.how, "witness": v.witness, "detail": v.detail, "extra": v.extra}


def _hstar_row(task: Task, h: HStar) -> dict:
    first = None if h.first_actions is None else sorted(task.action_list(h.first_actions))
    return {
        "cost": weighted.exact(h.cost),
        "plan": None if h.plan is None else task.action_list(h.plan),
        "how": h.how,
        "first": first,
    }
