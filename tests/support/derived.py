"""Derived predicates for the test oracle, written from the PDDL text alone (no acptools code).

unified-planning's simulator supports axioms only partially, so the oracle hands it the domain
without its `(:derived ...)` sections and evaluates them here: a naive stratified fixpoint over
explicit atom strings, brute force over the objects.
"""

from __future__ import annotations

import re
from itertools import product

NEVER = "oracle-never"
WRITER = "oracle-derived-writer"


def sexprs(text: str):
    """The text (comments dropped, lower-case) as nested lists of words."""
    tokens = re.findall(r"\(|\)|[^\s()]+", re.sub(r";[^\n]*", "", text).lower())
    stack: list[list] = [[]]
    for tok in tokens:
        if tok == "(":
            stack.append([])
        elif tok == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    return stack[0]


def typed(items: list) -> list[tuple[str, str]]:
    """`?a ?b - t ?c` -> [(?a, t), (?b, t), (?c, object)]."""
    out, pending, i = [], [], 0
    while i < len(items):
        if items[i] == "-":
            out += [(v, items[i + 1]) for v in pending]
            pending, i = [], i + 2
        else:
            pending.append(items[i])
            i += 1
    return out + [(v, "object") for v in pending]


def write(node) -> str:
    return node if isinstance(node, str) else "(" + " ".join(write(n) for n in node) + ")"


class DerivedRules:
    """The axioms of a domain text, and the domain text to give unified-planning instead."""

    def __init__(self, domain_text: str):
        domain = sexprs(domain_text)[0]
        self.predicates = {p[0]: typed(p[1:]) for sec in domain[2:] if sec[0] == ":predicates" for p in sec[1:]}
        # an untyped head variable ranges over the predicate's declared type
        self.axioms = [
            (
                sec[1][0],
                [
                    (v, t if t != "object" else d)
                    for (v, t), (_, d) in zip(typed(sec[1][1:]), self.predicates[sec[1][0]])
                ],
                sec[2],
            )
            for sec in domain[2:]
            if sec[0] == ":derived"
        ]
        self.names = sorted({name for name, _, _ in self.axioms})
        self.strata = self._strata() if self.axioms else []
        self._closed: dict[frozenset, frozenset] = {}
        self.domain_text = domain_text if not self.axioms else self._stripped(domain)

    def _stripped(self, domain: list) -> str:
        """No (:derived ...) sections; a never-applicable action that sets every derived predicate,
        so that unified-planning does not take them for static facts (and simplify them away)."""
        kept = []
        for sec in domain[2:]:
            if sec[0] == ":derived":
                continue
            if sec[0] == ":requirements":
                sec = [r for r in sec if r != ":derived-predicates"]
            if sec[0] == ":predicates":
                sec = sec + [[NEVER]]
            kept.append(sec)
        effects = []
        for name in self.names:
            params = [(f"?v{k}", t) for k, (_, t) in enumerate(self.predicates[name])]
            atom = "(" + " ".join([name] + [v for v, _ in params]) + ")"
            decl = " ".join(f"{v} - {t}" for v, t in params)
            effects.append(f"(forall ({decl}) {atom})" if params else atom)
        writer = f"(:action {WRITER} :parameters () :precondition ({NEVER}) :effect (and {' '.join(effects)}))"
        return "(define " + " ".join(write(n) for n in domain[1:2] + kept) + " " + writer + ")"

    def close(self, atoms: frozenset[str], objects) -> frozenset[str]:
        """`atoms` with the derived atoms recomputed: derived predicates in order of their strata,
        each to its fixpoint. `objects(type)`: the object names of a type (subtypes included)."""
        basic = frozenset(a for a in atoms if a.strip("()").split()[0] not in self.names)
        hit = self._closed.get(basic)
        if hit is None:
            hit = self._closed[basic] = self._fixpoint(set(basic), objects)
        return hit

    def _fixpoint(self, s: set, objects) -> frozenset[str]:
        for level in self.strata:
            changed = True
            while changed:
                changed = False
                for name, params, body in self.axioms:
                    if name not in level:
                        continue
                    for combo in product(*(objects(t) for _, t in params)):
                        atom = "(" + " ".join([name, *combo]) + ")"
                        if atom not in s and self._holds(body, dict(zip((v for v, _ in params), combo)), s, objects):
                            s.add(atom)
                            changed = True
        return frozenset(s)

    def _strata(self) -> list[set[str]]:
        """Groups of derived predicates, each only negating predicates of earlier groups."""
        level = {n: 0 for n in self.names}
        for _ in range(len(self.names) + 1):
            for name, _, body in self.axioms:
                for used, negated in self._uses(body, False):
                    level[name] = max(level[name], level[used] + negated)
        return [{n for n in self.names if level[n] == k} for k in range(max(level.values()) + 1)]

    def _uses(self, node, negated: bool):
        if isinstance(node, str) or not node:
            return
        head = node[0]
        if head in self.names:
            yield head, int(negated)
        elif head == "not":
            yield from self._uses(node[1], not negated)
        elif head == "imply":
            yield from self._uses(node[1], not negated)
            yield from self._uses(node[2], negated)
        elif head in ("and", "or"):
            for g in node[1:]:
                yield from self._uses(g, negated)
        elif head in ("exists", "forall"):
            yield from self._uses(node[2], negated)

    def _holds(self, node, binding: dict, s: set, objects) -> bool:
        head = node[0] if node else "and"
        if head == "and":
            return all(self._holds(g, binding, s, objects) for g in node[1:])
        if head == "or":
            return any(self._holds(g, binding, s, objects) for g in node[1:])
        if head == "not":
            return not self._holds(node[1], binding, s, objects)
        if head == "imply":
            return not self._holds(node[1], binding, s, objects) or self._holds(node[2], binding, s, objects)
        if head in ("exists", "forall"):
            params = typed(node[1])
            combos = (
                dict(binding, **dict(zip((v for v, _ in params), c))) for c in product(*(objects(t) for _, t in params))
            )
            test = any if head == "exists" else all
            return test(self._holds(node[2], b, s, objects) for b in combos)
        args = [binding.get(a, a) for a in node[1:]]
        if head == "=":
            return args[0] == args[1]
        return "(" + " ".join([head, *args]) + ")" in s
