"""ActionReasoningBench's ramifications: a domain compiled so that chosen base fluents become derived
predicates (PDDL `:derived` axioms). Their values are no longer action effects; they follow from other
fluents by a definition the question's context states as a constraint ("X holds exactly when ...").

Definitions are read off the schema structure: for a fluent p and another fluent q whose arguments
can take p's (type by type), p(x...) <-> exists y... q(..x..y..) or p(x...) <-> not exists y... q(..),
the y being q's other arguments ("p(x) holds exactly when no q(x, y) holds, for any y"). A candidate is
kept only when it is proven: it holds, for every type-correct argument tuple of p, in every state
reachable from the problem's initial state, checked exhaustively (`reachable_states`; a task with
more than MAX_STATES reachable states proves nothing, so nothing of it is compiled). Then p's
atoms agree with the definition along every run, so dropping p from the effects and deriving it
gives the same states (p included) and the same answers.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from .states import reachable_states

MAX_STATES = 20000


@dataclass(frozen=True)
class Definition:
    """p(params) <-> [not] exists (the other arguments of q) q(...): `places[k]` is the position in
    q's arguments that p's k-th parameter fills."""

    predicate: str
    params: tuple  # p's (variable, types)
    other: str
    other_params: tuple  # q's (variable, types)
    places: tuple[int, ...]
    positive: bool

    def _q_vars(self) -> tuple[list[str], list[tuple[str, tuple]]]:
        """q's argument variables (p's where p's fill them) and the existential ones."""
        args, free = [], []
        for j, (_, types) in enumerate(self.other_params):
            if j in self.places:
                args.append(self.params[self.places.index(j)][0])
            else:
                var = f"?y{j}"
                args.append(var)
                free.append((var, types))
        return args, free

    def pddl(self) -> str:
        """The axiom: (:derived (p ?x - t) (exists (?y - u) (q ?x ?y)))."""
        args, free = self._q_vars()
        body = "(" + " ".join([self.other] + args) + ")"
        if free:
            body = f"(exists ({' '.join(f'{v} - {_type(t)}' for v, t in free)}) {body})"
        if not self.positive:
            body = f"(not {body})"
        head = " ".join([self.predicate] + [f"{v} - {_type(t)}" for v, t in self.params])
        return f"(:derived ({head}) {body})"

    def text(self) -> str:
        """The definition as a constraint: '(p ?x) holds exactly when (q ?x ?y) holds for no ?y'."""
        args, free = self._q_vars()
        p = "(" + " ".join([self.predicate] + [v for v, _ in self.params]) + ")"
        q = "(" + " ".join([self.other] + args) + ")"
        if not free:
            return f"{p} holds exactly when {q} {'holds' if self.positive else 'does not hold'}"
        ys = ", ".join(v for v, _ in free)
        return f"{p} holds exactly when {q} holds for {'some' if self.positive else 'no'} {ys}"


def _type(types) -> str:
    return types[0] if len(types) == 1 else "(either " + " ".join(types) + ")"


def candidates(domain, fluents) -> list[Definition]:
    """Every definition of a fluent by one other fluent that the signatures allow (p's arguments
    placed, in order or not, among q's, each type equal)."""
    out = []
    for p, pred in sorted(domain.predicates.items()):
        if p not in fluents:
            continue
        for q, other in sorted(domain.predicates.items()):
            if q == p or q not in fluents or len(other.params) < len(pred.params):
                continue
            for places in itertools.permutations(range(len(other.params)), len(pred.params)):
                if all(tuple(pred.params[k][1]) == tuple(other.params[j][1]) for k, j in enumerate(places)):
                    for positive in (True, False):
                        out.append(Definition(p, pred.params, q, other.params, places, positive))
    return out


def holds_everywhere(task, d: Definition, states) -> bool:
    """Does the definition give p's value for every type-correct argument tuple in every state?"""
    tuples = list(itertools.product(*(task.types.of(t) for _, t in d.params)))
    p_ids = {args: task.atom_index.get((d.predicate, args)) for args in tuples}
    q_atoms = [(i, args) for i, (name, args) in enumerate(task.atoms) if name == d.other]
    for state in states:
        shown = {tuple(args[j] for j in d.places) for i, args in q_atoms if state >> i & 1}
        for args, i in p_ids.items():
            holds = i is not None and bool(state >> i & 1)
            if holds != ((args in shown) == d.positive):
                return False
    return True


def proven_definitions(tasks, derived=()) -> list[Definition]:
    """The definitions proven on every task (problems of one domain), one per fluent, none defining
    a fluent by another one compiled (so no axiom reads a compiled predicate); [] when some task
    has more than MAX_STATES reachable states."""
    spaces = [reachable_states(t, MAX_STATES) for t in tasks]
    if any(s is None for s in spaces):
        return []
    task = tasks[0]
    fluents = set(task.fluents) - set(derived) - set(task.domain.derived)
    chosen: dict[str, Definition] = {}
    for d in candidates(task.domain, fluents):
        if d.predicate in chosen or d.other in chosen or any(c.other == d.predicate for c in chosen.values()):
            continue
        if all(holds_everywhere(t, d, s) for t, s in zip(tasks, spaces)):
            chosen[d.predicate] = d
    return sorted(chosen.values(), key=lambda d: d.predicate)
