"""The join that finds the bindings of an action schema worth grounding.

A schema's top-level positive literals are joined literal by literal: static facts always, and in
relaxed exploration also the fluent atoms reached so far. Each step takes one literal, looks its
facts up by the values already bound (an index per predicate and bound positions, built on first
use) and binds all its other variables at once; variables no literal mentions come from their
type. Negated static literals and (in)equalities are checked as soon as their variables are bound.
A top-level `or` of static atoms over the same variables acts as one literal whose facts are the
union of its disjuncts'. The join only prunes: every binding it yields is still grounded from the
whole precondition, and it never drops a binding whose precondition can hold.
"""

from __future__ import annotations

CHECK_EVERY = 4096  # partial bindings between budget checks
OR_LIMIT = 20_000  # a static `or` with more solutions than this is left to the grounding, not joined


class _TooMany(Exception):
    pass


class Relation:
    """The facts of one predicate (argument tuples, in insertion order) with lookup indexes."""

    __slots__ = ("facts", "present", "indexes")

    def __init__(self):
        self.facts: list[tuple] = []
        self.present: set[tuple] = set()
        self.indexes: dict[tuple, dict[tuple, list[tuple]]] = {}

    def add(self, args: tuple) -> bool:
        """Add a fact to the relation and its indexes; False when it was already present."""
        if args in self.present:
            return False
        self.present.add(args)
        self.facts.append(args)
        for positions, index in self.indexes.items():
            index.setdefault(tuple(args[k] for k in positions), []).append(args)
        return True

    def lookup(self, positions: tuple, key: tuple):
        """Facts whose arguments at `positions` are `key` (all facts for no positions)."""
        if not positions:
            return self.facts
        index = self.indexes.get(positions)
        if index is None:
            index = self.indexes[positions] = {}
            for args in self.facts:
                index.setdefault(tuple(args[k] for k in positions), []).append(args)
        return index.get(key, ())


class Literal:
    """A positive literal that generates candidates: its relation's key and, per argument position,
    a variable index (int) or a constant (str)."""

    __slots__ = ("rel", "args", "fluent", "size", "vars", "constant")

    def __init__(self, rel, args: tuple, fluent: bool, size: int):
        self.rel, self.args, self.fluent, self.size = rel, args, fluent, size
        self.vars = frozenset(a for a in args if isinstance(a, int))
        self.constant = any(not isinstance(a, int) for a in args)

    def variables(self) -> frozenset[int]:
        """The variable indexes among the literal's arguments."""
        return self.vars


class Check:
    """A literal that only filters: a (negated) static atom, an (in)equality, or a positive literal
    whose variables are all bound by earlier steps (a membership test)."""

    __slots__ = ("equality", "positive", "rel", "args")

    def __init__(self, equality: bool, positive: bool, rel, args: tuple):
        self.equality, self.positive, self.rel, self.args = equality, positive, rel, args

    def variables(self) -> frozenset[int]:
        """The variable indexes among the check's arguments."""
        return frozenset(a for a in self.args if isinstance(a, int))

    def compiled(self, relations: dict) -> tuple:
        """The check as a tuple for the join loop: (equality, positive, the relation's fact set (None
        for an equality), args)."""
        return (self.equality, self.positive, None if self.equality else relations[self.rel].present, self.args)


def _passes(checks: list[tuple], vals: list) -> bool:
    for equality, positive, present, args in checks:
        got = tuple([vals[a] if type(a) is int else a for a in args])
        if (got[0] == got[1] if equality else got in present) != positive:
            return False
    return True


class _Step:
    """One join step: a literal (looked up by the bound positions), a variable equal to a bound
    one or a constant (`alias`), or a free variable (its type); then the checks it completes."""

    __slots__ = ("lit", "positions", "key", "new", "repeat", "var", "checks", "binds", "alias")

    def __init__(self, lit: Literal | None, bound: set[int], var: int = -1, alias=None):
        self.lit, self.var, self.checks, self.alias = lit, var, [], alias
        self.binds = frozenset([var]) if lit is None else lit.vars - bound
        if lit is None:
            return
        self.positions = tuple(k for k, a in enumerate(lit.args) if not isinstance(a, int) or a in bound)
        self.key = tuple(lit.args[k] for k in self.positions)
        self.new: list[tuple[int, int]] = []
        self.repeat: list[tuple[int, int]] = []
        seen: set[int] = set()
        for k, a in enumerate(lit.args):
            if isinstance(a, int) and a not in bound:
                (self.repeat if a in seen else self.new).append((k, a))
                seen.add(a)


class SchemaJoin:
    """The join of one schema's top-level literals. `relations` maps a literal's `rel` to its
    Relation (static ones fixed, fluent ones growing as exploration reaches atoms)."""

    def __init__(self, domains: list[list[str]], literals: list[Literal], checks: list[Check], relations: dict):
        self.domains = domains
        self.domain_sets = [set(d) for d in domains]
        self.literals = literals
        self.checks = checks
        self.relations = relations
        self._plans: dict[tuple, tuple[list, list]] = {}

    def _plan(self, seed: int | None, fluent: bool) -> tuple[list, list]:
        """Steps for a join that starts with literal `seed` (bound to one given fact) or with the
        most selective literal; only static literals unless `fluent`. A literal whose variables
        are all bound becomes a membership check of the step that bound the last of them."""
        hit = self._plans.get((seed, fluent))
        if hit is not None:
            return hit
        todo = [i for i, lit in enumerate(self.literals) if (fluent or not lit.fluent) and i != seed]
        checks = list(self.checks)
        bound: set[int] = set()
        steps: list[_Step] = []

        def take(step: _Step) -> None:
            steps.append(step)
            bound.update(step.binds)
            for i in [i for i in todo if self.literals[i].vars <= bound]:
                todo.remove(i)
                checks.append(Check(False, True, self.literals[i].rel, self.literals[i].args))
            for c in checks:  # (= ?x <bound or constant>) binds ?x: no search
                if c.equality and c.positive:
                    for x, y in (c.args, c.args[::-1]):
                        if isinstance(x, int) and x not in bound and (not isinstance(y, int) or y in bound):
                            checks.remove(c)
                            take(_Step(None, bound, x, alias=y))
                            return

        if seed is not None:
            take(_Step(self.literals[seed], bound))
        while todo:

            def score(i):
                lit = self.literals[i]
                free = len(lit.vars - bound)
                return (not (lit.constant or lit.vars & bound), free, lit.fluent, lit.size)

            take(_Step(self.literals[min(todo, key=score)], bound))
        for v in range(len(self.domains)):
            if v not in bound:
                take(_Step(None, bound, v))
        # each check right after the step that binds its last variable (before any step: constants)
        upfront: list[tuple] = []
        for c in checks:
            need = c.variables()
            done: set[int] = set()
            for st in steps:
                if need <= done:
                    break
                done |= st.binds
                last = st
            (last.checks if need and need <= done else upfront).append(c.compiled(self.relations))
        for st in steps:  # equalities first: cheapest
            st.checks.sort(key=lambda c: not c[0])
        self._plans[(seed, fluent)] = (steps, upfront)
        return steps, upfront

    def bindings(
        self,
        budget=None,
        seed: int | None = None,
        facts=(),
        fluent: bool = True,
        limit: int | None = None,
        keep: bool = True,
    ) -> list[tuple] | None:
        """Argument tuples of every binding the literals allow: all of them, or only those whose
        literal `seed` is one of `facts`. With fluent=False only static literals prune. None when
        there are more than `limit`. With keep=False the list holds None per binding (to count them
        without building their tuples)."""
        steps, upfront = self._plan(seed, fluent)
        vals: list = [None] * len(self.domains)
        if not _passes(upfront, vals):
            return []
        out: list[tuple] = []
        relations, domains, domain_sets = self.relations, self.domains, self.domain_sets
        count = [0]
        last = len(steps)

        def rec(k: int) -> None:
            if k == last:
                out.append(tuple(vals) if keep else None)
                if limit is not None and len(out) > limit:
                    raise _TooMany
                return
            count[0] += 1
            if budget is not None and not count[0] % CHECK_EVERY:
                budget.check()
            st = steps[k]
            checks = st.checks
            if st.lit is None:
                v, a = st.var, st.alias
                if a is None:
                    objs = domains[v]
                else:
                    obj = vals[a] if type(a) is int else a
                    objs = (obj,) if obj in domain_sets[v] else ()
                for obj in objs:
                    vals[v] = obj
                    if not checks or _passes(checks, vals):
                        rec(k + 1)
                vals[v] = None
                return
            key = tuple([vals[a] if type(a) is int else a for a in st.key])
            if k == 0 and seed is not None:
                found = [f for f in facts if tuple([f[p] for p in st.positions]) == key] if key else facts
            else:
                found = relations[st.lit.rel].lookup(st.positions, key)
            new, repeat = st.new, st.repeat
            for args in found:
                for p, v in new:
                    obj = args[p]
                    if obj not in domain_sets[v]:
                        break
                    vals[v] = obj
                else:
                    if repeat and not all(args[p] == vals[v] for p, v in repeat):
                        continue
                    if checks and not _passes(checks, vals):
                        continue
                    rec(k + 1)
            for _, v in new:
                vals[v] = None

        try:
            rec(0)
        except _TooMany:
            return None
        return out


def compile_join(schema, domains: list[list[str]], fluents: set[str], relations: dict, atom_count) -> SchemaJoin:
    """The join of a schema's top-level literals. `relations` holds a Relation per predicate (the
    static facts; fluent ones are filled by exploration) and gets one per static `or` generator;
    `atom_count(pred)` bounds a fluent predicate's size, to order the steps."""
    names = [v for v, _ in schema.params]
    literals, checks = _collect(schema.precondition, names, domains, fluents, relations, atom_count, schema.name)
    return SchemaJoin(domains, literals, checks, relations)


def _collect(f: tuple, names: list[str], domains, fluents, relations, atom_count, name, top: bool = True):
    """(literals, checks) of the conjuncts of `f` the join can use; anything else is left to the
    grounding of the whole precondition (ignoring a conjunct only prunes less)."""
    index = {v: k for k, v in enumerate(names)}
    arg = lambda a: index.get(a, a)  # noqa: E731
    literals: list[Literal] = []
    checks: list[Check] = []

    def walk(f: tuple, positive: bool) -> None:
        tag = f[0]
        if tag == "and" and positive:
            for g in f[1]:
                walk(g, True)
        elif tag == "not":
            walk(f[1], not positive)
        elif tag == "=":
            checks.append(Check(True, positive, None, tuple(arg(a) for a in f[1:])))
        elif tag == "atom" and f[1] not in fluents:
            if positive:
                literals.append(Literal(f[1], tuple(arg(a) for a in f[2]), False, len(relations[f[1]].facts)))
            else:
                checks.append(Check(False, False, f[1], tuple(arg(a) for a in f[2])))
        elif tag == "atom" and positive:
            literals.append(Literal(f[1], tuple(arg(a) for a in f[2]), True, atom_count(f[1])))
        elif tag == "or" and positive and top:
            lit = _or_generator(f[1], names, domains, fluents, relations, atom_count, (name, len(relations)))
            if lit is not None:
                literals.append(lit)

    walk(f, True)
    return literals, checks


def _or_generator(disjuncts, names, domains, fluents, relations, atom_count, key) -> Literal | None:
    """A top-level `or` as one static literal over the variables its disjuncts constrain: the union
    of each disjunct's solutions by its static atoms and (in)equalities (its other parts dropped,
    which only adds solutions; a variable a disjunct leaves open takes every object of its type).
    None when that union is empty of constraints or larger than OR_LIMIT."""
    parts = []
    for d in disjuncts:
        lits, checks = _collect(d, names, domains, fluents, relations, atom_count, key, top=False)
        parts.append(([lit for lit in lits if not lit.fluent], checks))
    used = sorted({v for lits, checks in parts for c in (*lits, *checks) for v in c.variables()})
    if not used:
        return None
    local = {v: k for k, v in enumerate(used)}
    move = lambda args: tuple(local[a] if isinstance(a, int) else a for a in args)  # noqa: E731
    union = Relation()
    for lits, checks in parts:
        join = SchemaJoin(
            [domains[v] for v in used],
            [Literal(lit.rel, move(lit.args), False, lit.size) for lit in lits],
            [Check(c.equality, c.positive, c.rel, move(c.args)) for c in checks],
            relations,
        )
        found = join.bindings(fluent=False, limit=OR_LIMIT)
        if found is None:
            return None
        for args in found:
            union.add(args)
        if len(union.facts) > OR_LIMIT:
            return None
    relations[key] = union
    return Literal(key, tuple(used), False, len(union.facts))
