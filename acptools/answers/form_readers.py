"""Lenient readers for the answers of the generated forms (yes/no, one of four options, a count, a
step or None); lists, effects, single names and plans reuse the ACPBench Hard reader
(`parse_answer`).

Each reader looks where `parse_answer` looks (clean.regions: the last clearly marked answer first,
the unmarked response last) and returns a `Reading`: `ok`, the `value` read, and an `error` sentence
when nothing usable was found. They never raise on model text.

* yes/no: yes, no, true, false (any case, markdown stripped). In a marked answer the first such word
  decides; in unmarked text the first word of the response if it is one, else the last one ("no"
  only where it stands alone: "no block is on top" is not an answer).
* one of four options: a letter (``B``, ``(B)``, ``B.``, ``option B``) or the option's text.
* a count: the integer `parse_answer('val', ...)` reads ("Answer: 3", "3 actions").
* a step or None: an integer, or a none phrase ("None", "every action can be executed" is not read:
  write None).
* an exact number: an integer, a decimal or a fraction ("3", "-2.50", "5/4"), read exactly as a
  Fraction (never through a float); in a marked answer the first number of its first line, else the
  last number of the response.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from .clean import NONE_PHRASE, UNMARKED, clean_text, first_line, regions, search_word
from .decisions import parse_answer

# "no" decides only where it stands alone: "No, ...", "No it is not", but not "no block is on top"
_NO = r"(no)(?!\s+(?!it\b|this\b|that\b|because\b|since\b|as\b|the\s+(?:action|fact|sequence)\b)[a-z])"
_DECISION = re.compile(r"\b(?:(yes|true|false)|" + _NO + r")\b")
_LEADING = re.compile(r"[\W_]*(?:(yes|true|false)|" + _NO + r")\b")
# after a marker: the letter first ("B", "(b) because ..."), but "a plan ..." is an article, not option A
_LETTER_MARKED = re.compile(r"[\s(\[*'\"]*(?:option|choice)?\s*\(?(?:([b-d])|(a)(?!\s+[a-z]))\)?(?:[\s.):,;!]|$)")
# a letter where it ends a clause: "option b", "the correct option is (c).", "(b)", a line "d."
_END = r"(?=\s*(?:[.):,;!]|$))"
_LETTER = re.compile(
    r"(?:\b(?:option|choice|answer)\s+(?:is\s*:?\s*)?\(?([a-d])\)?" + _END + r"|\(([a-d])\)|^[\s>*-]*([a-d])[.)]?\s*$)",
    re.M,
)
# an exact number: 3, -2.5, 5/4 (not part of a name such as t1 or a version such as 1.2.3)
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:\s*/\s*\d+)?(?![\w]|\.\d)")
_VALUES = {"yes": True, "true": True, "no": False, "false": False}


@dataclass(frozen=True)
class Reading:
    """What a generated form's reader found: the value, or why nothing could be read."""

    ok: bool
    value: object = None
    error: str = ""


def _bool_in(region: str, marked: bool) -> bool | None:
    if marked:
        m = _LEADING.match(first_line(region)) or _DECISION.search(first_line(region)) or _DECISION.search(region)
        return None if m is None else _VALUES[m.group(1) or m.group(2)]
    m = _LEADING.match(region)
    if m:
        return _VALUES[m.group(1) or m.group(2)]
    found = [m.group(1) or m.group(2) for m in _DECISION.finditer(region)]
    return _VALUES[found[-1]] if found else None


def read_bool(text: str) -> Reading:
    """Yes/no (or True/False) from a response."""
    if not isinstance(text, str) or not text.strip():
        return Reading(False, error="the response is empty")
    for region, level in regions(clean_text(text)):
        v = _bool_in(region, level != UNMARKED)
        if v is not None:
            return Reading(True, v)
    return Reading(False, error="no yes/no answer found: answer with yes or no (or True or False)")


def _option_text(region: str, options) -> int | None:
    """The one option whose text the region holds (an option inside a longer one does not count)."""
    texts = [re.sub(r"\s+", " ", o.strip().rstrip(".").lower()) for o in options]
    flat = re.sub(r"\s+", " ", region)
    hits = [k for k, t in enumerate(texts) if t and t in flat]
    hits = [k for k in hits if not any(j != k and texts[k] in texts[j] and texts[j] in flat for j in hits)]
    return hits[0] if len(hits) == 1 else None


def read_choice(text: str, options, labels=("A", "B", "C", "D")) -> Reading:
    """The 0-based index of the chosen option: its letter or its text."""
    if not isinstance(text, str) or not text.strip():
        return Reading(False, error="the response is empty")
    letters = [str(x).lower() for x in labels]
    for region, level in regions(clean_text(text)):
        if level != UNMARKED:
            m = _LETTER_MARKED.match(first_line(region))
            if m and (m.group(1) or m.group(2)) in letters:
                return Reading(True, letters.index(m.group(1) or m.group(2)))
        else:
            found = [next(g for g in m.groups() if g) for m in _LETTER.finditer(region)]
            found = [f for f in found if f in letters]
            if found:
                return Reading(True, letters.index(found[-1]))
        k = _option_text(region, options)
        if k is not None:
            return Reading(True, k)
    return Reading(
        False, error=f"no option found: answer with one letter ({', '.join(map(str, labels))}) or the option's text"
    )


def read_count(text: str) -> Reading:
    """A non-negative integer."""
    p = parse_answer("val", text)
    if not p.ok or p.index is None:
        return Reading(False, error="no integer found: answer with a number, e.g. 'Answer: 3'")
    return Reading(True, p.index)


def read_step(text: str) -> Reading:
    """A step number, or None (value None) when the answer says there is none."""
    if isinstance(text, str):
        for region, level in regions(clean_text(text)):
            head = first_line(region) if level != UNMARKED else region
            if level != UNMARKED and search_word(NONE_PHRASE, head) and not re.search(r"\d", head):
                return Reading(True, None)
            if level == UNMARKED and search_word(NONE_PHRASE, region) and not re.search(r"\d", region):
                return Reading(True, None)
    p = parse_answer("val", text)
    if p.ok and p.index is not None:
        return Reading(True, p.index)
    return Reading(False, error="no step found: answer with the step number, or None")


def _numbers(region: str) -> list[Fraction]:
    out = []
    for m in _NUMBER.finditer(region):
        try:
            out.append(Fraction(re.sub(r"\s+", "", m.group())))
        except ZeroDivisionError:
            continue
    return out


def read_value(text: str) -> Reading:
    """An exact number (a Fraction): an integer, a decimal or a fraction such as 5/4."""
    if not isinstance(text, str) or not text.strip():
        return Reading(False, error="the response is empty")
    for region, level in regions(clean_text(text)):
        marked = level != UNMARKED
        found = _numbers(first_line(region)) if marked else []
        found = found or _numbers(region)
        if found:
            return Reading(True, found[0] if marked else found[-1])
    return Reading(False, error="no number found: answer with the exact value, e.g. 'Answer: 2.5' or 'Answer: 5/4'")
