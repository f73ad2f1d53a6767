"""The facts a record's context states, as text: the current (or initial) state, the goal and the
facts that never change, each split into single facts, so an answerer can copy from them.

Contexts list facts the way ACPBench's and acptools' do ("... the following facts hold: A, B, and C;
all other facts ... The goal is to reach a state where the following facts hold: X and Y."). A
context that summarises its state instead ("c5 and c3 are at l2") gives fragments that rarely match
an option: copying from such a state is as hard for a model as for this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_END = r"\.(?=\s|$)"  # a sentence ends at a period followed by a space or the end
STATE = re.compile(
    r"(?:Currently|Initially),\s*(?:the following facts hold:\s*)?(.*?)"
    r"(?:;\s*all other facts[^.]*)?" + _END,
    re.S,
)
GOAL = re.compile(
    r"The goal is to reach a state where (?:the following facts hold|one of the following holds):"
    r"\s*(.*?)" + _END,
    re.S,
)
STATIC = re.compile(r"The following facts never change:\s*(.*?)" + _END, re.S)
NOTHING_HOLDS = "none of the facts that can change holds"


def normal(text: str) -> str:
    """Lower case, single spaces, no quotes or closing punctuation around: how texts are compared."""
    return " ".join(str(text).lower().split()).strip(" .;:\"'")


def split_facts(segment: str) -> list[str]:
    """'A, B, and C' / 'A and B' / 'A' -> the facts, split only outside parentheses (generic phrases
    are written 'at(c0, l1)')."""
    parts, depth, start = [], 0, 0
    sep = ", " if _top_level(segment, ", ") else " and "
    i = 0
    while i < len(segment):
        ch = segment[i]
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and segment.startswith(sep, i):
            parts.append(segment[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    parts.append(segment[start:])
    out = []
    for p in parts:
        p = normal(re.sub(r"^\s*(?:and|or)\s+", "", p))
        p = normal(p[1:-1]) if p.startswith("(") and p.endswith(")") and " " in p else p  # a disjunct
        if p and p != NOTHING_HOLDS:
            out.append(p)
    return out


def _top_level(text: str, sep: str) -> bool:
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and text.startswith(sep, i):
            return True
    return False


def _facts(pattern: re.Pattern, context: str) -> tuple[str, ...]:
    m = pattern.search(context)
    return tuple(split_facts(m.group(1))) if m else ()


@dataclass(frozen=True)
class Facts:
    """The facts a context states: of its state, of its goal and the static ones (normalised)."""

    state: tuple[str, ...]
    goal: tuple[str, ...]
    static: tuple[str, ...]

    @classmethod
    def of(cls, context: str) -> Facts:
        """The facts of a record's context (empty tuples for what it does not state)."""
        return cls(_facts(STATE, context or ""), _facts(GOAL, context or ""), _facts(STATIC, context or ""))

    @property
    def all(self) -> tuple[str, ...]:
        """Every fact the context states."""
        return self.state + self.goal + self.static


def mentions(text: str, facts) -> bool:
    """Does `text` quote one of `facts` whole (not as part of a longer word: 'l1' is not in 'l10')?"""
    hay = normal(text)
    for fact in facts:
        start = hay.find(fact)
        while start >= 0:
            end = start + len(fact)
            if (start == 0 or not _word(hay[start - 1])) and (end == len(hay) or not _word(hay[end])):
                return True
            start = hay.find(fact, start + 1)
    return False


def _word(ch: str) -> bool:
    return ch.isalnum() or ch in "_-"


def option_kind(option: str) -> str:
    """An option's words without the object names (every word with a digit in it): 'sail from l0 to
    l1' -> 'sail from to'. Options of one kind are alike but for the objects they name."""
    return normal(re.sub(r"[\w-]*\d[\w-]*", " ", option))
