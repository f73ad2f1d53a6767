"""What an ActionReasoningBench question asks about, chosen so that answering about the initial state
instead (as if no action had been done: acptools.audit's `ignore_actions`) pays no more than chance.

A yes/no question asks about facts the actions changed or about facts they left as they were, in
turn over the task's yes/no records (`Item.unchanged`), whichever the answer: answering about the
initial state is right exactly when nothing asked about changed, half the time. A list, a count or
effects has no chance to speak of, so such a question is asked only when its answer after the
actions differs from its answer about the initial state (`moved`): objects, counts and actions are
chosen among those the actions changed. Facts of predicates no action changes (the `static` fluent
kind) read off the initial state by right; they are asked as they are.
"""

from __future__ import annotations

from ..claims import atoms_of, evaluate, without_actions
from ..errors import AcpError
from .base import NOTHING, Item, Skip

MAX_LIST = 60  # longer answer lists are not asked for


def kind_mask(item: Item) -> int:
    """The atoms of the fluent kind asked about (every atom when no kind is asked)."""
    task = item.task
    if not item.fluent_kind:
        return (1 << len(task.atoms)) - 1
    preds = set(item.kinds.predicates(item.fluent_kind))
    return sum(1 << i for i, (p, _) in enumerate(task.atoms) if p in preds)


def static_atom(item: Item, holds: bool) -> str:
    """A static atom (of a predicate the context states) that holds in the problem, or one that does not."""
    task, rng = item.task, item.rng
    shown = [p for p in item.kinds.predicates("static") if p not in item.render.templates.hidden]
    if holds:
        facts = sorted(f for f in task.static_true if f[0] in shown)
        if not facts:
            raise Skip(NOTHING)
        p, args = rng.choice(facts)
        return "(" + " ".join((p,) + tuple(args)) + ")"
    for _ in range(30):
        if not shown:
            break
        p = rng.choice(shown)
        args = []
        for _, types in task.domain.predicates[p].params:
            objs = sorted(task.types.of(types))
            if not objs:
                raise Skip(NOTHING)
            args.append(rng.choice(objs))
        if (p, tuple(args)) not in task.static_true:
            return "(" + " ".join([p] + args) + ")"
    raise Skip(NOTHING)


def literal(item: Item, state: int, want: bool, changed: bool, focus: int = 0) -> tuple[dict, str]:
    """A literal (an atom or a negated atom) with truth `want` in `state`, of an atom whose truth
    differs from the item's own state (`changed`; among the atoms of `focus` when some are) or of
    one whose truth does not; Skip when there is none."""
    task, rng = item.task, item.rng
    negated = item.negative if item.fluent_kind else rng.random() < 0.5
    holds = (not want) if negated else want
    if item.fluent_kind == "static":
        name = static_atom(item, holds)
        return ({"negated": [name]} if negated else {"atoms": [name]}), item.render.atom(name, negated)
    mask = (state if holds else ((1 << len(task.atoms)) - 1) & ~state) & kind_mask(item)
    moved = state ^ item.state
    pool = mask & moved if changed else mask & ~moved
    names = task.names(pool & focus) or task.names(pool)
    if not names:
        raise Skip(NOTHING)
    name = rng.choice(names)
    claim = {"negated": [name]} if negated else {"atoms": [name]}
    return claim, item.render.atom(name, negated)


def literals(item: Item, state: int, want: bool, changed: bool, k: int = 3) -> tuple[dict, str]:
    """k literals that all hold in `state` (want True), or all but one (want False); fewer when the
    kind asked about has fewer atoms (one atom cannot give a true and a false literal). All are of
    facts whose truth is that of the item's own state but, when `changed`, one: the false literal,
    or one of the true ones. So the answer about the item's own state is the same exactly when not
    `changed`."""
    if item.fluent_kind and item.fluent_kind != "static":
        k = max(1, min(k, bin(kind_mask(item)).count("1") - 1))
    one = item.rng.randrange(k)  # the false literal, or the changed true one
    parts = [literal(item, state, want or i != one, changed and i == one) for i in range(k)]
    atoms = sorted({a for c, _ in parts for a in c.get("atoms", ())})
    negated = sorted({a for c, _ in parts for a in c.get("negated", ())})
    return {"atoms": atoms, "negated": negated}, ", ".join(dict.fromkeys(t for _, t in parts))


def _of_kind(item: Item, names: list[str]) -> list[str]:
    """The atom names of the fluent kind asked about (all when none is asked)."""
    if not item.fluent_kind:
        return names
    wanted = set(item.kinds.predicates(item.fluent_kind))
    return [n for n in names if n[1:].split()[0].rstrip(")") in wanted]


def changed_object(item: Item, state: int, sign: str) -> str:
    """An object with a few (not none, not too many) atoms of the sign (and kind) about it in
    `state`, not the same ones as in the item's own state (unless `state` is that state)."""
    objs = sorted({o for i in range(len(item.task.atoms)) for o in item.task.atoms[i][1]})
    item.rng.shuffle(objs)
    for o in objs:
        names = _of_kind(item, atoms_of(item.task, state, sign, o))
        if 0 < len(names) <= MAX_LIST and (
            state == item.state or names != _of_kind(item, atoms_of(item.task, item.state, sign, o))
        ):
            return o
    raise Skip(NOTHING)


def differs(item: Item, query: dict, answer) -> bool:
    """Does `answer` (to a query about the state after some actions) differ from the answer to the
    same query about the item's own state? True when the query names no actions, or cannot be
    answered in the item's own state."""
    plain = without_actions(query)
    if plain is None:
        return True
    try:
        return evaluate(item.task, item.state, plain) != answer
    except AcpError:  # e.g. the action asked about cannot be applied in the item's own state
        return True


def moved(item: Item, query: dict, answer) -> None:
    """Skip unless `answer` differs from the answer about the item's own state (`differs`)."""
    if not differs(item, query, answer):
        raise Skip(NOTHING)
