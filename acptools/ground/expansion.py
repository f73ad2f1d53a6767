"""How large the expansion of a quantified formula gets, known from the lifted model before it is done.

Grounding turns a formula into a DNF over fluent atoms (`Grounder.dnf`) and an effect into a list of
(condition, add, delete) entries (`Grounder.effects`), enumerating every binding of each `forall` and
`exists`. Six variables over 30 objects are 729 million bindings: the expansion must be measured
first. `Sizer` walks a formula once (time linear in its text) and bounds from above, per binding of
the enclosing schema, axiom or goal:

  * ``width``: the disjuncts of its DNF (the operators of a precondition, the rules of an axiom); a
    formula over static atoms only is true or false (at most one disjunct), a conjunction of
    more than MAX_DISJUNCTS is refused by the grounding itself, so the bound never exceeds that;
  * ``held``: the most disjuncts (or effect entries) one expansion holds at once;
  * ``bindings``: the quantifier bindings the expansion visits (its work), and ``certain``: those it
    visits whatever the facts (a conjunction stops at a false part, a disjunction at a true one, so
    only formulas of fluent atoms alone, ``pure``, are certain to be expanded whole);
  * for an effect, ``conds``: its conditional effects (each entry under a condition, once per
    disjunct of that condition);
  * ``widest``: the quantifier with the most bindings, described for the error that refuses it.

An `exists` is cut by the static facts of its body's top-level conjunction the way a schema's
parameters are (`bindings_bound`): a binding those facts rule out adds no disjunct.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .grounding import MAX_DISJUNCTS


@dataclass(frozen=True)
class Size:
    """Upper bounds on one expansion (see the module docstring)."""

    width: int = 1
    held: int = 1
    bindings: int = 0
    static: bool = True
    conds: int = 0
    widest: tuple[int, str] = (0, "")
    certain: int = 0
    pure: bool = True

    def times(self, n: int) -> Size:
        """The work and the conditional effects of `n` expansions of this size (one after another)."""
        return replace(self, bindings=n * self.bindings, conds=n * self.conds, certain=n * self.certain)


def _widest(*sizes: Size) -> tuple[int, str]:
    return max((s.widest for s in sizes), key=lambda w: w[0], default=(0, ""))


def _visited(parts: list[Size]) -> int:
    """The bindings certainly visited by a conjunction or disjunction: those of its parts up to the
    first that may end it early (false in a conjunction, true in a disjunction)."""
    certain = 0
    for p in parts:
        certain += p.certain
        if not p.pure:
            break
    return certain


def _and(parts: list[Size]) -> Size:
    """A conjunction's size: the widths multiply (the grounding refuses more than MAX_DISJUNCTS)."""
    width = held = 1
    for p in parts:
        held = max(held, p.held, min(width, MAX_DISJUNCTS) * p.width)
        width = min(width * p.width, MAX_DISJUNCTS)
    return Size(
        width,
        held,
        sum(p.bindings for p in parts),
        all(p.static for p in parts),
        widest=_widest(*parts),
        certain=_visited(parts),
        pure=all(p.pure for p in parts),
    )


def _or(parts: list[Size]) -> Size:
    """A disjunction's size: the widths add up; a static part is true (one disjunct) or adds none."""
    width = max(sum(p.width for p in parts if not p.static), int(any(p.static for p in parts)))
    held = max([width] + [p.held for p in parts])
    return Size(
        width,
        held,
        sum(p.bindings for p in parts),
        all(p.static for p in parts),
        widest=_widest(*parts),
        certain=_visited(parts),
        pure=all(p.pure for p in parts),
    )


def bindings_bound(params, formula: tuple, types, static: dict) -> int:
    """An upper bound on the bindings of `params` that the static atoms of `formula`'s top-level
    conjunction allow (other arguments, bound outside or constant, only cut more)."""
    domains = {var: set(types.of(t)) for var, t in params}
    literals = static_atoms(formula, static)
    for pred, args in literals:  # an object never at this position of a fact cannot be bound there
        for k, arg in enumerate(args):
            if arg in domains:
                domains[arg] &= {fact[k] for fact in static[pred] if len(fact) == len(args)}
    bound = {var: len(objs) for var, objs in domains.items()}
    uncovered = set(domains)
    for pred, args in sorted(literals, key=lambda lit: len(static[lit[0]])):
        covers = {a for a in args if a in uncovered}
        if covers and len(static[pred]) < math.prod(bound[v] for v in covers):
            # a relation's tuples bound the bindings of its variables together
            for v in covers:
                bound[v] = 1
            bound[min(covers)] = len(static[pred])
            uncovered -= covers
    return math.prod(bound.values())


def static_atoms(formula: tuple, static: dict) -> list[tuple[str, tuple[str, ...]]]:
    """The positive atoms of static predicates in a formula's top-level conjunction."""
    if formula[0] == "and":
        return [a for part in formula[1] for a in static_atoms(part, static)]
    if formula[0] == "atom" and formula[1] in static:
        return [(formula[1], tuple(formula[2]))]
    return []


class Sizer:
    """Sizes of formulas and effects of one task (``static``: the static facts by predicate)."""

    def __init__(self, types, fluents: set[str], static: dict):
        self.types, self.fluents, self.static = types, fluents, static

    def formula(self, f: tuple, where: str, positive: bool = True) -> Size:
        """The size of `f`'s DNF (under negation when not `positive`); `where` names it in `widest`."""
        tag = f[0]
        if tag == "atom":
            static = f[1] not in self.fluents
            return Size(static=static, pure=not static)
        if tag in ("true", "="):
            return Size(pure=False)
        if tag == "not":
            return self.formula(f[1], where, not positive)
        if tag == "imply":
            return self.formula(("or", (("not", f[1]), f[2])), where, positive)
        if tag in ("and", "or"):
            parts = [self.formula(g, where, positive) for g in f[1]]
            return _and(parts) if (tag == "and") == positive else _or(parts)
        if tag in ("forall", "exists"):
            return self._quantified(f, where, positive)
        return Size(pure=False)  # the grounding names what it does not support

    def _quantified(self, f: tuple, where: str, positive: bool) -> Size:
        tag, params, body = f
        n = math.prod(len(self.types.of(t)) for _, t in params)
        inner = self.formula(body, where, positive)
        widest = max((n, f"the {tag} of {where} ({_variables(params, self.types)})"), inner.widest, key=lambda w: w[0])
        work = n * (inner.bindings + 1)
        certain = n * (inner.certain + 1) if inner.pure else inner.certain + int(n > 0)
        if (tag == "forall") == positive:  # a conjunction of n copies
            width = 1 if inner.width <= 1 else min(MAX_DISJUNCTS, inner.width ** min(n, 64))
            held = max(inner.held, min(width, MAX_DISJUNCTS) * inner.width)
            return Size(width, held, work, inner.static, widest=widest, certain=certain, pure=inner.pure)
        if inner.static:
            return Size(1, 1, work, True, widest=widest, certain=certain, pure=False)
        cut = bindings_bound(params, body, self.types, self.static) if positive else n
        width = cut * inner.width
        return Size(width, max(width, inner.held), work, False, widest=widest, certain=certain, pure=inner.pure)

    def effect(self, e: tuple, where: str, condition: int = 0) -> Size:
        """The size of an effect's entries (``width``: how many; ``conds``: those under a condition,
        times its disjuncts); ``condition`` is the disjuncts of the conditions around it (0: none)."""
        tag = e[0]
        if tag in ("add", "del"):
            fluent = int(e[1] in self.fluents)
            return Size(fluent, fluent, 0, conds=fluent * condition)
        if tag == "and":
            parts = [self.effect(g, where, condition) for g in e[1]]
            width = sum(p.width for p in parts)
            return Size(
                width, width, sum(p.bindings for p in parts), conds=sum(p.conds for p in parts), widest=_widest(*parts)
            )
        if tag == "forall":
            n = math.prod(len(self.types.of(t)) for _, t in e[1])
            inner = self.effect(e[2], where, condition)
            widest = max(
                (n, f"the forall of {where} ({_variables(e[1], self.types)})"), inner.widest, key=lambda w: w[0]
            )
            return Size(
                n * inner.width, n * inner.width, n * (inner.bindings + 1), conds=n * inner.conds, widest=widest
            )
        if tag == "when":
            cond = self.formula(e[1], where)
            inner = self.effect(e[2], where, max(condition, 1) * cond.width)
            return Size(
                inner.width,
                max(inner.held, cond.held),
                cond.bindings + inner.bindings,
                conds=inner.conds,
                widest=_widest(cond, inner),
            )
        return Size(0, 0)


def _variables(params, types) -> str:
    sizes = [len(types.of(t)) for _, t in params]
    if len(set(sizes)) == 1:
        shown = f"{len(sizes)} variable{'s' if len(sizes) > 1 else ''} over {sizes[0]:,} objects"
    else:
        shown = " x ".join(f"{n:,}" for n in sizes) + " objects"
    return f"{shown}: {math.prod(sizes):,} bindings"
