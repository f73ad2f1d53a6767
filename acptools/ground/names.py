"""Lenient reading of atom and action names: '(Sail L1, l2)' -> ('sail', ('l1', 'l2'))."""

from __future__ import annotations

import difflib
import re

from ..errors import UnknownNameError

_WORD = re.compile(r"[^\s(),\[\]'\"`]+")


def split_name(text: str, what: str = "name", where: str = "") -> tuple[str, tuple[str, ...]]:
    """Words of one atom/action, lower-cased; parentheses, commas and extra spaces are optional."""
    if not isinstance(text, str):
        raise UnknownNameError(f"expected a {what} as a string, got {type(text).__name__}", where)
    if text.count("(") > 1:
        raise UnknownNameError(f"{text!r} holds more than one {what}", where, f"pass one {what} at a time")
    if "\x00" in text:
        raise UnknownNameError(f"a {what} must not contain a NUL character", where)
    words = _WORD.findall(text.lower())
    if not words:
        raise UnknownNameError(f"empty {what}", where, "write it like '(name arg1 arg2)'")
    return words[0], tuple(words[1:])


def render(name: str, args) -> str:
    """('sail', ('l0', 'l1')) -> '(sail l0 l1)', the canonical name."""
    return f"({' '.join((name, *args))})"


def did_you_mean(word: str, options) -> str:
    """'did you mean 'x'?' for the closest options, or '' when none is close."""
    close = difflib.get_close_matches(word, list(options), n=3, cutoff=0.5)
    return "did you mean " + " or ".join(repr(c) for c in close) + "?" if close else ""


def split_plan(plan) -> list[str]:
    """A plan as a list of action strings, or one string '(a x) (b y)' / one action per line."""
    if isinstance(plan, str):
        found = re.findall(r"\([^()]*\)", plan)
        if found:
            return found
        return [line for line in (p.strip() for p in plan.splitlines()) if line]
    return list(plan)
