"""PDDL text -> lifted model, with line/column errors and explicit 'unsupported' messages."""

from __future__ import annotations

import re
from difflib import get_close_matches
from fractions import Fraction

from ..errors import PddlError
from .model import (
    ARITHMETIC,
    NUMERIC_EFFECTS,
    ActionSchema,
    Axiom,
    Domain,
    Function,
    GroundTerm,
    Param,
    Predicate,
    Problem,
)
from .sexpr import CHECK_EVERY, SList, Token, read_sexpr, where

_UNSUPPORTED_SECTIONS = {
    ":durative-action": "durative actions",
    ":process": "processes",
    ":event": "events",
    ":constraints": "constraints",
}
_ORDERINGS = ("<", ">", "<=", ">=")
_NUMBER = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)\Z")  # PDDL's numbers, and negative ones as planners read them
_EXPRESSION_HINT = "a numeric expression is a number, a function term such as (fuel ?t), or (+ - * / ...) of them"


def number(word: str) -> Fraction | None:
    """The exact value of a number word ('3', '0.1', '-2.5'), None for any other word."""
    return Fraction(word) if word[:1] in "0123456789-." and _NUMBER.match(word) else None


# the requirement flags of PDDL 1.2 to 3.1 (and PDDL+'s :time): accepted, since a construct acptools does not
# support is refused where it is written
REQUIREMENTS = frozenset(
    (
        ":strips",
        ":typing",
        ":negative-preconditions",
        ":disjunctive-preconditions",
        ":equality",
        ":existential-preconditions",
        ":universal-preconditions",
        ":quantified-preconditions",
        ":conditional-effects",
        ":adl",
        ":derived-predicates",
        ":domain-axioms",
        ":action-costs",
        ":fluents",
        ":numeric-fluents",
        ":object-fluents",
        ":durative-actions",
        ":duration-inequalities",
        ":continuous-effects",
        ":timed-initial-literals",
        ":preferences",
        ":constraints",
        ":safety-constraints",
        ":expression-evaluation",
        ":subgoals-through-axioms",
        ":action-expansions",
        ":foreach-expansions",
        ":dag-expansions",
        ":ucpop",
        ":time",
    )
)
# flags that change what every action or state means, even where no construct shows it
_UNSUPPORTED_REQUIREMENTS = {
    ":open-world": "an open world (states are read under the closed-world assumption)",
    ":true-negation": "true negation (states are read under the closed-world assumption)",
    ":non-deterministic": "non-deterministic effects",
    ":probabilistic-effects": "probabilistic effects",
}


class _Reader:
    def __init__(self, source: str):
        self.source = source

    def fail(self, node, what: str, suggestion: str = "") -> PddlError:
        return PddlError(what, where(node, self.source), suggestion)

    def expect_list(self, node, what: str) -> SList:
        if not isinstance(node, SList):
            raise self.fail(node, f"expected {what} in parentheses, found {node!r}")
        return node

    def expect_word(self, node, what: str) -> Token:
        if not isinstance(node, Token):
            raise self.fail(node, f"expected {what}, found a parenthesised list")
        return node

    def typed_list(self, items, variables: bool) -> list[Param]:
        """`a b - t c - (either t1 t2) d` -> [(a,(t,)), (b,(t,)), (c,(t1,t2)), (d,('object',))]."""
        out: list[Param] = []
        pending: list[Token] = []
        i = 0
        while i < len(items):
            item = items[i]
            if isinstance(item, Token) and item == "-":
                if i + 1 >= len(items) or not pending:
                    raise self.fail(item, "'-' must stand between names and a type", "write 'a b - type'")
                types = self.type_spec(items[i + 1])
                out.extend((p, types) for p in pending)
                pending = []
                i += 2
                continue
            word = self.expect_word(item, "a name")
            if variables and not word.startswith("?"):
                raise self.fail(word, f"expected a variable starting with '?', found {word!r}")
            if not variables and word.startswith("?"):
                raise self.fail(word, f"unexpected variable {word!r} in an object list")
            pending.append(word)
            i += 1
        out.extend((p, ("object",)) for p in pending)
        return out

    def type_spec(self, node) -> tuple[str, ...]:
        if isinstance(node, Token):
            return (str(node),)
        if node and node[0] == "either":
            return tuple(str(self.expect_word(t, "a type name")) for t in node[1:])
        raise self.fail(node, "expected a type name or (either ...)")

    # ---- formulas ---------------------------------------------------------------------------
    def formula(self, node, ctx: str) -> tuple:
        lst = self.expect_list(node, "a formula")
        if not lst:
            return ("true",)
        head = lst[0]
        if isinstance(head, SList):
            raise self.fail(head, f"a formula cannot start with a list ({ctx})")
        args = lst[1:]
        if head == "and":
            return ("and", tuple(self.formula(a, ctx) for a in args))
        if head == "or":
            return ("or", tuple(self.formula(a, ctx) for a in args))
        if head == "not":
            if len(args) != 1:
                raise self.fail(lst, f"(not ...) takes one formula ({ctx})")
            return ("not", self.formula(args[0], ctx))
        if head == "imply":
            if len(args) != 2:
                raise self.fail(lst, f"(imply ...) takes two formulas ({ctx})")
            return ("imply", self.formula(args[0], ctx), self.formula(args[1], ctx))
        if head in ("forall", "exists"):
            if len(args) != 2:
                raise self.fail(lst, f"({head} (vars) formula) expected ({ctx})")
            params = tuple(self.typed_list(self.expect_list(args[0], "variables"), True))
            return (str(head), params, self.formula(args[1], ctx))
        if head == "=":
            if len(args) != 2:
                raise self.fail(
                    lst, f"(= a b) takes two arguments ({ctx})", "compare two names, or two numeric expressions"
                )
            if _names(args):
                return ("=", str(args[0]), str(args[1]))
            return ("cmp", "=", self.expression(args[0], ctx), self.expression(args[1], ctx))
        if head in _ORDERINGS:
            if len(args) != 2:
                raise self.fail(lst, f"({head} a b) compares two numeric expressions, got {len(args)} ({ctx})")
            return ("cmp", str(head), self.expression(args[0], ctx), self.expression(args[1], ctx))
        return ("atom", str(head), tuple(str(self.expect_word(a, "an argument")) for a in args))

    def expression(self, node, ctx: str) -> tuple:
        """A numeric expression (see model.py); n-ary + and * fold to the left."""
        if isinstance(node, Token):
            value = number(node)
            if value is not None:
                return ("num", value)
            if node.startswith("?"):
                raise self.fail(node, f"variable {node} stands for an object, not a number ({ctx})", _EXPRESSION_HINT)
            raise self.fail(
                node,
                f"expected a number or a function term, found {node!r} ({ctx})",
                f"a function term is written in parentheses: ({node})",
            )
        if not node or isinstance(node[0], SList) or number(node[0]) is not None:
            raise self.fail(node, f"malformed numeric expression ({ctx})", _EXPRESSION_HINT)
        head, args = node[0], node[1:]
        if head in ARITHMETIC:
            arity = "two or more" if head in ("+", "*") else "one or two" if head == "-" else "two"
            if len(args) < 1 + (head != "-") or (len(args) > 2 and head in ("-", "/")):
                raise self.fail(node, f"({head} ...) takes {arity} expressions, got {len(args)} ({ctx})")
            if len(args) == 1:
                return ("neg", self.expression(args[0], ctx))
            out = self.expression(args[0], ctx)
            for arg in args[1:]:
                out = (str(head), out, self.expression(arg, ctx))
            return out
        return (
            "fn",
            str(head),
            tuple(str(self.expect_word(a, "an object or a variable (the argument of a function)")) for a in args),
        )

    def effect(self, node, ctx: str) -> tuple:
        lst = self.expect_list(node, "an effect")
        if not lst:
            return ("and", ())
        head = lst[0]
        args = lst[1:]
        if head == "and":
            return ("and", tuple(self.effect(a, ctx) for a in args))
        if head == "not":
            inner = self.formula(args[0], ctx) if len(args) == 1 else None
            if inner is None or inner[0] != "atom":
                raise self.fail(lst, f"(not ...) in an effect must wrap one atom ({ctx})")
            return ("del", inner[1], inner[2])
        if head == "forall":
            params = tuple(self.typed_list(self.expect_list(args[0], "variables"), True))
            return ("forall", params, self.effect(args[1], ctx))
        if head == "when":
            if len(args) != 2:
                raise self.fail(lst, f"(when condition effect) expected ({ctx})")
            return ("when", self.formula(args[0], ctx), self.effect(args[1], ctx))
        if head in NUMERIC_EFFECTS:
            if len(args) != 2:
                raise self.fail(lst, f"({head} function-term expression) expected ({ctx})")
            target = args[0]
            if (
                not isinstance(target, SList)
                or not target
                or not isinstance(target[0], Token)
                or target[0] in ARITHMETIC
                or number(target[0]) is not None
            ):
                found = repr(target) if isinstance(target, Token) else "another expression"
                raise self.fail(
                    target,
                    f"({head} ...) changes a function term such as (total-cost), found {found} ({ctx})",
                    f"write ({target})" if isinstance(target, Token) else "",
                )
            return ("num-eff", str(head), self.expression(target, ctx), self.expression(args[1], ctx))
        if isinstance(head, SList) or head in ("or", "exists", "imply", "="):
            raise self.fail(lst, f"unsupported: {head if isinstance(head, Token) else 'list'} in the effect of {ctx}")
        atom = self.formula(lst, ctx)
        return ("add", atom[1], atom[2])


def _names(args) -> bool:
    """Whether the two arguments of (= a b) are names or variables (object equality), not numbers."""
    return all(isinstance(a, Token) and number(a) is None for a in args)


def _sections(r: _Reader, root: SList, kind: str):
    if not root or root[0] != "define" or len(root) < 2:
        raise r.fail(root, "expected (define ...)")
    header = r.expect_list(root[1], f"({kind} name)")
    if len(header) != 2 or header[0] != kind:
        other = "problem" if kind == "domain" else "domain"
        hint = f"this looks like a {other}: swap the two texts" if header and header[0] == other else ""
        raise r.fail(header, f"expected ({kind} <name>)", hint)
    return str(header[1]), root[2:]


def parse_domain(text: str) -> Domain:
    """PDDL domain text -> Domain; PddlError with line and column on malformed or unsupported input."""
    r = _Reader("domain")
    name, sections = _sections(r, read_sexpr(text, "domain"), "domain")
    requirements: tuple[str, ...] = ()
    supertypes: dict[str, tuple[str, ...]] = {"object": ()}
    constants: dict[str, tuple[str, ...]] = {}
    predicates: dict[str, Predicate] = {}
    functions: dict[str, Function] = {}
    actions: dict[str, ActionSchema] = {}
    raw: dict[str, SList] = {}  # action name -> its section as written (to locate errors in it)
    axioms: list[tuple[Axiom, SList]] = []
    seen: dict[str, SList] = {}
    declared: dict[str, Token] = {}  # type -> where it is declared
    for sec in sections:
        sec = r.expect_list(sec, "a domain section")
        if not sec:
            raise r.fail(sec, "empty section")
        head = sec[0]
        if head in (":requirements", ":types", ":constants", ":predicates", ":functions") and head in seen:
            raise r.fail(
                sec,
                f"a second ({head} ...) section",
                f"the first is at line {seen[head].line}, column {seen[head].col}: merge them into one",
            )
        seen.setdefault(str(head), sec)
        if head == ":requirements":
            requirements = _requirements(r, sec[1:])
        elif head == ":types":
            for t, parents in r.typed_list(sec[1:], False):
                declared.setdefault(t, t)
                supertypes[t] = tuple(p for p in parents if p != t)
                for p in parents:
                    supertypes.setdefault(p, ("object",) if p != "object" else ())
        elif head == ":constants":
            constants.update(r.typed_list(sec[1:], False))
        elif head == ":predicates":
            for p in sec[1:]:
                p = r.expect_list(p, "a predicate declaration")
                pname = str(r.expect_word(p[0], "a predicate name"))
                predicates[pname] = Predicate(pname, tuple(r.typed_list(p[1:], True)))
        elif head == ":functions":
            functions = _functions(r, sec[1:])
        elif head == ":action":
            act = _action(r, sec)
            if act.name in actions:
                first = raw[act.name]
                raise r.fail(
                    sec,
                    f"a second action named {act.name!r}",
                    f"the first is at line {first.line}, column {first.col}: rename or remove one",
                )
            actions[act.name] = act
            raw[act.name] = sec
        elif head == ":derived":
            axioms.append((_axiom(r, sec), sec))
        elif head in _UNSUPPORTED_SECTIONS:
            raise r.fail(
                sec,
                f"unsupported: {_UNSUPPORTED_SECTIONS[head]} ({head})",
                "acptools handles STRIPS/ADL actions with numeric fluents (PDDL 2.1 level 2)",
            )
        else:
            raise r.fail(sec, f"unknown domain section {head!r}")
    _check_type_cycles(r, supertypes, declared)
    dom = Domain(
        name, requirements, supertypes, constants, predicates, actions, [a for a, _ in axioms], functions=functions
    )
    _check_domain(
        r,
        dom,
        {
            **{f"action {a}": sec for a, sec in raw.items()},
            **{_axiom_label(dom, k): sec for k, (_, sec) in enumerate(axioms)},
            **seen,
        },
    )
    return dom


def _functions(r: _Reader, items) -> dict[str, Function]:
    """The (:functions ...) declarations: `(f ?x - t) (g) - number (h)`; every result type is
    `number` (also when left out); any other type declares object fluents, which are refused."""
    out: dict[str, Function] = {}
    where_declared: dict[str, SList] = {}
    pending: list[str] = []  # functions declared since the last '- type'
    i = 0
    while i < len(items):
        item = items[i]
        if isinstance(item, Token) and item == "-":
            if i + 1 >= len(items) or not pending:
                raise r.fail(
                    item, "'-' must stand between function declarations and their type", "write '(f ?x - t) - number'"
                )
            result = items[i + 1]
            if result != "number":
                shown = result if isinstance(result, Token) else "(either ...)"
                raise r.fail(
                    result,
                    f"unsupported: object fluents ({', '.join(pending)} of type {shown})",
                    "acptools reads numeric functions only: declare them '- number'",
                )
            pending = []
            i += 2
            continue
        decl = r.expect_list(item, "a function declaration such as (fuel ?t - truck)")
        if not decl:
            raise r.fail(decl, "a function declaration without a name")
        fname = str(r.expect_word(decl[0], "a function name"))
        if fname in out:
            first = where_declared[fname]
            raise r.fail(
                decl,
                f"a second function named {fname!r}",
                f"the first is at line {first.line}, column {first.col}: keep one",
            )
        out[fname] = Function(fname, tuple(r.typed_list(decl[1:], True)))
        where_declared[fname] = decl
        pending.append(fname)
        i += 1
    return out


def _requirements(r: _Reader, words) -> tuple[str, ...]:
    """The :requirements flags; an unknown flag or one acptools cannot honour is a PddlError at its word."""
    for word in words:
        word = r.expect_word(word, "a requirement flag such as :strips")
        if word in _UNSUPPORTED_REQUIREMENTS:
            raise r.fail(
                word,
                f"unsupported requirement {word}: {_UNSUPPORTED_REQUIREMENTS[word]}",
                "acptools handles classical (STRIPS/ADL) planning",
            )
        if word not in REQUIREMENTS:
            close = get_close_matches(word, REQUIREMENTS, 1, 0.6)
            raise r.fail(
                word,
                f"unknown requirement {word!r}",
                f"did you mean {close[0]}?"
                if close
                else "PDDL requirements include :strips, :typing, :negative-preconditions, :adl",
            )
    return tuple(str(w) for w in words)


def _check_type_cycles(r: _Reader, supertypes: dict[str, tuple[str, ...]], declared: dict[str, Token]) -> None:
    """A PddlError, at the first declaration in the cycle, when a type is its own ancestor."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    for start in supertypes:
        if start in state:
            continue
        state[start], path, todo = 1, [start], [iter(supertypes[start])]
        while todo:
            t = next(todo[-1], None)
            if t is None:
                todo.pop()
                state[path.pop()] = 2
            elif state.get(t) == 1:
                cycle = path[path.index(t) :] + [t]
                first = min(cycle[:-1], key=lambda c: (declared[c].line, declared[c].col) if c in declared else (0, 0))
                raise r.fail(
                    declared.get(first),
                    f"the types form a cycle: {' - '.join(cycle)}",
                    "a type cannot be its own ancestor: remove one of these parents",
                )
            elif t not in state:
                state[t] = 1
                path.append(t)
                todo.append(iter(supertypes.get(t, ())))


def _axiom(r: _Reader, sec: SList) -> Axiom:
    """(:derived (pred ?x - t ...) body); untyped head variables take the predicate's types later."""
    if len(sec) != 3:
        raise r.fail(
            sec,
            "(:derived (predicate ?vars) formula) expected",
            "write one head atom and one formula (wrap several conditions in (and ...))",
        )
    head = r.expect_list(sec[1], "the derived atom (predicate ?vars)")
    if not head:
        raise r.fail(head, "the derived atom has no predicate")
    pred = str(r.expect_word(head[0], "a predicate name"))
    params = tuple(r.typed_list(head[1:], True))
    return Axiom(pred, params, r.formula(sec[2], f"the axiom of {pred}"))


def _axiom_label(dom: Domain, k: int) -> str:
    """How errors name axiom k: 'derived p', numbered when p has several axioms."""
    pred = dom.axioms[k].predicate
    same = [j for j, a in enumerate(dom.axioms) if a.predicate == pred]
    return f"derived {pred}" if len(same) == 1 else f"derived {pred} #{same.index(k) + 1}"


def _action(r: _Reader, sec: SList) -> ActionSchema:
    name = str(r.expect_word(sec[1], "an action name")) if len(sec) > 1 else ""
    if not name:
        raise r.fail(sec, "action without a name")
    params: tuple[Param, ...] = ()
    pre: tuple = ("true",)
    eff: tuple = ("and", ())
    i = 2
    given: dict[str, Token] = {}
    while i < len(sec):
        key = sec[i]
        if i + 1 >= len(sec):
            raise r.fail(key, f"{key} has no value in action {name}")
        if isinstance(key, Token) and key in given:
            first = given[key]
            raise r.fail(
                key,
                f"a second {key} in action {name}",
                f"the first is at line {first.line}, column {first.col}: keep one",
            )
        if isinstance(key, Token):
            given[key] = key
        val = sec[i + 1]
        if key == ":parameters":
            params = tuple(r.typed_list(r.expect_list(val, "parameters"), True))
        elif key == ":precondition":
            pre = r.formula(val, f"action {name}")
        elif key == ":effect":
            eff = r.effect(val, f"action {name}")
        else:
            raise r.fail(
                key, f"unknown action field {key!r} in action {name}", "expected :parameters, :precondition or :effect"
            )
        i += 2
    return ActionSchema(name, params, pre, eff)


class _Misnamed(PddlError):
    """A semantic error found on the parsed model; `pred` and `word` say which node to point at."""

    def __init__(
        self,
        what: str,
        where: str = "",
        suggestion: str = "",
        pred: str | tuple | None = None,
        word: str | None = None,
        inside: int | None = None,
    ):
        super().__init__(what, where, suggestion)
        self.pred, self.word, self.inside = pred, word, inside  # inside: look only in this part of the section


def _find(node, pred: str | tuple | None, word: str | None):
    """The first node of `node` (as written) that an error about `pred` / `word` is about: the
    word inside a (pred ...) list, else the list, else a token equal to `word`; None if none.
    A pair (outer, inner) as `pred` finds an (inner ...) list written right inside an (outer ...) one."""
    if isinstance(node, Token):
        return node if word is not None and pred is None and node == word else None
    if not isinstance(node, SList):
        return None
    if isinstance(pred, tuple):  # (outer, inner): the (inner ...) list directly inside an (outer ...) list
        if node and node[0] == pred[0]:
            hit = next((c for c in node[1:] if isinstance(c, SList) and c and c[0] == pred[1]), None)
            if hit is not None:
                return hit
    elif node and pred is not None and node[0] == pred:
        if word is None:
            return node
        hit = next((t for t in node[1:] if isinstance(t, Token) and t == word), None)
        if hit is not None:
            return hit
    for child in node:
        hit = _find(child, pred, word)
        if hit is not None:
            return hit
    return None


def _check_domain(r: _Reader, dom: Domain, sections: dict[str, SList]) -> None:
    """Catch undeclared predicates, types and variables now, so grounding cannot mis-answer; each
    error points at the line and column where the offending name is written. `sections`: 'action
    NAME' or a section head (':predicates') -> the section as written."""
    try:
        _check_names(dom)
    except _Misnamed as e:
        part = e.where.removeprefix("domain, ")
        sec = sections.get(part)
        if sec is not None and e.inside is not None:
            sec = sec[e.inside]
        node = _find(sec, e.pred, e.word) if sec is not None else None
        if node is None and sec is None:
            raise PddlError(e.what, e.where, e.suggestion) from None
        raise r.fail(node if node is not None else sec, f"{e.what} ({part})", e.suggestion) from None


def _check_names(dom: Domain) -> None:
    """The checks of `_check_domain` on the parsed model (errors are _Misnamed)."""
    for t, parents in dom.supertypes.items():
        for p in parents:
            if p not in dom.supertypes:
                raise PddlError(f"type {t!r} has undeclared parent {p!r}", "domain")
    for p in dom.predicates.values():
        for v, types in p.params:
            for t in types:
                if t not in dom.supertypes:
                    raise _Misnamed(f"predicate {p.name} uses undeclared type {t!r}", "domain, :predicates", word=t)
    _check_functions(dom)
    for a in dom.actions.values():
        ctx = f"domain, action {a.name}"
        for v, types in a.params:
            for t in types:
                if t not in dom.supertypes:
                    raise _Misnamed(f"undeclared type {t!r} for {v}", ctx, word=t)
        bound = {v for v, _ in a.params}
        _check_formula(dom, a.precondition, bound, ctx)
        _check_effect(dom, a.effect, bound, ctx)
    _check_axioms(dom)


def _check_functions(dom: Domain) -> None:
    """Function declarations name declared types and no predicate."""
    for f in dom.functions.values():
        if f.name in dom.predicates:
            raise _Misnamed(
                f"{f.name!r} is declared both as a predicate and as a function",
                "domain, :functions",
                "rename one of them",
                pred=f.name,
            )
        for _v, types in f.params:
            for t in types:
                if t not in dom.supertypes:
                    raise _Misnamed(f"function {f.name} uses undeclared type {t!r}", "domain, :functions", word=t)


def _check_axioms(dom: Domain) -> None:
    """Axiom heads name declared predicates with distinct variables (untyped ones take the
    predicate's types), bodies are checked like preconditions, and the derived predicates are
    stratified (sets `dom.strata`)."""
    dom.strata = {a.predicate: 0 for a in dom.axioms}
    for k, ax in enumerate(dom.axioms):
        ctx = f"domain, {_axiom_label(dom, k)}"
        decl = dom.predicates.get(ax.predicate)
        if decl is None:
            raise _Misnamed(
                f"undeclared derived predicate {ax.predicate!r}",
                ctx,
                "declare it in (:predicates ...) too",
                pred=ax.predicate,
            )
        if len(ax.params) != len(decl.params):
            raise _Misnamed(
                f"({ax.predicate} ...) takes {len(decl.params)} arguments, got {len(ax.params)}",
                ctx,
                "write the head as (" + " ".join([ax.predicate] + [v for v, _ in decl.params]) + ")",
                pred=ax.predicate,
            )
        names = [v for v, _ in ax.params]
        for v in names:
            if names.count(v) > 1:
                raise _Misnamed(
                    f"variable {v} appears twice in the head of an axiom",
                    ctx,
                    "use distinct variables and compare them with (= ...) in the body",
                    pred=ax.predicate,
                )
        ax.params = tuple((v, t if t != ("object",) else d) for (v, t), (_, d) in zip(ax.params, decl.params))
        for v, types in ax.params:
            for t in types:
                if t not in dom.supertypes:
                    raise _Misnamed(f"undeclared type {t!r} for {v}", ctx, word=t)
        _check_formula(dom, ax.body, set(names), ctx)
    _stratify(dom)


def _uses(f: tuple, derived: set[str], positive: bool, out: list) -> None:
    """(predicate, positive) for every derived atom of a formula, with its polarity."""
    tag = f[0]
    if tag == "atom" and f[1] in derived:
        out.append((f[1], positive))
    elif tag in ("and", "or"):
        for g in f[1]:
            _uses(g, derived, positive, out)
    elif tag == "not":
        _uses(f[1], derived, not positive, out)
    elif tag == "imply":
        _uses(f[1], derived, not positive, out)
        _uses(f[2], derived, positive, out)
    elif tag in ("forall", "exists"):
        _uses(f[2], derived, positive, out)


def _stratify(dom: Domain) -> None:
    """Strata: a predicate's stratum is at least that of each derived predicate its axioms use,
    and above that of each one they negate. A cycle through negation has no strata: an error at
    the negated atom, in the axiom that closes the cycle."""
    derived = set(dom.strata)
    edges = []  # (axiom index, used predicate, head, 1 if negated)
    for k, ax in enumerate(dom.axioms):
        found: list = []
        _uses(ax.body, derived, True, found)
        edges += [(k, q, ax.predicate, int(not positive)) for q, positive in found]
    strata = dom.strata
    for _ in range(len(derived) + 1):
        changed = False
        for k, q, h, neg in edges:
            if strata[h] < strata[q] + neg:
                strata[h] = strata[q] + neg
                changed = True
        if not changed:
            return
    uses: dict[str, set[str]] = {}
    for _, q, h, _ in edges:
        uses.setdefault(h, set()).add(q)
    for k, q, h, neg in edges:
        if neg and h in _closure(uses, q):
            raise _Misnamed(
                f"derived predicate {h!r} depends on the negation of {q!r}, which depends on {h!r}: "
                "the axioms are not stratified",
                f"domain, {_axiom_label(dom, k)}",
                f"negate a derived predicate only where it does not depend back on the one being "
                f"defined (e.g. define the complement of {q!r} positively)",
                pred=q,
                inside=2,
            )


def _closure(uses: dict[str, set[str]], start: str) -> set[str]:
    """The predicates `start` depends on, directly or not."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for q in uses.get(todo.pop(), ()):
            if q not in seen:
                seen.add(q)
                todo.append(q)
    return seen


def _check_args(dom: Domain, pred: str, args, bound: set[str], ctx: str) -> None:
    if pred not in dom.predicates:
        if pred in dom.functions:
            raise _Misnamed(
                f"{pred!r} is a function, not a predicate",
                ctx,
                f"compare its value, e.g. (> ({pred} ...) 0), or change it with (assign ({pred} ...) v)",
                pred=pred,
            )
        close = get_close_matches(pred, list(dom.predicates), 1)
        raise _Misnamed(
            f"undeclared predicate {pred!r}",
            ctx,
            f"did you mean {close[0]!r}?" if close else "declare it in (:predicates ...)",
            pred=pred,
        )
    if len(args) != len(dom.predicates[pred].params):
        raise _Misnamed(
            f"({pred} ...) takes {len(dom.predicates[pred].params)} arguments, got {len(args)}", ctx, pred=pred
        )
    _check_bound(dom, pred, args, bound, ctx)


def _check_term(dom: Domain, term: tuple, bound: set[str], ctx: str, changed_by: str = "") -> None:
    """A function term: a declared function with its number of arguments, bound variables and
    declared constants. `changed_by`: the numeric effect that changes it, if any."""
    name, args = term[1], term[2]
    decl = dom.functions.get(name)
    if decl is None:
        if name in dom.predicates:
            what = (
                f"({changed_by} ...) changes {name!r}, a predicate"
                if changed_by
                else f"{name!r} is a predicate, not a function"
            )
            raise _Misnamed(
                what,
                ctx,
                "numeric expressions and effects use the functions of (:functions ...)",
                pred=(changed_by, name) if changed_by else name,
            )
        close = get_close_matches(name, list(dom.functions), 1)
        raise _Misnamed(
            f"undeclared function {name!r}",
            ctx,
            f"did you mean {close[0]!r}?" if close else "declare it in (:functions ...)",
            pred=name,
        )
    if len(args) != len(decl.params):
        raise _Misnamed(f"({name} ...) takes {len(decl.params)} arguments, got {len(args)}", ctx, pred=name)
    _check_bound(dom, name, args, bound, ctx)


def _check_expression(dom: Domain, e: tuple, bound: set[str], ctx: str) -> None:
    tag = e[0]
    if tag == "fn":
        _check_term(dom, e, bound, ctx)
    elif tag != "num":
        for part in e[1:]:
            _check_expression(dom, part, bound, ctx)


def _check_bound(dom: Domain, pred: str, args, bound: set[str], ctx: str) -> None:
    """The arguments of (pred ...) are variables in scope or declared constants."""
    for a in args:
        if a.startswith("?") and a not in bound:
            raise _Misnamed(
                f"unbound variable {a} in ({pred} ...)",
                ctx,
                "declare it in :parameters or a quantifier",
                pred=pred,
                word=a,
            )
        if not a.startswith("?") and a not in dom.constants:
            raise _Misnamed(
                f"unknown constant {a!r} in ({pred} ...)", ctx, "declare it in (:constants ...)", pred=pred, word=a
            )


def _check_formula(dom: Domain, f: tuple, bound: set[str], ctx: str) -> None:
    tag = f[0]
    if tag == "atom":
        _check_args(dom, f[1], f[2], bound, ctx)
    elif tag == "=":
        for a in f[1:]:
            if a.startswith("?") and a not in bound:
                raise _Misnamed(f"unbound variable {a} in (= ...)", ctx, pred="=", word=a)
    elif tag in ("and", "or"):
        for g in f[1]:
            _check_formula(dom, g, bound, ctx)
    elif tag == "not":
        _check_formula(dom, f[1], bound, ctx)
    elif tag == "imply":
        _check_formula(dom, f[1], bound, ctx)
        _check_formula(dom, f[2], bound, ctx)
    elif tag in ("forall", "exists"):
        _check_formula(dom, f[2], bound | {v for v, _ in f[1]}, ctx)
    elif tag == "cmp":
        _check_expression(dom, f[2], bound, ctx)
        _check_expression(dom, f[3], bound, ctx)


def _check_effect(dom: Domain, e: tuple, bound: set[str], ctx: str) -> None:
    tag = e[0]
    if tag in ("add", "del"):
        if any(a.predicate == e[1] for a in dom.axioms):
            raise _Misnamed(
                f"the derived predicate {e[1]!r} in an action's effect",
                ctx,
                "axioms compute derived predicates: actions may test them, never set them",
                pred=e[1],
            )
        _check_args(dom, e[1], e[2], bound, ctx)
    elif tag == "and":
        for g in e[1]:
            _check_effect(dom, g, bound, ctx)
    elif tag == "forall":
        _check_effect(dom, e[2], bound | {v for v, _ in e[1]}, ctx)
    elif tag == "when":
        _check_formula(dom, e[1], bound, ctx)
        _check_effect(dom, e[2], bound, ctx)
    elif tag == "num-eff":
        _check_term(dom, e[2], bound, ctx, changed_by=e[1])
        _check_expression(dom, e[3], bound, ctx)


def parse_problem(text: str, domain: Domain, budget=None) -> Problem:
    """The problem, checked against its domain; with a budget, reading stops once it is spent."""
    r = _Reader("problem")
    name, sections = _sections(r, read_sexpr(text, "problem", budget), "problem")
    domain_name = ""
    objects: dict[str, tuple[str, ...]] = {}
    init: set[tuple[str, tuple[str, ...]]] = set()
    init_nodes: list = []
    value_nodes: list = []  # the (= (f o) v) of :init
    goal_node = metric_node = None
    for sec in sections:
        sec = r.expect_list(sec, "a problem section")
        head = sec[0] if sec else None
        if head == ":domain":
            domain_name = str(sec[1])
        elif head == ":requirements":
            _requirements(r, sec[1:])
        elif head == ":objects":
            for o, types in r.typed_list(sec[1:], False):
                for t in types:
                    if t not in domain.supertypes:
                        raise r.fail(
                            sec,
                            f"object {o!r} has undeclared type {t!r}",
                            "declare the type in the domain's (:types ...)",
                        )
                objects[o] = types
        elif head == ":init":
            for fact in sec[1:]:
                fact = r.expect_list(fact, "an initial fact")
                if fact and fact[0] in ("=", "not"):
                    if fact[0] == "=":
                        value_nodes.append(fact)
                    continue  # negative facts are the default
                pred = str(r.expect_word(fact[0], "a predicate name"))
                if pred in domain.strata:
                    raise r.fail(
                        fact,
                        f"the derived predicate {pred!r} in :init",
                        "axioms compute derived predicates from the other facts: remove it",
                    )
                args = tuple(str(r.expect_word(a, "an object name")) for a in fact[1:])
                init.add((pred, args))
                init_nodes.append(fact)
        elif head == ":goal":
            if len(sec) != 2:
                raise r.fail(sec, "(:goal ...) holds one formula", "wrap several conditions in (and ...)")
            goal_node = sec[1]
        elif head == ":metric":
            if metric_node is not None:
                raise r.fail(
                    sec,
                    "a second (:metric ...) section",
                    f"the first is at line {metric_node.line}, column {metric_node.col}: keep one",
                )
            metric_node = sec
        elif head in _UNSUPPORTED_SECTIONS:
            raise r.fail(
                sec,
                f"unsupported: {_UNSUPPORTED_SECTIONS[head]} ({head})",
                "acptools plans for the goal alone: remove the section",
            )
        else:
            raise r.fail(sec, f"unknown problem section {head!r}")
    if domain_name and domain_name != domain.name:
        raise PddlError(
            f"the problem is for domain {domain_name!r}, not {domain.name!r}", "problem", "pass the matching domain"
        )
    if goal_node is None:
        raise PddlError("the problem has no (:goal ...)", "problem")
    names = _ObjectNames(domain, objects)
    for k, fact in enumerate(init_nodes):  # checked once every object is known, whatever the section order
        if budget is not None and not k % CHECK_EVERY:
            budget.check()
        names.check_atom(r, fact, ":init", set())
    values = names.initial_values(r, value_nodes)
    names.check_goal(r, goal_node, set())
    metric = None if metric_node is None else names.metric(r, metric_node)
    return Problem(
        name,
        domain_name,
        objects,
        init,
        r.formula(goal_node, "the goal"),
        metric_node is not None,
        num_init=values,
        metric=metric,
    )


class _ObjectNames:
    """Checks that atoms of the problem name declared predicates and objects of the right types,
    so a typo or swapped arguments is an error with line and column, not a silently different task."""

    def __init__(self, domain: Domain, objects: dict[str, tuple[str, ...]]):
        self.domain = domain
        self.objects = dict(domain.constants)
        self.objects.update(objects)
        self._ancestors: dict[str, set[str]] = {}

    def ancestors(self, t: str) -> set[str]:
        hit = self._ancestors.get(t)
        if hit is None:
            hit, todo = {"object"}, [t]
            while todo:
                x = todo.pop()
                if x not in hit:
                    hit.add(x)
                    todo.extend(self.domain.supertypes.get(x, ()))
            self._ancestors[t] = hit
        return hit

    def fits(self, obj: str, types) -> bool:
        return any(set(types) & self.ancestors(t) for t in self.objects[obj])

    def check_atom(self, r: _Reader, node, where: str, bound: set[str], kind: str = "predicate") -> None:
        """An atom (or, with kind "function", a function term) names a declaration and fitting objects."""
        pred = str(node[0])
        declared = self.domain.predicates if kind == "predicate" else self.domain.functions
        decl = declared.get(pred)
        if decl is None:
            close = get_close_matches(pred, list(declared), 3, 0.5)
            raise r.fail(
                node,
                f"undeclared {kind} {pred!r} in {where}",
                f"did you mean {' or '.join(map(repr, close))}?"
                if close
                else f"{kind}s: {', '.join(sorted(declared)) or 'none declared'}",
            )
        args = node[1:]
        if len(args) != len(decl.params):
            raise r.fail(
                node,
                f"({pred} ...) takes {len(decl.params)} arguments, got {len(args)} in {where}",
                "write it as (" + " ".join([pred] + [v for v, _ in decl.params]) + ")",
            )
        for arg, (var, types) in zip(args, decl.params):
            a = str(r.expect_word(arg, "an object name"))
            if a.startswith("?"):
                if a not in bound:
                    raise r.fail(arg, f"unbound variable {a} in {where}", "declare it in a quantifier")
                continue
            if a in self.objects and self.fits(a, types):
                continue
            fitting = sorted(o for o in self.objects if self.fits(o, types))
            if a not in self.objects:
                close = get_close_matches(a, fitting, 3, 0.5) or get_close_matches(a, list(self.objects), 3, 0.5)
                raise r.fail(
                    arg,
                    f"unknown object {a!r} in {where}",
                    f"did you mean {' or '.join(map(repr, close))}?" if close else "declare it in (:objects ...)",
                )
            raise r.fail(
                arg,
                f"{a!r} is a {'/'.join(self.objects[a])}, but {var} of {pred!r} must be a {'/'.join(types)} in {where}",
                f"objects of that type: {', '.join(fitting[:8])}" if fitting else "",
            )

    def check_goal(self, r: _Reader, node, bound: set[str]) -> None:
        """Every atom of the goal formula (walked as written, so errors keep their location)."""
        lst = r.expect_list(node, "a formula")
        if not lst:
            return
        head = lst[0]
        if head in ("and", "or", "not", "imply"):
            for g in lst[1:]:
                self.check_goal(r, g, bound)
        elif head in ("forall", "exists") and len(lst) == 3:
            variables = r.typed_list(r.expect_list(lst[1], "variables"), True)
            self.check_goal(r, lst[2], bound | {v for v, _ in variables})
        elif head == "=" and _names(lst[1:]):
            for arg in lst[1:]:
                a = str(arg)
                if isinstance(arg, Token) and not a.startswith("?") and a not in self.objects:
                    close = get_close_matches(a, list(self.objects), 3, 0.5)
                    raise r.fail(
                        arg,
                        f"unknown object {a!r} in the goal",
                        f"did you mean {' or '.join(map(repr, close))}?" if close else "",
                    )
        elif head == "=" or head in _ORDERINGS:
            for side in lst[1:]:
                self.check_expression(r, side, "the goal", bound)
        elif isinstance(head, Token):
            self.check_atom(r, lst, "the goal", bound)

    def check_expression(self, r: _Reader, node, where: str, bound: set[str]) -> None:
        """The function terms of a numeric expression as written (numbers and operators pass)."""
        if not isinstance(node, SList) or not node or not isinstance(node[0], Token):
            return
        if node[0] in ARITHMETIC:
            for part in node[1:]:
                self.check_expression(r, part, where, bound)
        else:
            self.check_atom(r, node, where, bound, kind="function")

    def initial_values(self, r: _Reader, nodes) -> dict[GroundTerm, Fraction]:
        """The (= (f o...) v) of :init: a declared function over fitting objects, a number, each term once."""
        values: dict[GroundTerm, Fraction] = {}
        seen: dict[GroundTerm, SList] = {}
        for node in nodes:
            if len(node) != 3 or not isinstance(node[1], SList) or not node[1] or not isinstance(node[2], Token):
                raise r.fail(node, "an initial value is written (= (f o ...) number)", "for example (= (fuel t1) 10)")
            term, word = node[1], node[2]
            self.check_atom(r, term, ":init", set(), kind="function")
            value = number(word)
            if value is None:
                raise r.fail(word, f"the initial value of ({' '.join(term)}) must be a number, found {word!r}")
            key = (str(term[0]), tuple(str(a) for a in term[1:]))
            if key in seen:
                first = seen[key]
                raise r.fail(
                    node,
                    f"a second initial value for ({' '.join(term)})",
                    f"the first is at line {first.line}, column {first.col}: keep one",
                )
            seen[key] = node
            values[key] = value
        return values

    def metric(self, r: _Reader, node) -> tuple[str, tuple]:
        """(:metric minimize|maximize EXPR) with EXPR over ground function terms and total-time."""
        if len(node) != 3 or node[1] not in ("minimize", "maximize"):
            raise r.fail(
                node, "a metric is written (:metric minimize|maximize expression)", "(:metric minimize (total-cost))"
            )
        if node[2] == "total-time" or (isinstance(node[2], SList) and list(node[2]) == ["total-time"]):
            return (str(node[1]), ("total-time",))
        self.check_expression(r, node[2], "the metric", set())
        return (str(node[1]), r.expression(node[2], "the metric"))
