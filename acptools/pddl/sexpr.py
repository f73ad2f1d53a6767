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
                raise PddlError("text after the closing parenthesis of (define ...)", f"{source} line {line}, column {col}",
                                "a file holds one domain or one problem")
            stack.append(lst)
        elif tok == ")":
            if not stack:
                raise PddlError("unbalanced ')'", f"{source} line {line}, column {col}", "remove it or add the matching '('")
            done = stack.pop()
            if not stack:
                result = done
        else:
            if not stack:
                hint = ("this looks like a file name: pass pathlib.Path(...) or the file's text"
                        if "/" in tok or tok.endswith(".pddl") else "PDDL text starts with (define ...)")
                raise PddlError(f"unexpected word {tok!r} outside parentheses", f"{source} line {line}, column {col}", hint)
            stack[-1].append(Token(tok, line, col))
    if stack:
        opened = stack[-1]
        raise PddlError(f"{len(stack)} unclosed '('", f"{source} line {opened.line}, column {opened.col}",
                        "add the missing ')'")
    if result is None:
        raise PddlError("empty text", source, "pass the PDDL text, not a file name, or load the file first")
    return result


def where(node, source: str) -> str:
    line, col = getattr(node, "line", 0), getattr(node, "col", 0)
    return f"{source} line {line}, column {col}" if line else source
