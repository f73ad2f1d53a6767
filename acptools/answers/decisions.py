"""Lenient extraction of the structured answer from a model's free-text response: the per-task decisions.

The reader works in stages, one module each:

1. :mod:`.clean` (the regex pre-pass) cleans the text, yields the candidate *regions* that may hold
   the answer (the last clearly marked answer first, the unmarked response last) and picks the
   answer lines of a region;
2. :mod:`.grammar` reads those lines with a lark LALR grammar (``answer.lark``) as groups, lists,
   section labels and words, and turns groups into names, skipping prose such as ``(see above)``;
3. this module decides, per task, what the lines mean, and returns a :class:`ParsedAnswer` for the
   first region that yields a usable answer.

Per task (the functions below say the details):

* app, just: all atoms of the block, in order (duplicates kept: a plan may repeat an action).
  ``[]`` or a none phrase is an explicit empty list (``ok=True``, no items).
* nexta, reach, areach, land: one item, or "none" (``none=True``; for nexta "none" is not an answer).
  Bare atoms such as ACPBench's own ``at t3 l1-2`` are accepted only for these tasks.
* prog: positive and negative effects, from labelled sections or two bracketed lists.
* val: an integer index.

``parse_answer`` never raises on model text: when nothing usable is found it returns ``ok=False`` with
an ``error`` sentence. It raises ``ValueError`` only for an unknown task name. Typical answers take
roughly 10-150 microseconds; a 4 kB chain of thought a few hundred.
"""

from __future__ import annotations

import re

from lark import Token

from ..kinds import KINDS
from .clean import (
    AFTER_COLON,
    NONE_PHRASE,
    UNMARKED,
    answer_block,
    calls_to_groups,
    clean_text,
    collapse_groups,
    find_words,
    first_line,
    has_group,
    is_answer_line,
    mark_labels,
    regions,
    search_word,
    sentences,
    strip_bullet,
)
from .grammar import (
    EMPTY_WORDS,
    KNOWN_NAMES,
    BracketList,
    Group,
    Section,
    group_items,
    is_word,
    plausible,
    read,
    walk,
    words_to_name,
)
from .parsed import TASKS, ParsedAnswer, ParsedName, canonical_task

__all__ = ["parse_answer", "parse_name", "vocabulary"]

# the answer rules of each task, from the registry (acptools.kinds)
_SINGLE = frozenset(t for t in TASKS if KINDS[t].single)  # exactly one item expected
_NONE_OK = frozenset(t for t in TASKS if KINDS[t].none_ok)  # "None" is a valid answer
_KIND = {t: KINDS[t].items for t in TASKS if KINDS[t].items}  # what the items are: atoms or ground actions

_BARE_NO = re.compile(r"\s*no\s*[.!]?\s*\Z")
_DIGITS = re.compile(r"\d+")
_INDEX_OF = re.compile(r"index\b(?:\s+(?:is|of|number|no\.?))?\s*[:=#]?\s*(\d+)")
_NAMEISH = re.compile(r"[\d_\-]")


# --------------------------------------------------------------------------------------------------
# app, just: lists of actions


def _explicit_empty(block: str, elems) -> bool:
    if any(isinstance(e, BracketList) for e in elems):
        return True  # only called when no items were found, so every list is empty
    return bool(search_word(NONE_PHRASE, block) or _BARE_NO.match(block))


def _list_task(task: str, region: str, marked: bool) -> ParsedAnswer | None:
    """All atoms of the answer block, in order; ``[]`` or a none phrase is an explicit empty list."""
    block = answer_block(region, marked)
    if not block.strip():
        # "There are no applicable actions." -- no group anywhere, but an explicit none
        if not marked and not has_group(region) and (search_word(NONE_PHRASE, region) or _BARE_NO.match(region)):
            return ParsedAnswer(task, True)
        return None
    elems = read(block)
    items = tuple(pn for pn, _neg in walk(elems))
    if items:
        return ParsedAnswer(task, True, items=items)
    if _explicit_empty(block, elems):
        return ParsedAnswer(task, True)
    return None


# --------------------------------------------------------------------------------------------------
# nexta, reach, areach, land: one item


def _bare(line: str, marked: bool) -> ParsedName | None:
    """A bare answer line 'at t3 l1-2' (no parentheses) as one atom, or None.

    Up to 8 words, no brackets or colons, plausible as an atom. Outside a marked answer the line must
    also look like PDDL (a digit, '_' or '-' somewhere, as in 'l1-2'), so 'hello world' is not an atom
    while 'Answer: clear a' is.
    """
    s = strip_bullet(line).rstrip(" \t.;!")
    if not s or any(c in s for c in "()[]{}:") or search_word(NONE_PHRASE, s):
        return None
    words = [w for w in re.split(r"[\s,'\"]+", s) if w]
    if not 1 <= len(words) <= 8 or (not marked and not _NAMEISH.search(s)):
        return None
    pn = words_to_name(words)
    return pn if pn is not None and plausible(pn) else None


def _none_outside(line: str):
    """The first none phrase of `line` that is not inside parentheses ('(nothing-else x)' is a name)."""
    for m in find_words(NONE_PHRASE, line):
        before = line[: m.start()]
        if before.count("(") <= before.count(")"):
            return m
    return _BARE_NO.match(line)


def _decide_line(task: str, line: str, marked: bool) -> ParsedAnswer | None:
    """One answer line of a single-item task: its first group, or a none phrase if that comes first,
    or a bare atom (possibly followed by a remark in parentheses: ``at t3 l1-2 (never true)``, which
    then needs an argument and a digit, ``_`` or ``-``)."""
    m = _none_outside(line)
    head = line[: m.start()] if m else line
    lead = head.split("(", 1)[0]
    if lead != head and _NAMEISH.search(lead):  # "at t3 l1-2 (never reachable)": bare atom, then a remark
        pn = _bare(lead, marked)
        if pn is not None and pn.args:
            return ParsedAnswer(task, True, items=(pn,))
    for pn, _neg in walk(read(head)):
        return ParsedAnswer(task, True, items=(pn,))
    if m:
        if task in _NONE_OK:
            return ParsedAnswer(task, True, none=True)
        # nexta: "none" is not an answer, but an action may still follow on the line
        for pn, _neg in walk(read(line[m.end() :])):
            return ParsedAnswer(task, True, items=(pn,))
        return ParsedAnswer(
            task,
            False,
            error="the answer says there is no such action, "
            "but this task needs one ground action such as '(name arg1 arg2)'",
        )
    pn = _bare(line, marked)
    if pn is not None:
        return ParsedAnswer(task, True, items=(pn,))
    return None


def _single_task(task: str, region: str, marked: bool) -> ParsedAnswer | None:
    """One item. After a marker the first line decides (else the answer block). Without a marker: a
    first sentence that leads with the answer (``(a x).``, ``None. ...``, a bare line) decides;
    otherwise the *last* sentence that holds a group or a none phrase does.

    None phrases: "none", "no such", "there is/are no", "no <noun> ...", "does not exist", "nothing",
    "n/a", ``[]``, "all ... are reachable". They give ``none=True`` for reach/areach/land; for nexta
    "none" is not an answer (``ok=False``, says why).
    """
    if marked:
        res = _decide_line(task, first_line(region), True)
        if res is not None:
            return res
        block = answer_block(region, True)
        return _decide_line(task, block, True) if block.strip() else None
    lines = [line for line in region.split("\n") if line.strip()]
    if not lines:
        return None
    lead = sentences(lines[0])[0]  # a response that leads with its answer: "(a x).", "None. ..."
    first = strip_bullet(lead)
    if (
        (is_answer_line(first) and has_group(first))
        or (NONE_PHRASE.match(first) and not has_group(first))
        or _bare(lines[0], False) is not None
    ):
        res = _decide_line(task, lead if has_group(first) or NONE_PHRASE.match(first) else lines[0], False)
        if res is not None and (res.ok or len(lines) == 1):
            return res
    for line in reversed(lines):
        for sent in reversed(sentences(line)):
            if has_group(sent) or search_word(NONE_PHRASE, sent) or _BARE_NO.match(sent):
                res = _decide_line(task, sent, False)
                if res is not None:
                    return res
    return None


# --------------------------------------------------------------------------------------------------
# prog: positive and negative effects


def _section_answers(part) -> bool:
    """A labelled prog section holds an answer: an atom, a list, or a word such as 'none'."""
    for e in part:
        if isinstance(e, (BracketList, Group)):
            if isinstance(e, BracketList) or next(group_items(e), None) is not None:
                return True
        elif is_word(e) and e.lower() in EMPTY_WORDS:
            return True
    return False


def _labelled_effects(elems: list, sections: list[Section]) -> ParsedAnswer:
    """The atoms after the last positive label go to ``items``, those after the last negative label to
    ``negative``; a later label followed by prose only does not replace an earlier section, and
    "no <kind> effects" empties it. Before the first label only ``(not p)`` is taken."""
    before = [e for e in elems if not isinstance(e, Section)]
    chosen: dict[str, list] = {}
    prev = before
    for sec in sections:
        said_no = bool(prev) and is_word(prev[-1]) and prev[-1].lower() == "no"  # "no negative effects"
        # a later label of the same kind wins, unless it is followed by prose only (no atom,
        # no list, no "none"): "... follow from the delete effects."
        if said_no or sec.kind not in chosen or _section_answers(sec.children):
            chosen[sec.kind] = [] if said_no else sec.children
        prev = sec.children
    pos: list[ParsedName] = []
    neg: list[ParsedName] = []
    for kind, part in chosen.items():
        for pn, negated in walk(part):
            (neg if negated or kind == "neg" else pos).append(pn)
    for pn, negated in walk(before):
        if negated:
            neg.append(pn)
    return ParsedAnswer("prog", True, items=tuple(pos), negative=tuple(neg))


def _unlabelled_effects(elems: list) -> ParsedAnswer | None:
    """The last two bracketed lists are positive then negative; a single list counts only when it
    uses ``(not p)``."""
    top = [e for e in elems if isinstance(e, BracketList)]
    while len(top) == 1 and sum(isinstance(c, BracketList) for c in top[0].children) >= 2:
        top = [c for c in top[0].children if isinstance(c, BracketList)]
    if len(top) >= 2:
        p, n = top[-2], top[-1]
        pos = [pn for pn, negated in walk([p]) if not negated]
        neg = [pn for pn, negated in walk([p]) if negated] + [pn for pn, _x in walk([n])]
        return ParsedAnswer("prog", True, items=tuple(pos), negative=tuple(neg))
    found = list(walk(elems))
    if any(negated for _pn, negated in found):
        return ParsedAnswer(
            "prog", True, items=tuple(pn for pn, g in found if not g), negative=tuple(pn for pn, g in found if g)
        )
    return None


def _prog_task(region: str, marked: bool) -> ParsedAnswer | None:
    """Labelled sections if there are any (see `mark_labels` for the labels), else bracketed lists.
    "none", "-", ``[]`` mean empty; ``(not p)`` always counts as negative. Unmarked responses keep only
    label and answer lines."""
    region = mark_labels(region)
    if marked:
        block = answer_block(region, True)
    else:
        # keep label lines and answer lines, drop prose: "(at c x) no longer holds because ..."
        keep = [line for line in region.split("\n") if is_answer_line(strip_bullet(line))]
        block = "\n".join(keep)
    if not block.strip():
        return None
    elems = read(block, keep_words="prog")
    sections = [e for e in elems if isinstance(e, Section)]
    if sections:
        return _labelled_effects(elems, sections)
    return _unlabelled_effects(elems)


# --------------------------------------------------------------------------------------------------
# val: an index


def _val_task(region: str, marked: bool) -> ParsedAnswer | None:
    """An explicit ``index N`` wins (the first after a marker, the last in unmarked text); otherwise the
    first integer of the region (``03`` -> 3)."""
    said = [m for m in find_words(_INDEX_OF, region) if _plain_int(region, m.start(1), m.end(1))]
    if said:  # "index 2" names the index outright: the first one after a marker, else the last one
        return ParsedAnswer("val", True, index=int(said[0 if marked else -1].group(1)))
    for m in _DIGITS.finditer(region):
        if _plain_int(region, m.start(), m.end()):
            return ParsedAnswer("val", True, index=int(m.group()))
    return None


def _plain_int(text: str, i: int, j: int) -> bool:
    """digits text[i:j] are a number, not part of a name ('l1', 'l1-2'), an ordinal ('5th', usually
    1-based), a decimal ('2.5') or a '0-based' qualifier."""
    if i and (text[i - 1].isalnum() or text[i - 1] in "_.-"):
        return False
    nxt = text[j : j + 1]
    if nxt and (nxt.isalnum() or nxt in "_-" and not re.match(r"-\s", text[j : j + 2])):
        return False
    if nxt == "." and text[j + 1 : j + 2].isdigit():
        return False
    return not re.match(r"\s*-?\s*(?:based|indexed|index\b)", text[j : j + 12])


# --------------------------------------------------------------------------------------------------
# the whole response, and single names


def _colon_region_ok(task: str, region: str) -> bool:
    """After a weak '... is:' marker the very next line must be the answer itself, not more prose:
    "The precondition of (a x) is: (p y), which is false" is reasoning, not an answer."""
    first = strip_bullet(first_line(region))
    if not first:
        return False
    if task == "val":
        return any(_plain_int(first, m.start(), m.end()) for m in _DIGITS.finditer(first))
    if is_answer_line(first) or NONE_PHRASE.match(first) or _BARE_NO.match(first):
        return True
    return task in _SINGLE and _bare(first, True) is not None


MAX_REGION_CHARS = 64_000  # an answer block is short: a marked region keeps its start, the rest its end


def parse_answer(task: str, text: str, budget=None, known=()) -> ParsedAnswer:
    """Read the answer of `task` (a task or group name) from a model's response `text`.

    Never raises on odd text: returns ``ok=False`` and an ``error`` sentence instead. Raises
    ``ValueError`` for an unknown task name. The rules are in the module docstring. Each candidate
    region is read from at most MAX_REGION_CHARS characters (the start of a marked region, the end
    of an unmarked one), so time grows linearly with the text; with a `Budget` (checked between
    regions) a huge response raises BudgetExceeded instead of running on. `known`: names the task
    defines (predicates, actions, objects; see `vocabulary`), read as names even where they are
    English words ('(here t1 p3)').
    """
    token = KNOWN_NAMES.set(frozenset(known))
    try:
        return _parse_answer(task, text, budget)
    finally:
        KNOWN_NAMES.reset(token)


def vocabulary(task) -> frozenset[str]:
    """The names a grounded task defines: its predicates, action schemas and objects (lower case)."""
    return frozenset(n.lower() for n in (*task.domain.predicates, *task.domain.actions, *task.types.objects))


def _parse_answer(task: str, text: str, budget) -> ParsedAnswer:
    task = canonical_task(task)
    if task not in TASKS:
        raise ValueError(f"{task!r} is a generated form: its answers are read by acptools.answers.form_readers")
    if not isinstance(text, str):
        return ParsedAnswer(task, False, error=f"the response must be text, got {type(text).__name__}")
    if not text.strip():
        return ParsedAnswer(task, False, error="the response is empty")
    try:
        clean = clean_text(text)
        for region, level in regions(clean):
            if budget is not None:
                budget.check()
            if len(region) > MAX_REGION_CHARS:
                region = region[:MAX_REGION_CHARS] if level != UNMARKED else region[-MAX_REGION_CHARS:]
            if level == AFTER_COLON:
                if not _colon_region_ok(task, region):
                    continue
                if task == "val":
                    region = first_line(region)
            marked = level != UNMARKED
            if task == "val":
                res = _val_task(region, marked)
            elif task == "prog":
                res = _prog_task(region, marked)
            elif task in _SINGLE:
                res = _single_task(task, region, marked)
            else:
                res = _list_task(task, region, marked)
            if res is not None:
                return res
    except RecursionError:  # pathological nesting such as 10**4 "(" characters
        return ParsedAnswer(task, False, error="the response nests parentheses too deeply to read")
    return ParsedAnswer(task, False, error=_failure(task, clean))


def _failure(task: str, clean: str) -> str:
    """The error sentence when no region gave an answer: what was missing and how to write it."""
    if task == "val":
        return (
            "no index found: answer with the 0-based position of the first inapplicable action, e.g. 'Answer: 3' "
            "(ordinals such as '4th' are not read, they are usually 1-based)"
        )
    if task == "prog":
        return (
            "could not tell positive from negative effects: write 'Positive effects: [(p a)] "
            "Negative effects: [(q b)]' or two bracketed lists"
        )
    kind = _KIND[task]
    if "(" not in clean:
        hint = f"no parenthesised {kind} found"
    else:
        hint = f"no {kind} found (parenthesised text read as prose or lifted schemas with ?variables)"
    if task in _NONE_OK:
        return f"{hint}: answer with one {kind} such as '(name arg1 arg2)', or 'None'"
    if task == "nexta":
        return f"{hint}: answer with one {kind} such as '(name arg1 arg2)'"
    return f"{hint}: answer with a list such as '[(name arg1 arg2), (name arg3)]'"


def parse_name(text: str) -> ParsedName:
    """One atom or action written leniently: '(Sail L1, l2)' or 'sail l1 l2' -> ParsedName('sail', ('l1', 'l2')).

    Parentheses, commas, quotes, surrounding whitespace and case are optional; nothing else may be
    present. Raises ValueError with a message naming the problem.
    """
    if not isinstance(text, str):
        raise ValueError(f"expected an atom or action as text, got {type(text).__name__}")
    if not text.strip():
        raise ValueError("empty atom/action: write it like '(name arg1 arg2)'")
    elems = read(collapse_groups(calls_to_groups(text.strip().strip("`").lower())), keep_words="all")
    groups = [e for e in elems if isinstance(e, Group)]
    lists = [e for e in elems if isinstance(e, BracketList)]
    words = [e for e in elems if is_word(e)]
    if lists and not groups and not words and len(lists) == 1:  # "[(a b)]"
        elems = lists[0].children
        groups = [e for e in elems if isinstance(e, Group)]
        words = [e for e in elems if is_word(e)]
        lists = [e for e in elems if isinstance(e, BracketList)]
    if lists or any(isinstance(e, Token) and e.type != "WORD" for e in elems):
        raise ValueError(f"{text!r} is not a single atom or action: it holds a list or a label")
    if groups and words:
        raise ValueError(f"{text!r} has words outside the parentheses; pass one '(name arg1 arg2)'")
    if len(groups) > 1:
        raise ValueError(f"{text!r} holds {len(groups)} atoms/actions; pass one at a time")
    if groups:
        if groups[0].subs:
            raise ValueError(f"{text!r} has nested parentheses; pass one flat '(name arg1 arg2)'")
        words = groups[0].words
    pn = words_to_name(words)
    if pn is None:
        raise ValueError(f"{text!r} has no name inside the parentheses")
    return pn
