"""Ground a lifted model: formulas -> DNF over fluent atom ids, schemas -> STRIPS operators.

Static facts (predicates no action changes) and equality are evaluated here, so operators only
mention fluent atoms. A disjunctive precondition yields one operator per disjunct (all with the
same action name), so the search core stays STRIPS with negative preconditions and conditional
effects.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from .errors import PddlError
from .pddl.model import Domain, Param, Problem

MAX_DISJUNCTS = 256
MAX_GROUND_OPERATORS = 2_000_000


@dataclass(frozen=True, slots=True)
class Operator:
    """One way to apply a ground action: all masks are bitsets over fluent atom ids."""

    action: int
    pre: int
    neg: int
    add: int
    dele: int
    conds: tuple  # ((pre, neg, add, dele), ...) conditional effects, evaluated in the old state


class TypeTable:
    """Objects per type, with the hierarchy folded in (an object of type t is also of t's ancestors)."""

    def __init__(self, domain: Domain, problem: Problem):
        self.supertypes = domain.supertypes
        self.objects: dict[str, tuple[str, ...]] = dict(domain.constants)
        self.objects.update(problem.objects)
        self.by_type: dict[str, list[str]] = {t: [] for t in domain.supertypes}
        for obj, types in sorted(self.objects.items()):
            for t in self.ancestors(types):
                self.by_type.setdefault(t, []).append(obj)
        self.by_type["object"] = sorted(self.objects)

    def ancestors(self, types) -> set[str]:
        seen: set[str] = set()
        todo = list(types)
        while todo:
            t = todo.pop()
            if t not in seen:
                seen.add(t)
                todo.extend(self.supertypes.get(t, ()))
        seen.add("object")
        return seen

    def of(self, types) -> list[str]:
        if len(types) == 1:
            return self.by_type.get(types[0], [])
        return sorted({o for t in types for o in self.by_type.get(t, [])})

    def fits(self, obj: str, types) -> bool:
        return obj in self.objects and bool(self.ancestors(self.objects[obj]) & set(types))


class Grounder:
    """Turns formulas with a variable binding into DNF over fluent atom ids."""

    def __init__(self, domain: Domain, problem: Problem, types: TypeTable, fluents: set[str]):
        self.types = types
        self.fluents = fluents
        self.static_true = {f for f in problem.init if f[0] not in fluents}
        self.atom_ids: dict[tuple[str, tuple[str, ...]], int] = {}
        self.atoms: list[tuple[str, tuple[str, ...]]] = []

    def atom_id(self, atom) -> int:
        i = self.atom_ids.get(atom)
        if i is None:
            i = self.atom_ids[atom] = len(self.atoms)
            self.atoms.append(atom)
        return i

    def _sub(self, args, binding) -> tuple[str, ...]:
        return tuple(binding.get(a, a) for a in args)

    def _expand(self, params: tuple[Param, ...], binding: dict):
        for values in itertools.product(*(self.types.of(t) for _, t in params)):
            b = dict(binding)
            b.update(zip((v for v, _ in params), values))
            yield b

    def dnf(self, f: tuple, binding: dict, positive: bool = True) -> list[tuple[int, int]]:
        """DNF as a list of (pos mask, neg mask); [] is false, [(0, 0)] is true."""
        tag = f[0]
        if tag == "true":
            return [(0, 0)] if positive else []
        if tag == "atom":
            atom = (f[1], self._sub(f[2], binding))
            if f[1] not in self.fluents:
                return [(0, 0)] if (atom in self.static_true) == positive else []
            bit = 1 << self.atom_id(atom)
            return [(bit, 0)] if positive else [(0, bit)]
        if tag == "=":
            a, b = self._sub(f[1:], binding)
            return [(0, 0)] if (a == b) == positive else []
        if tag == "not":
            return self.dnf(f[1], binding, not positive)
        if tag == "imply":
            return self.dnf(("or", (("not", f[1]), f[2])), binding, positive)
        if tag in ("forall", "exists"):
            parts = tuple(("bound", f[2], b) for b in self._expand(f[1], binding))
            conj = (tag == "forall") == positive
            return self._combine(parts, conj, positive)
        if tag in ("and", "or"):
            parts = tuple(("bound", g, binding) for g in f[1])
            conj = (tag == "and") == positive
            return self._combine(parts, conj, positive)
        raise PddlError(f"unsupported formula {tag!r}", "grounding")

    def _combine(self, parts, conj: bool, positive: bool) -> list[tuple[int, int]]:
        if conj:
            result = [(0, 0)]
            for _, g, b in parts:
                sub = self.dnf(g, b, positive)
                result = [(p1 | p2, n1 | n2) for p1, n1 in result for p2, n2 in sub if not (p1 | p2) & (n1 | n2)]
                if not result:
                    return []
                if len(result) > MAX_DISJUNCTS:
                    raise PddlError("unsupported: a precondition whose disjunctive normal form exceeds "
                                    f"{MAX_DISJUNCTS} cases", "grounding", "split the action into several actions")
            return _simplify(result)
        result = []
        for _, g, b in parts:
            result.extend(self.dnf(g, b, positive))
            if (0, 0) in result:
                return [(0, 0)]
        return _simplify(result)

    def effects(self, e: tuple, binding: dict, cond=((0, 0),), out=None) -> list:
        """Flatten an effect to [(condition DNF, add mask, del mask)]."""
        out = [] if out is None else out
        tag = e[0]
        if tag in ("add", "del"):
            if e[1] in self.fluents:
                bit = 1 << self.atom_id((e[1], self._sub(e[2], binding)))
                out.append((cond, bit if tag == "add" else 0, bit if tag == "del" else 0))
        elif tag == "and":
            for g in e[1]:
                self.effects(g, binding, cond, out)
        elif tag == "forall":
            for b in self._expand(e[1], binding):
                self.effects(e[2], b, cond, out)
        elif tag == "when":
            inner = self.dnf(e[1], binding)
            both = _simplify([(p1 | p2, n1 | n2) for p1, n1 in cond for p2, n2 in inner if not (p1 | p2) & (n1 | n2)])
            if both:
                self.effects(e[2], binding, tuple(both), out)
        return out


def _simplify(dnf: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Drop duplicate and subsumed disjuncts (a disjunct implied by a weaker one adds nothing)."""
    uniq = sorted(set(dnf), key=lambda d: (bin(d[0]).count("1") + bin(d[1]).count("1")))
    kept: list[tuple[int, int]] = []
    for p, n in uniq:
        if not any(kp & p == kp and kn & n == kn for kp, kn in kept):
            kept.append((p, n))
    return kept


def fluent_predicates(domain: Domain) -> set[str]:
    """Predicates that some action adds or deletes; all others are static."""
    found: set[str] = set()

    def walk(e):
        if e[0] in ("add", "del"):
            found.add(e[1])
        elif e[0] == "and":
            for g in e[1]:
                walk(g)
        elif e[0] == "forall":
            walk(e[2])
        elif e[0] == "when":
            walk(e[2])

    for a in domain.actions.values():
        walk(a.effect)
    return found


def static_filter(schema, grounder: Grounder):
    """Top-level static literals of a precondition, to prune bindings while they are built."""
    lits = []
    pre = schema.precondition
    conjuncts = pre[1] if pre[0] == "and" else (pre,)
    for c in conjuncts:
        positive = True
        if c[0] == "not":
            c, positive = c[1], False
        if c[0] == "atom" and c[1] not in grounder.fluents:
            lits.append((c, positive, {a for a in c[2] if a.startswith("?")}))
        elif c[0] == "=":
            lits.append((c, positive, {a for a in c[1:] if a.startswith("?")}))
    return lits


def ground_schema(schema, grounder: Grounder, action_id_of):
    """Yield (action name args, [operators...]) for every binding whose static part can hold."""
    params = schema.params
    domains = [grounder.types.of(t) for _, t in params]
    lits = static_filter(schema, grounder)
    # check each static literal as soon as its last variable is bound
    order = [v for v, _ in params]
    checks_at: list[list] = [[] for _ in params]
    for lit in lits:
        idx = max((order.index(v) for v in lit[2]), default=0) if params else 0
        if params:
            checks_at[idx].append(lit)
    binding: dict[str, str] = {}

    def holds(lit) -> bool:
        c, positive, _ = lit
        if c[0] == "=":
            a, b = grounder._sub(c[1:], binding)
            return (a == b) == positive
        return ((c[1], grounder._sub(c[2], binding)) in grounder.static_true) == positive

    def rec(i):
        if i == len(params):
            yield tuple(binding[v] for v in order)
            return
        for obj in domains[i]:
            binding[order[i]] = obj
            if all(holds(lit) for lit in checks_at[i]):
                yield from rec(i + 1)
        binding.pop(order[i], None)

    for args in rec(0):
        b = dict(zip(order, args))
        pre = grounder.dnf(schema.precondition, b)
        if not pre:
            continue
        effs = grounder.effects(schema.effect, b)
        plain_add = plain_del = 0
        conds = []
        for cond, add, dele in effs:
            if cond == ((0, 0),):
                plain_add |= add
                plain_del |= dele
            else:
                conds.extend((cp, cn, add, dele) for cp, cn in cond)
        aid = action_id_of(schema.name, args)
        yield [Operator(aid, p, n, plain_add, plain_del, tuple(conds)) for p, n in pre]
