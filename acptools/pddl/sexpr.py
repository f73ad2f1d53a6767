"""S-expression reader for PDDL text: nested lists of tokens that remember line and column."""

from __future__ import annotations

import re

from ..errors import PddlError


class Token(str):
    """A lower-cased PDDL word that knows where it was written."""

    line: int
    col: int

    def __new__(cls, text: str, line: int, col: int):
        tok = super().__new__(cls, text.lower())
        tok.line, tok.col = line, col
        return tok


class SList(list):
    """A parenthesised list that knows where it opened."""

    line: int = 0
    col: int = 0


_TOKEN = re.compile(r";[^\n]*|\(|\)|[^\s();]+")  # whitespace between tokens is skipped


CHECK_EVERY = 4096  # tokens read between budget checks


def read_sexpr(text: str, source: str, budget=None) -> SList:
    """Parse exactly one top-level list; `source` names the text in errors ('domain', 'problem').
    With a budget, reading stops (BudgetExceeded) once it is spent."""
    stack: list[SList] = []
    result: SList | None = None
    misaligned: SList | None = None
    line, line_start, last = 1, 0, 0
    for k, m in enumerate(_TOKEN.finditer(text)):
        if budget is not None and not k % CHECK_EVERY:
            budget.check()
        tok = m.group()
        start = m.start()
        nl = text.count("\n", last, start)
        if nl:
            line += nl
            line_start = text.rindex("\n", last, start) + 1
        last = start
        col = start - line_start + 1
        if tok[0] == ";":
            continue
        if tok == "(":
            lst = SList()
            lst.line, lst.col = line, col
            if stack:
                stack[-1].append(lst)
            elif result is not None:
                raise PddlError(
                    "text after the closing parenthesis of (define ...)",
                    f"{source} line {line}, column {col}",
                    "a file holds one domain or one problem",
                )
            stack.append(lst)
        elif tok == ")":
            if not stack:
                raise PddlError(
                    "unbalanced ')'", f"{source} line {line}, column {col}", "remove it or add the matching '('"
                )
            done = stack.pop()
            if not text[line_start:start].strip() and done.col != col:
                misaligned = done  # a ')' that starts its line closes the list opened at its column, if indented
            if not stack:
                result = done
        else:
            if not stack:
                hint = (
                    "this looks like a file name: pass pathlib.Path(...) or the file's text"
                    if "/" in tok or tok.endswith(".pddl")
                    else "PDDL text starts with (define ...)"
                )
                raise PddlError(
                    f"unexpected word {tok!r} outside parentheses", f"{source} line {line}, column {col}", hint
                )
            stack[-1].append(Token(tok, line, col))
    if stack:
        opened, why = _surplus(stack[0]) or _misaligned(misaligned) or (stack[-1], "add the missing ')'")
        raise PddlError(f"{len(stack)} unclosed '('", f"{source} line {opened.line}, column {opened.col}", why)
    if result is None:
        raise PddlError("empty text", source, "pass the PDDL text, not a file name, or load the file first")
    return result


SECTIONS = frozenset(
    {
        ":domain",
        ":requirements",
        ":types",
        ":constants",
        ":predicates",
        ":functions",
        ":action",
        ":derived",
        ":durative-action",
        ":objects",
        ":init",
        ":goal",
        ":metric",
        ":constraints",
    }
)


def _surplus(root: SList):
    """(the '(' that most likely has no ')', a suggestion) in a text left unclosed, or None: a list
    that starts with a list (PDDL never does), else the innermost list that swallowed a section."""
    todo = [root]
    while todo:
        node = todo.pop()
        if node and isinstance(node[0], SList):
            return node, "a '(' too many here? A PDDL list never starts with another list"
        todo.extend(reversed([c for c in node if isinstance(c, SList)]))
    best = None
    todo = [c for c in root if isinstance(c, SList)]
    while todo:
        node = todo.pop()
        if any(isinstance(c, SList) and c and c[0] in SECTIONS for c in node[1:]):
            best = node if best is None or (node.line, node.col) > (best.line, best.col) else best
        todo.extend(c for c in node if isinstance(c, SList))
    if best is not None:
        head = best[0] if best and isinstance(best[0], Token) else "list"
        return best, f"this ({head} ...) is never closed: add its ')' before the next section"
    return None


def _misaligned(node: SList | None):
    """The list that a line-leading ')' at another column closed: in indented PDDL, that ')' was
    meant for an outer list, so the list holds a '(' too many."""
    if node is None:
        return None
    head = node[0] if node and isinstance(node[0], Token) else "list"
    return node, f"a '(' too many inside this ({head} ...)? Its ')' stands at another column"


def where(node, source: str) -> str:
    """'line L, column C' of a token or list, for error messages."""
    line, col = getattr(node, "line", 0), getattr(node, "col", 0)
    return f"{source} line {line}, column {col}" if line else source
