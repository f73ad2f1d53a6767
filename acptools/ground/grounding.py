"""Ground a lifted model: formulas -> DNF over fluent atom ids, schemas -> STRIPS operators.

Static facts (predicates no action changes) and equality are evaluated here, so operators only
mention fluent atoms. A disjunctive precondition yields one operator per disjunct (all with the
same action name), so the search core stays STRIPS with negative preconditions and conditional
effects.
"""

from __future__ import annotations

import itertools
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from operator import itemgetter

from ..errors import AcpError, PddlError
from ..pddl.model import Domain, Param, Problem
from ..util.shortrepr import bounded_repr
from .costs import UNDEFINED, cost_model
from .effects import simplify

MAX_DISJUNCTS = 256
MAX_GROUND_OPERATORS = 2_000_000
CHECK_EVERY = 64  # quantifier bindings (or disjuncts simplified) between budget checks


@bounded_repr
@dataclass(frozen=True, slots=True)
class Operator:
    """One way to apply a ground action: all masks are bitsets over fluent atom ids."""

    action: int
    pre: int
    neg: int
    add: int
    dele: int
    conds: tuple  # ((pre, neg, add, dele), ...) conditional effects, evaluated in the old state
    cost: int | Fraction = 1  # under the metric "cost" (costs.py); 1 under plan length

    def __reduce__(self):
        """Pickled as its fields (several times faster than the frozen dataclass's own way)."""
        if self.cost == 1:
            return Operator, (self.action, self.pre, self.neg, self.add, self.dele, self.conds)
        return Operator, (self.action, self.pre, self.neg, self.add, self.dele, self.conds, self.cost)


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
        """The given types and all their supertypes, with "object"."""
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
        """The objects of any of `types`."""
        if len(types) == 1:
            return self.by_type.get(types[0], [])
        return sorted({o for t in types for o in self.by_type.get(t, [])})

    def fits(self, obj: str, types) -> bool:
        """Whether `obj` is a known object of one of `types` (or a subtype)."""
        return obj in self.objects and bool(self.ancestors(self.objects[obj]) & set(types))


class Grounder:
    """Turns formulas with a variable binding into DNF over fluent atom ids. A quantifier may expand
    millions of bindings, so the expansion checks the budget its thread is `spending` (its size was
    bounded before grounding began: expansion.py)."""

    def __init__(self, domain: Domain, problem: Problem, types: TypeTable, fluents: set[str]):
        self.types = types
        self.fluents = fluents
        self.static_true = {f for f in problem.init if f[0] not in fluents}
        self.costs = cost_model(domain, problem)  # None for a task without numeric functions
        self.atom_ids: dict[tuple[str, tuple[str, ...]], int] = {}
        self.atoms: list[tuple[str, tuple[str, ...]]] = []
        self.frozen = False  # set once every proposition is numbered: nothing may add one later
        self._spending = threading.local()

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_spending"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._spending = threading.local()

    @contextmanager
    def spending(self, budget):
        """Check `budget` (None: nothing) in the expansions this thread makes inside the block."""
        before = getattr(self._spending, "budget", None)
        self._spending.budget = budget
        try:
            yield
        finally:
            self._spending.budget = before

    def _budget(self):
        return getattr(self._spending, "budget", None)

    def atom_id(self, atom) -> int:
        """The id of an atom, adding it unless the atom list is frozen (then an unknown atom is an
        internal error)."""
        i = self.atom_ids.get(atom)
        if i is None:
            if self.frozen:
                raise AcpError(f"internal error: atom {atom} is not among the task's propositions", "grounding")
            i = self.atom_ids[atom] = len(self.atoms)
            self.atoms.append(atom)
        return i

    def _sub(self, args, binding) -> tuple[str, ...]:
        return tuple(binding.get(a, a) for a in args)

    def _expand(self, params: tuple[Param, ...], binding: dict):
        budget = self._budget()
        for k, values in enumerate(itertools.product(*(self.types.of(t) for _, t in params))):
            if budget is not None and not k % CHECK_EVERY:
                budget.check()
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
            parts = ((f[2], b) for b in self._expand(f[1], binding))
            conj = (tag == "forall") == positive
            return self._combine(parts, conj, positive)
        if tag in ("and", "or"):
            parts = ((g, binding) for g in f[1])
            conj = (tag == "and") == positive
            return self._combine(parts, conj, positive)
        raise PddlError(f"unsupported formula {tag!r}", "grounding")

    def _combine(self, parts, conj: bool, positive: bool) -> list[tuple[int, int]]:
        """The DNF of the conjunction (or disjunction) of `parts`, (formula, binding) pairs made as
        they are needed (a quantifier's may be millions)."""
        if conj:
            result = [(0, 0)]
            for g, b in parts:
                sub = self.dnf(g, b, positive)
                result = [(p1 | p2, n1 | n2) for p1, n1 in result for p2, n2 in sub if not (p1 | p2) & (n1 | n2)]
                if not result:
                    return []
                if len(result) > MAX_DISJUNCTS:
                    raise PddlError(
                        f"unsupported: a precondition whose disjunctive normal form exceeds {MAX_DISJUNCTS} cases",
                        "grounding",
                        "split the action into several actions",
                    )
            return _simplify(result, self._budget())
        result = []
        for g, b in parts:
            sub = self.dnf(g, b, positive)
            if sub[:1] == [(0, 0)]:  # true (a simplified DNF lists its shortest disjunct first)
                return [(0, 0)]
            result.extend(sub)
        return _simplify(result, self._budget())

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
            both = _simplify(
                [(p1 | p2, n1 | n2) for p1, n1 in cond for p2, n2 in inner if not (p1 | p2) & (n1 | n2)], self._budget()
            )
            if both:
                self.effects(e[2], binding, tuple(both), out)
        return out


def _simplify(dnf: list[tuple[int, int]], budget=None) -> list[tuple[int, int]]:
    """Drop duplicate and subsumed disjuncts (a disjunct implied by a weaker one adds nothing);
    the shortest come first. Quadratic in the disjuncts, so `budget` is checked as it goes."""
    uniq = sorted(set(dnf), key=lambda d: d[0].bit_count() + d[1].bit_count())
    kept: list[tuple[int, int]] = []
    for k, (p, n) in enumerate(uniq):
        if budget is not None and not k % CHECK_EVERY:
            budget.check()
        if not any(kp & p == kp and kn & n == kn for kp, kn in kept):
            kept.append((p, n))
    return kept


def fluent_predicates(domain: Domain) -> set[str]:
    """Predicates that some action adds or deletes, and the derived ones; all others are static."""
    found: set[str] = set(domain.strata)

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
    """Collect the adds and deletes of a plain conjunctive effect; False for `forall` or `when`.
    Numeric effects are skipped: the cost model (costs.py) reads them."""
    if e[0] in ("add", "del"):
        out.append((e[0] == "add", e[1], e[2]))
        return True
    if e[0] == "num-eff":
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
    walk over formula trees."""

    def __init__(self, schema, grounder: Grounder):
        self.ok = False
        lits: list = []
        effs: list = []
        if not (_flat_literals(schema.precondition, True, lits) and _flat_effects(schema.effect, effs)):
            return
        index = {v: k for k, (v, _) in enumerate(schema.params)}
        pick = lambda args: _arguments([index.get(a, -1) for a in args], args)  # noqa: E731
        fluent = grounder.fluents
        self.equal = [(positive, pick(args)) for positive, tag, _, args in lits if tag == "="]
        self.static = [
            (positive, pred, pick(args)) for positive, tag, pred, args in lits if tag == "atom" and pred not in fluent
        ]
        self.pos = [(pred, pick(args)) for positive, tag, pred, args in lits if positive and pred in fluent]
        self.neg = [(pred, pick(args)) for positive, tag, pred, args in lits if not positive and pred in fluent]
        self.adds = [(pred, pick(args)) for is_add, pred, args in effs if is_add and pred in fluent]
        self.dels = [(pred, pick(args)) for is_add, pred, args in effs if not is_add and pred in fluent]
        # a positive and a negative precondition on one predicate may name the same atom
        self.clashes = [(p1, n1) for pred, p1 in self.pos for other, n1 in self.neg if pred == other]
        self.grounder = grounder
        self.ok = True

    def static_holds(self, args: tuple) -> bool:
        for positive, pick in self.equal:
            a, b = pick(args)
            if (a == b) != positive:
                return False
        static = self.grounder.static_true
        return all(((pred, pick(args)) in static) == positive for positive, pred, pick in self.static)

    def possible(self, args: tuple) -> bool:
        """Can the precondition hold for this binding (static facts, no contradiction)?"""
        return self.static_holds(args) and not any(p(args) == n(args) for p, n in self.clashes)

    def ground(self, args: tuple) -> tuple[int, int, int, int] | None:
        """(pre, neg, add, del) masks for one binding, or None when a literal is false."""
        if not self.static_holds(args):
            return None
        ids = self.grounder.atom_ids  # every atom is numbered at load (proposition_atoms)
        pos = neg = add = dele = 0
        for pred, pick in self.pos:
            pos |= 1 << ids[(pred, pick(args))]
        for pred, pick in self.neg:
            neg |= 1 << ids[(pred, pick(args))]
        if pos & neg:
            return None
        for pred, pick in self.adds:
            add |= 1 << ids[(pred, pick(args))]
        for pred, pick in self.dels:
            dele |= 1 << ids[(pred, pick(args))]
        return pos, neg, add, dele


class SchemaGrounder:
    """Grounds bindings of one schema (argument tuples in parameter order) to operator masks:
    through the compiled template when the schema is conjunctive, else the general formula walk."""

    def __init__(self, schema, grounder: Grounder):
        self.schema = schema
        self.grounder = grounder
        self.order = [v for v, _ in schema.params]
        self.template = _Template(schema, grounder)

    def possible(self, args: tuple) -> bool:
        """Can the precondition hold for this binding by the static facts (and static values)?"""
        costs = self.grounder.costs
        if costs is not None and costs.cost(self.schema.name, args) is UNDEFINED:
            return False
        if self.template.ok:
            return self.template.possible(args)
        return bool(self.grounder.dnf(self.schema.precondition, dict(zip(self.order, args))))

    def ground(self, args: tuple) -> list[tuple]:
        """[(pre, neg, add, del, conds)], one per precondition disjunct, with the cost appended
        when it is not 1; [] when the static facts (or a contradiction) rule the binding out."""
        costs = self.grounder.costs
        if costs is None:
            return self._masks(args)
        cost = costs.cost(self.schema.name, args)
        if cost is UNDEFINED:
            return []
        found = self._masks(args)
        return found if cost == 1 else [m + (cost,) for m in found]

    def _masks(self, args: tuple) -> list[tuple]:
        if self.template.ok:
            masks = self.template.ground(args)
            return [] if masks is None else [masks + ((),)]
        g = self.grounder
        b = dict(zip(self.order, args))
        pre = g.dnf(self.schema.precondition, b)
        if not pre:
            return []
        plain_add = plain_del = 0
        conds = []
        for cond, add, dele in g.effects(self.schema.effect, b):
            if cond == ((0, 0),):
                plain_add |= add
                plain_del |= dele
            else:
                conds.extend((cp, cn, add, dele) for cp, cn in cond)
        return [(p, n) + simplify(p, n, plain_add, plain_del, tuple(conds)) for p, n in pre]


def proposition_atoms(
    domain: Domain, goal: tuple, types: TypeTable, fluents: set[str]
) -> list[tuple[str, tuple[str, ...]]]:
    """Every fluent atom of the task, numbered once at load and never renumbered: each type-correct
    atom (predicates in name order, arguments in type order), then the atoms an action or goal can
    mention with arguments outside the predicate's declared types (a variable typed more loosely
    than the predicate, or an ill-fitting constant)."""
    atoms: dict[tuple[str, tuple[str, ...]], None] = {}
    for pname in sorted(fluents):
        for args in itertools.product(*(types.of(t) for _, t in domain.predicates[pname].params)):
            atoms[(pname, args)] = None

    def visit(pred: str, args: tuple, scope: dict) -> None:
        if pred not in fluents:
            return
        declared = [set(types.of(t)) for _, t in domain.predicates[pred].params]
        choices = [types.of(scope[a]) if a in scope else [a] for a in args]
        if all(set(c) <= d for c, d in zip(choices, declared)):
            return
        for combo in itertools.product(*choices):
            atoms.setdefault((pred, combo), None)

    for schema in domain.actions.values():
        scope = {v: t for v, t in schema.params}
        walk_atoms(schema.precondition, scope, visit)
        walk_atoms(schema.effect, scope, visit)
    for ax in domain.axioms:
        scope = dict(ax.params)
        walk_atoms(("atom", ax.predicate, tuple(v for v, _ in ax.params)), scope, visit)
        walk_atoms(ax.body, scope, visit)
    walk_atoms(goal, {}, visit)
    return list(atoms)


def walk_atoms(f: tuple, scope: dict, visit) -> None:
    """Call visit(pred, args, scope) for every atom of a formula or effect; `scope` maps the
    variables in force to their types."""
    tag = f[0]
    if tag in ("atom", "add", "del"):
        visit(f[1], f[2], scope)
    elif tag in ("and", "or"):
        for g in f[1]:
            walk_atoms(g, scope, visit)
    elif tag == "not":
        walk_atoms(f[1], scope, visit)
    elif tag in ("imply", "when"):
        walk_atoms(f[1], scope, visit)
        walk_atoms(f[2], scope, visit)
    elif tag in ("forall", "exists"):
        walk_atoms(f[2], {**scope, **dict(f[1])}, visit)
