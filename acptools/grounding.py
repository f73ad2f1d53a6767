"""Ground a lifted model: formulas -> DNF over fluent atom ids, schemas -> STRIPS operators.

Static facts (predicates no action changes) and equality are evaluated here, so operators only
mention fluent atoms. A disjunctive precondition yields one operator per disjunct (all with the
same action name), so the search core stays STRIPS with negative preconditions and conditional
effects.
"""

from __future__ import annotations

import itertools
from operator import itemgetter
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


def _static_bindings(schema, grounder: Grounder, budget=None) -> list[tuple[str, ...]]:
    """Every binding of the schema's parameters (as argument tuples, in the order of a plain
    nested loop over the typed domains) that satisfies the top-level static literals.

    A join: variables are bound most-constrained first, and a variable that completes a positive
    static literal takes its candidates from an index of the static facts (in-city ?to ?c with ?c
    bound lists the locations of that city) instead of trying every object of its type."""
    params = schema.params
    if not params:
        return [()]
    names = [v for v, _ in params]
    domains = [grounder.types.of(t) for _, t in params]
    rank = [{o: k for k, o in enumerate(d)} for d in domains]
    lits = static_filter(schema, grounder)
    generators = [c for c, positive, _ in lits if positive and c[0] == "atom"]

    # binding order: greedily the variable most tied to already bound ones, then the smallest domain
    var_order: list[int] = []
    bound: set[str] = set()
    while len(var_order) < len(names):
        def score(i):
            v = names[i]
            ties = sum(1 for c in generators if v in c[2] and all(a == v or not a.startswith("?") or a in bound
                                                                  for a in c[2]))
            return (-ties, len(domains[i]))
        i = min((i for i in range(len(names)) if i not in var_order), key=score)
        var_order.append(i)
        bound.add(names[i])

    # per step: generator literals (v once, every other variable bound by then) and the checks
    step_gens: list[list] = []
    step_checks: list[list] = []
    seen: set[str] = set()
    for i in var_order:
        v = names[i]
        seen.add(v)
        step_gens.append([c for c in generators if c[2].count(v) == 1 and
                          all(a == v or not a.startswith("?") or a in seen for a in c[2])])
        step_checks.append([lit for lit in lits if v in lit[2] and lit[2] <= seen])
    index: dict[tuple, dict] = {}

    def candidates(c, v, binding) -> set[str]:
        pos = c[2].index(v)
        others = tuple(k for k in range(len(c[2])) if k != pos)
        table = index.get((c[1], pos, others))
        if table is None:
            table = index[(c[1], pos, others)] = {}
            for pred, args in grounder.static_true:
                if pred == c[1] and len(args) == len(c[2]):
                    table.setdefault(tuple(args[k] for k in others), set()).add(args[pos])
        key = tuple(binding.get(c[2][k], c[2][k]) for k in others)
        return table.get(key, set())

    binding: dict[str, str] = {}
    found: list[tuple[str, ...]] = []

    def holds(lit) -> bool:
        c, positive, _ = lit
        if c[0] == "=":
            a, b = grounder._sub(c[1:], binding)
            return (a == b) == positive
        return ((c[1], grounder._sub(c[2], binding)) in grounder.static_true) == positive

    def rec(step: int) -> None:
        if budget is not None:
            budget.check()
        if step == len(var_order):
            found.append(tuple(binding[v] for v in names))
            return
        i = var_order[step]
        v = names[i]
        values = None
        for c in step_gens[step]:
            got = candidates(c, v, binding)
            values = got if values is None else values & got
        if values is None:
            values = domains[i]
        else:
            values = sorted((o for o in values if o in rank[i]), key=rank[i].__getitem__)
        for obj in values:
            binding[v] = obj
            if all(holds(lit) for lit in step_checks[step]):
                rec(step + 1)
        binding.pop(v, None)

    rec(0)
    found.sort(key=lambda args: tuple(rank[k][a] for k, a in enumerate(args)))
    return found


def _flat_literals(f: tuple, positive: bool, out: list) -> bool:
    """Collect the literals of a conjunction, [(positive, tag, predicate, args)]; False when `f`
    (under this polarity) is anything else, which then takes the general DNF path."""
    tag = f[0]
    if tag == "true":
        return positive
    if tag == "and":
        return positive and all(_flat_literals(g, True, out) for g in f[1])
    if tag == "not":
        return _flat_literals(f[1], not positive, out)
    if tag == "atom":
        out.append((positive, "atom", f[1], f[2]))
        return True
    if tag == "=":
        out.append((positive, "=", None, f[1:]))
        return True
    return False


def _flat_effects(e: tuple, out: list) -> bool:
    """Collect the adds and deletes of a plain conjunctive effect; False for `forall` or `when`."""
    if e[0] in ("add", "del"):
        out.append((e[0] == "add", e[1], e[2]))
        return True
    return e[0] == "and" and all(_flat_effects(g, out) for g in e[1])


def _arguments(positions: list[int], written: tuple):
    """A function from a binding (argument tuple) to an atom's arguments: position k of the
    binding, or the constant as written where the position is -1."""
    if not positions:
        return lambda args: ()
    if min(positions) >= 0:
        if len(positions) == 1:
            k = positions[0]
            return lambda args: (args[k],)
        return itemgetter(*positions)
    return lambda args: tuple(args[k] if k >= 0 else c for k, c in zip(positions, written))


class _Template:
    """A schema whose precondition is a conjunction of literals and whose effect is a conjunction of
    adds and deletes, compiled once: grounding one binding is then a few dict lookups instead of a
    walk over formula trees. Atoms are visited in the order the general path visits them, so the
    atom numbering is the same."""

    def __init__(self, schema, grounder: Grounder):
        self.ok = False
        lits: list = []
        effs: list = []
        if not (_flat_literals(schema.precondition, True, lits) and _flat_effects(schema.effect, effs)):
            return
        index = {v: k for k, (v, _) in enumerate(schema.params)}
        pick = lambda args: _arguments([index.get(a, -1) for a in args], args)  # noqa: E731
        self.pre = [(positive, tag == "=", pred, pred in grounder.fluents, pick(args))
                    for positive, tag, pred, args in lits]
        self.eff = [(is_add, pred, pick(args)) for is_add, pred, args in effs if pred in grounder.fluents]
        self.grounder = grounder
        self.ok = True

    def ground(self, args: tuple) -> tuple[int, int, int, int] | None:
        """(pre, neg, add, del) masks for one binding, or None when a literal is false."""
        g = self.grounder
        static, atom_id = g.static_true, g.atom_id
        pos = neg = 0
        for positive, equality, pred, fluent, pick in self.pre:
            vals = pick(args)
            if equality:
                if (vals[0] == vals[1]) != positive:
                    return None
            elif not fluent:
                if ((pred, vals) in static) != positive:
                    return None
            elif positive:
                pos |= 1 << atom_id((pred, vals))
            else:
                neg |= 1 << atom_id((pred, vals))
        if pos & neg:
            return None
        add = dele = 0
        for is_add, pred, pick in self.eff:
            bit = 1 << atom_id((pred, pick(args)))
            if is_add:
                add |= bit
            else:
                dele |= bit
        return pos, neg, add, dele


def ground_schema(schema, grounder: Grounder, action_id_of, budget=None):
    """Yield [operators...] for every binding whose static part can hold. With a `budget`
    (checked per binding), raises BudgetExceeded when it is spent or cancelled."""
    order = [v for v, _ in schema.params]
    template = _Template(schema, grounder)
    for args in _static_bindings(schema, grounder, budget):
        if budget is not None:
            budget.check()
        if template.ok:
            masks = template.ground(args)
            if masks is not None:
                yield [Operator(action_id_of(schema.name, args), *masks, ())]
            continue
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
