"""PDDL text the numeric oracle hands to unified-planning, rewritten where UP's reader falls short.

UP 1.3's PDDLReader rejects two PDDL 2.1 / PDDL 2.2 constructs that the numeric corpus uses:
`(scale-up f e)` / `(scale-down f e)` (PDDL 2.1 defines them as f := f * e and f := f / e) and
`(:derived ...)` predicates. This module rewrites them at the s-expression level: scaling effects become
`assign`s, and every use of a (non-recursive) derived predicate is replaced by its body with the
arguments substituted and the body's own quantified variables renamed apart. Text without either
construct is returned unchanged. Shares no code with acptools."""

from __future__ import annotations

import itertools
import re


class PddlRewriteError(ValueError):
    """The text uses a construct the rewrite cannot express (recursive derived predicates, ...)."""


def parse_sexp(text: str) -> list:
    """All top-level s-expressions of `text`, lower-cased, comments dropped."""
    tokens = re.findall(r"\(|\)|[^\s()]+", re.sub(r";[^\n]*", "", text).lower())
    stack: list[list] = [[]]
    for token in tokens:
        if token == "(":
            stack.append([])
        elif token == ")":
            if len(stack) == 1:
                raise PddlRewriteError("unbalanced ')' in the PDDL text")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token)
    if len(stack) != 1:
        raise PddlRewriteError("unbalanced '(' in the PDDL text")
    return stack[0]


def to_text(sexp) -> str:
    if isinstance(sexp, str):
        return sexp
    return "(" + " ".join(to_text(s) for s in sexp) + ")"


def _walk(sexp):
    yield sexp
    if isinstance(sexp, list):
        for s in sexp:
            yield from _walk(s)


def needs_rewrite(domain_text: str) -> bool:
    lowered = re.sub(r";[^\n]*", "", domain_text).lower()
    return bool(re.search(r"\(\s*(scale-up|scale-down|:derived)\b", lowered))


def derived_definitions(domain_text: str) -> dict[str, tuple[list[str], list]]:
    """Derived predicate name -> (its typed parameter list, its body)."""
    (domain,) = parse_sexp(domain_text)
    return {s[1][0]: (s[1][1:], s[2]) for s in domain[2:] if isinstance(s, list) and s[:1] == [":derived"]}


def _variables(typed_list: list[str]) -> list[str]:
    return [t for t in typed_list if t.startswith("?")]


def _check_not_recursive(defs: dict[str, tuple[list[str], list]]) -> None:
    uses = {
        name: {s[0] for s in _walk(body) if isinstance(s, list) and s and s[0] in defs}
        for name, (_, body) in defs.items()
    }
    seen: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            raise PddlRewriteError(
                f"derived predicate {name} is recursive ({' -> '.join(path + (name,))}); "
                "the oracle inlines derived predicates and cannot expand a recursive one"
            )
        if name not in seen:
            for used in uses[name]:
                visit(used, path + (name,))
            seen.add(name)

    for name in defs:
        visit(name, ())


class _Inliner:
    """Replaces derived atoms by their bodies, renaming bound variables apart."""

    def __init__(self, defs: dict[str, tuple[list[str], list]]):
        self.defs = defs
        self.fresh = itertools.count()

    def expand(self, sexp):
        if isinstance(sexp, str) or not sexp:
            return sexp
        if sexp[0] in self.defs and all(isinstance(a, str) for a in sexp[1:]):
            typed, body = self.defs[sexp[0]]
            params = _variables(typed)
            if len(params) != len(sexp) - 1:
                raise PddlRewriteError(f"derived predicate {sexp[0]} takes {len(params)} arguments: {to_text(sexp)}")
            return self.expand(self._instantiate(body, dict(zip(params, sexp[1:]))))
        return [self.expand(s) for s in sexp]

    def _instantiate(self, body, binding: dict[str, str]):
        if isinstance(body, str):
            return binding.get(body, body)
        if body and body[0] in ("exists", "forall") and len(body) == 3:
            suffix = f"-d{next(self.fresh)}"
            inner = dict(binding)
            renamed = []
            for token in body[1]:
                if token.startswith("?"):
                    inner[token] = token + suffix
                    renamed.append(token + suffix)
                else:
                    renamed.append(token)
            return [body[0], renamed, self._instantiate(body[2], inner)]
        return [self._instantiate(b, binding) for b in body]


def _rewrite_effect(sexp):
    """scale-up / scale-down as the assignments PDDL 2.1 defines them to be."""
    if isinstance(sexp, str):
        return sexp
    if len(sexp) == 3 and sexp[0] in ("scale-up", "scale-down"):
        op = "*" if sexp[0] == "scale-up" else "/"
        return ["assign", sexp[1], [op, sexp[1], _rewrite_effect(sexp[2])]]
    return [_rewrite_effect(s) for s in sexp]


def rewrite_domain(domain_text: str, probe_derived: bool = False) -> str:
    """The domain as UP's reader accepts it. With `probe_derived`, each derived predicate P also becomes
    an effect-free action `derived--P` whose precondition is P's body: grounding it evaluates P."""
    if not needs_rewrite(domain_text):
        return domain_text
    defs = derived_definitions(domain_text)
    _check_not_recursive(defs)
    inliner = _Inliner(defs)
    (domain,) = parse_sexp(domain_text)
    out = domain[:2]
    for section in domain[2:]:
        if isinstance(section, list) and section and section[0] == ":derived":
            continue
        if isinstance(section, list) and section and section[0] == ":requirements":
            section = [r for r in section if r != ":derived-predicates"]
        elif isinstance(section, list) and section and section[0] == ":predicates":
            section = [section[0]] + [p for p in section[1:] if not (isinstance(p, list) and p[0] in defs)]
        elif isinstance(section, list) and section and section[0] == ":action":
            section = _rewrite_effect(inliner.expand(section))
        out.append(section)
    if probe_derived:
        for name, (typed, body) in defs.items():
            out.append(
                [
                    ":action",
                    probe_action_name(name),
                    ":parameters",
                    typed,
                    ":precondition",
                    inliner.expand(body),
                    ":effect",
                    ["and"],
                ]
            )
    return to_text(out)


def probe_action_name(predicate: str) -> str:
    return "derived--" + predicate


def rewrite_problem(domain_text: str, problem_text: str) -> str:
    """The problem with derived predicates in its goal inlined (unchanged when there are none)."""
    defs = derived_definitions(domain_text) if needs_rewrite(domain_text) else {}
    if not defs:
        return problem_text
    (problem,) = parse_sexp(problem_text)
    inliner = _Inliner(defs)
    for section in problem[2:]:
        if isinstance(section, list) and section and section[0] == ":init":
            for fact in section[1:]:
                if isinstance(fact, list) and fact and fact[0] in defs:
                    raise PddlRewriteError(f"the init lists the derived atom {to_text(fact)}")
    return to_text([inliner.expand(s) if isinstance(s, list) and s[:1] == [":goal"] else s for s in problem])
