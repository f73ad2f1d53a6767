"""Relaxed exploration: which bindings to ground, decided the way Fast Downward's translator does.

A semi-naive fixpoint over the delete relaxation. A binding is grounded once its top-level
positive literals hold in the static facts and the atoms reached so far (the join of join.py,
seeded by each newly reached atom); an operator fires when its positive preconditions are all
reached, and its adds (a conditional add once its condition's atoms are reached too) are reached
in turn, until nothing new appears. Negative preconditions are ignored, which only
over-approximates. The fixpoint can be continued from more atoms at any time: what was reached or
grounded stays, so ids handed out never change. A budget may interrupt a call between steps that
leave the fixpoint consistent; the next call resumes it.
"""

from __future__ import annotations

from .bitset import bits

GROUND_CHECK_EVERY = 256  # bindings grounded between budget checks


class Exploration:
    """The fixpoint's state. `ground(schema, args)` -> (action id, operators) grounds one binding
    (id None when its precondition can never hold); `joins` maps a schema name to its SchemaJoin;
    `relations` holds the reached atoms per fluent predicate (shared with the joins)."""

    def __init__(self, atoms: list, joins: dict, relations: dict, ground):
        self.atoms = atoms
        self.joins = joins
        self.relations = relations
        self.ground = ground
        self.seeds: dict[str, list[tuple[str, int]]] = {}  # fluent predicate -> (schema, literal index)
        self.unseeded: list[str] = []  # schemas with no fluent literal to seed
        for name, join in joins.items():
            fluent = [i for i, lit in enumerate(join.literals) if lit.fluent]
            for i in fluent:
                self.seeds.setdefault(join.literals[i].rel, []).append((name, i))
            if not fluent:
                self.unseeded.append(name)
        self.reached = 0  # atoms whose consequences are all explored
        self.frontier = 0  # atoms of the wave in progress
        self.started = False
        self.done: set[tuple] = set()
        self.unit_action: list[int] = []
        self.unit_add: list[int] = []
        self.missing: list[int] = []
        self.waiting: dict[int, list[int]] = {}
        self.ready: list[int] = []
        self.fired: list[int] = []  # action ids not yet taken by the task
        self.in_task: set[int] = set()

    def extend(self, atoms: int, budget=None) -> None:
        """Continue the fixpoint until every atom reachable from the reached ones and `atoms` is
        explored (then `reached` holds them all)."""
        self.frontier |= atoms & ~self.reached
        while self.frontier or not self.started:
            if budget is not None:
                budget.check()
            self._wave(budget)

    def take_fired(self) -> list[int]:
        """Action ids whose operators became part of the task since the last call, in order."""
        fired, self.fired = self.fired, []
        return fired

    def _wave(self, budget) -> None:
        wave = self.frontier
        have = self.reached | wave
        new_facts: dict[str, list[tuple]] = {}
        for a in bits(wave):
            pred, args = self.atoms[a]
            self.relations[pred].add(args)
            new_facts.setdefault(pred, []).append(args)
        if not self.started:
            for name in self.unseeded:
                self._ground_each(name, self.joins[name].bindings(budget), have, budget)
        for pred, facts in new_facts.items():
            for name, i in self.seeds.get(pred, ()):
                self._ground_each(name, self.joins[name].bindings(budget, seed=i, facts=facts), have, budget)
        # nothing below checks the budget: the wave ends consistently
        self.started = True
        for a in bits(wave):
            for u in self.waiting.pop(a, ()):
                self.missing[u] -= 1
                if not self.missing[u]:
                    self.ready.append(u)
        self.reached = have
        added = 0
        for u in self.ready:
            aid = self.unit_action[u]
            if aid not in self.in_task:
                self.in_task.add(aid)
                self.fired.append(aid)
            added |= self.unit_add[u]
        self.ready = []
        self.frontier = added & ~have

    def _ground_each(self, name: str, bindings: list[tuple], have: int, budget) -> None:
        """Ground each binding, checking the budget now and then: a wave cut short is run again in full
        (a binding already grounded is skipped), so stopping between two bindings is safe."""
        for k, args in enumerate(bindings):
            if budget is not None and not k % GROUND_CHECK_EVERY:
                budget.check()
            self._ground(name, args, have)

    def _ground(self, name: str, args: tuple, have: int) -> None:
        key = (name, args)
        if key in self.done:
            return
        aid, ops = self.ground(name, args)
        self.done.add(key)
        for op in ops:
            self._unit(aid, op.pre, op.add, have)
            for cp, _, ca, _ in op.conds:
                if ca:
                    self._unit(aid, op.pre | cp, ca, have)

    def _unit(self, aid: int, pre: int, add: int, have: int) -> None:
        """A relaxed operator: fires (adds `add`, puts its action in the task) once `pre` is reached."""
        u = len(self.unit_add)
        self.unit_action.append(aid)
        self.unit_add.append(add)
        missing = pre & ~have
        self.missing.append(missing.bit_count())
        if not missing:
            self.ready.append(u)
        for a in bits(missing):
            self.waiting.setdefault(a, []).append(u)
