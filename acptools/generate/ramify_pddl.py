"""The ramification compilation written as PDDL (acptools.generate.ramify proves what is compiled):
the domain with the compiled fluents' literals dropped from every action effect and their axioms
added, and each problem with their atoms dropped from the initial state (they are derived there too).

The texts are the ones acptools writes (`Task.written_domain_text`, `Task.problem_for`), read as
s-expressions and written back, so no comment or layout of the user's file matters.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def parse(text: str) -> list:
    """PDDL text as nested lists of words (one top-level expression)."""
    stack: list[list] = [[]]
    for tok in _TOKEN.findall(text):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok.lower())
    return stack[0][0]


def write(expr) -> str:
    """Nested lists back to PDDL text."""
    if isinstance(expr, str):
        return expr
    return "(" + " ".join(write(e) for e in expr) + ")"


def _names(expr, preds) -> bool:
    """Is `expr` an atom or a negated atom of one of `preds`?"""
    if isinstance(expr, list) and expr and expr[0] == "not" and len(expr) == 2:
        expr = expr[1]
    return isinstance(expr, list) and bool(expr) and expr[0] in preds


def drop_literals(effect, preds):
    """An effect without the literals of `preds` (and without conditional effects left empty)."""
    if not isinstance(effect, list) or not effect:
        return effect
    head = effect[0]
    if head == "and":
        kept = [drop_literals(e, preds) for e in effect[1:] if not _names(e, preds)]
        return ["and"] + [e for e in kept if e != ["and"]]
    if head == "forall":
        body = drop_literals(effect[2], preds)
        return ["and"] if body == ["and"] else ["forall", effect[1], body]
    if head == "when":
        body = ["and"] if _names(effect[2], preds) else drop_literals(effect[2], preds)
        return ["and"] if body == ["and"] else ["when", effect[1], body]
    return ["and"] if _names(effect, preds) else effect


def compile_domain(domain_text: str, definitions) -> str:
    """The domain with the definitions' predicates derived instead of changed by actions."""
    preds = {d.predicate for d in definitions}
    tree = parse(domain_text)
    out = []
    for part in tree:
        if part in ([":types"], [":constants"]):
            continue  # empty sections: valid, but some readers refuse them
        if isinstance(part, list) and part and part[0] == ":requirements" and ":derived-predicates" not in part:
            part = part + [":derived-predicates"]
        if isinstance(part, list) and part and part[0] == ":action":
            part = list(part)
            k = part.index(":effect") + 1 if ":effect" in part else None
            if k is not None:
                part[k] = drop_literals(part[k], preds)
            if not any(isinstance(x, list) and x and x[0] == ":derived" for x in out):
                out.extend(parse(d.pddl()) for d in definitions)
        out.append(part)
    return "(" + "\n ".join(write(p) for p in out) + ")\n"


def compile_problem(problem_text: str, definitions) -> str:
    """The problem without the definitions' atoms in its initial state."""
    preds = {d.predicate for d in definitions}
    tree = parse(problem_text)
    return write(
        [
            [p[0]] + [a for a in p[1:] if not _names(a, preds)] if isinstance(p, list) and p and p[0] == ":init" else p
            for p in tree
        ]
    )
