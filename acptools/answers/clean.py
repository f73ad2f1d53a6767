"""The regex pre-pass: clean a response, find the regions that may hold its answer, pick the answer lines.

:func:`clean_text` normalises the text, :func:`regions` yields the candidate regions in the order
they are tried, :func:`answer_block` picks the lines of a region that hold the answer, and
:func:`mark_labels` replaces prog section labels by the grammar's POS/NEG characters.

The response is lower-cased first, so no pattern needs re.I. Patterns start with a literal (never
with \\b or an optional group): Python's re then skips ahead quickly, which keeps a 4 kB chain of
thought well under a millisecond. Word boundaries before a match are checked by :func:`find_words`.
"""

from __future__ import annotations

import re

from .grammar import NEG_MARK, POS_MARK

_THINK_END = re.compile(r"</think\s*>")
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)[^\n]*$", re.M)
_DROP = str.maketrans("", "", "*`$" + POS_MARK + NEG_MARK)  # markup, and the label characters of the grammar
_HTML = re.compile(r"<br\s*/?>|</?p>|</?(?:b|strong|em|i|code|pre)>")
_LATEX = re.compile(r"\\(?:text|mathrm|texttt|textbf|mathtt)\{([^{}]*)\}|\\[()\[\]]")
_WORD_BEFORE = re.compile(r"[a-z][\w\-]*\Z")
_CALL_ARGS = re.compile(r"[^()\n]*\w[^()\n]*\)")
_INNER = re.compile(r"\(([^()]{0,400})\)")
_TAG = re.compile(r"<answer>(.*?)(?:</answer>|\Z)", re.S)
_BOXED = re.compile(r"\\boxed\s*\{((?:[^{}]|\{[^{}]*\})*)\}")

_ANSWER = re.compile(r"answers?\b")
_OWNED = re.compile(r"(?:^|\W)(?:the|my|our|final)[ \t]+\Z")
_ANSWER_TAIL = re.compile(r"[ \t]*(?:(?:is|are|would\s+be|will\s+be|should\s+be)\b[ \t]*[:=\-]?|[:=])")
# weak markers, one literal-prefixed pattern each (a single alternation is ten times slower)
_WEAK = tuple(
    re.compile(p)
    for p in (
        r"therefore\b[ \t,:]*",
        r"thus\b[ \t,:]*",
        r"hence\b[ \t,:]*",
        r"in\s+conclusion\b[ \t,:]*",
        r"in\s+summary\b[ \t,:]*",
        r"to\s+summarize\b[ \t,:]*",
        r"conclusion[ \t]*:",
        r"next\s+action\b(?:\s+(?:to\s+take|that\s+\w+(?:\s+\w+){0,4}))?\s+(?:is|would\s+be|should\s+be)\b[ \t]*:?",
    )
)
_WEAK_COLON = re.compile(r"(?:^|\W)(?:is|are|be)[ \t]*\Z")  # "... are:" (checked before each ':')
_PLAN = re.compile(r"plan\b(?:\s+(?:is|would\s+be|will\s+be)\b)?[ \t]*:?")
_PLAN_ADJ = re.compile(r"(?:^|\W)(?:resulting|simplified|new|final|optimi[sz]ed|shorter|reduced)\s+\Z")
_MAX_MARKERS = 4  # regions tried per marker kind, latest first
_LINE_WINDOW = 200  # characters of a marker's line read on each side of it
UNMARKED, AFTER_COLON, MARKED = 0, 1, 2  # how a region was found (see `regions`)
_STOP_LINE = re.compile(
    r"^[ \t]*(?:[-+>#]+[ \t]*)?(?:explanation|reasoning|reason|rationale|justification|note|notes|why|"
    r"verification|proof|analysis|because|here's\s+why|here\s+is\s+why)\b[^\n]{0,30}?:",
    re.M,
)

# prog section labels: "<kind> effects" at the start of a line, or before ':'/'='/"are"/"is"
# ("The positive effects are ..."); a bare "pos:"/"add:"/"deleted:" needs the colon.
_LABEL = re.compile(r"(?:positive|negative|pos|neg|add(?:s|ed|ing)?|del(?:ete[sd]?|eting)?|removed?)\b")
_LABEL_NOUN = re.compile(
    r"[ \t_-]+(?:effects?|literals?|lists?|atoms?|propositions?|facts?)\b(?:[ \t]*\([^()\n]{0,40}\))?[\"']?"
)
_LABEL_COLON = re.compile(r"[\"']?[ \t]*[:=]")
_LABEL_COPULA = re.compile(r"[ \t]+(?:are|is|would\s+be|will\s+be)\b[ \t]*:?")
_LABEL_DASH = re.compile(r"[ \t]*[:=\-]?")
_LINE_HEAD = re.compile(r"[ \t\-+>#\"']*(?:the[ \t]+)?\Z")
_POS_WORDS = frozenset({"positive", "pos", "add", "adds", "added", "adding"})

# None phrases: the answer says there is no such atom/action ("none", "there is no ...", "[]", ...).
NONE_PHRASE = re.compile(
    r"""none\b | no\s+such\b | nothing\b | null\b | nil\b | n/a\b
      | there\s+(?:is|are|exists?)\s+no\b | there\s+(?:is|are)\s+not\s+any\b
      | no\s+(?:[\w-]+\s+){0,3}?(?:actions?|atoms?|propositions?|facts?|landmarks?|answers?|candidates?)\b
      | (?:does|do)\s+not\s+exist | (?:doesn|don)['’]?t\s+exist | non-?existent\b
      | empty\s+(?:list|set|answer)\b | \[\s*\]
      | all\s+(?:[\w-]+\s+){0,3}(?:are|is|can\s+be|become)\s+(?:reachable|applicable|achievable)""",
    re.X,
)
_BULLET = re.compile(r"[ \t]*(?:[-*+>•‣◦▪·]+|\(?\d{1,3}[.):]|[a-z][.)](?=[ \t]))?[ \t]*[\"'“”‘’]*[ \t]*")
_GROUP_START = re.compile(r"\(\s*[^\W\d_]")
_LEADIN = re.compile(r"([^()\[\]\n]{1,60}?):[ \t]*[(\[\ue000\ue001]")
_PROSE_LEAD = re.compile(
    r"(?:explanation|reasoning|reason|rationale|justification|note|notes|why|verification|proof|analysis|"
    r"because|since|this|that|here|so|thus|therefore|hence)\b"
)
_SENTENCE_END = re.compile(r"[.!?]\s+(?=[a-z(\[])")


# --------------------------------------------------------------------------------------------------
# matching at word starts


def _at_word(text: str, i: int) -> bool:
    """A match at `i` starts a word (the character before it is not a letter, digit or '_')."""
    return i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")


def find_words(rx: re.Pattern, text: str):
    """rx.finditer(text), keeping only matches that start a word (a fast leading \\b)."""
    return (m for m in rx.finditer(text) if _at_word(text, m.start()))


def search_word(rx: re.Pattern, text: str):
    """The first match of `rx` in `text` that starts a word, or None."""
    return next(find_words(rx, text), None)


# --------------------------------------------------------------------------------------------------
# cleaning


def calls_to_groups(text: str) -> str:
    """'board(c1, l0)' -> '(board c1, l0)'; a name glued to '(' with something inside."""
    if "(" not in text:
        return text
    out, last = [], 0
    for m in re.finditer(r"\(", text):
        i = m.start()
        if i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_-"):
            continue
        w = _WORD_BEFORE.search(text, max(0, i - 60), i)
        if w is None or not _at_word(text, w.start()) or text[w.start() - 1 : w.start()] in ("-", "(", "?"):
            continue
        if not _CALL_ARGS.match(text, i + 1):
            continue
        out.append(text[last : w.start()])
        out.append("(" + w.group() + " ")
        last = i + 1
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def collapse_groups(text: str) -> str:
    """Collapse whitespace inside each innermost group: '(board\\n c1  l0)' -> '(board c1 l0)'."""
    return _INNER.sub(lambda m: "(" + " ".join(m.group(1).split()) + ")", text)


def clean_text(text: str) -> str:
    """The response ready for the region search.

    Case is folded. Everything up to the last ``</think>`` is dropped (unless nothing follows it).
    Markdown code fences, ``*``/``**``, backticks, ``$``, ``\\(``/``\\)`` and a few HTML tags are
    removed. Whitespace inside a parenthesised group is collapsed, so ``(board\\n c1  l0)`` is one
    action, and ``board(c1, l0)`` is read as ``(board c1 l0)``. (Commas, semicolons and quotes are
    left in place: the grammar reads them as separators, so ``(sail l1, l0)`` reads naturally.)
    """
    text = text.lower()
    parts = _THINK_END.split(text)
    if len(parts) > 1:
        tail = parts[-1]
        text = tail if tail.strip() else re.sub(r"</?think\s*>", " ", text)
    if "`" in text or "~~~" in text:
        text = _FENCE.sub("", text)
    if "<" in text:
        text = _HTML.sub("\n", text)
    if "\\" in text:
        text = _LATEX.sub(lambda m: m.group(1) or "", text)
    return collapse_groups(calls_to_groups(text.translate(_DROP)))


# --------------------------------------------------------------------------------------------------
# where the answer is


def _strong_markers(text: str) -> list[tuple[int, int]]:
    """(start, end) of 'answer:', 'the answer is', 'final answer', an 'answer' heading line."""
    found = []
    for m in find_words(_ANSWER, text):
        i, j = m.start(), m.end()
        # only the line around the marker matters, read within a window (a megabyte on one line stays linear)
        line_start = text.rfind("\n", max(0, i - _LINE_WINDOW), i) + 1 or max(0, i - _LINE_WINDOW)
        before = text[line_start:i]
        tail = _ANSWER_TAIL.match(text, j)
        if tail and not tail.group().rstrip().endswith((":", "=", "-")) and not _OWNED.search(before):
            tail = None  # "answer is" needs "the"/"my"/"our"/"final" before it: not "this answer is right"
        final = before.rstrip().endswith("final")
        line_end = text.find("\n", j, j + _LINE_WINDOW)
        heading = not before.strip(" \t#>-") and not text[j : line_end if line_end >= 0 else j + _LINE_WINDOW].strip(
            " \t:"
        )
        if tail or final or heading:
            if final and not tail:
                tail = _LABEL_DASH.match(text, j)
            found.append((i, tail.end() if tail else j))
    return found


def _weak_markers(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(start, end) of 'therefore', 'the simplified plan is', 'the next action is' ...; and of '... are:'."""
    found = [(m.start(), m.end()) for rx in _WEAK for m in find_words(rx, text)]
    for m in find_words(_PLAN, text):
        if _PLAN_ADJ.search(text, max(0, m.start() - 14), m.start()):
            found.append((m.start(), m.end()))
    colon = []
    i = text.find(":")
    while i >= 0:
        if _WEAK_COLON.search(text, max(0, i - 12), i):
            colon.append((i, i + 1))
        i = text.find(":", i + 1)
    found.sort()
    return found, colon


def regions(text: str):
    """Yield (region text, level) for the cleaned `text`, in the order they are tried.

    1. the content of the *last* ``<answer>...</answer>`` or ``\\boxed{...}`` (MARKED);
    2. the text after each *strong* marker, latest first (at most 4): ``Answer:``, ``Final answer``,
       ``The/My answer is``, an ``Answer`` heading line; each region ends at the next strong marker
       (MARKED);
    3. the text after each *weak* marker, latest first (at most 4): ``therefore``/``thus``/``hence``/
       ``in conclusion``, ``the resulting/simplified plan (is)``, ``the next action is`` (MARKED);
       then after each ``... is:``/``... are:`` (AFTER_COLON: the next line must be the answer itself);
    4. the unmarked response: first the part before an ``Explanation:``/``Reasoning:``/``Note:`` line,
       then the whole response (UNMARKED).

    The caller takes the first region that yields a usable answer. So the LAST clearly marked answer
    wins, but a later marker followed by nothing usable ("Answer: ... Final answer: see above") does
    not hide an earlier good one. "This answer is correct" is no marker.
    """
    if "<answer>" in text or "\\boxed" in text:
        tags = [m.group(1) for m in _TAG.finditer(text)] + [m.group(1) for m in _BOXED.finditer(text)]
        for t in tags[: -_MAX_MARKERS - 1 : -1]:
            yield t, MARKED
    strong = _strong_markers(text)
    for k in range(len(strong) - 1, max(-1, len(strong) - 1 - _MAX_MARKERS), -1):
        end = strong[k + 1][0] if k + 1 < len(strong) else len(text)
        yield text[strong[k][1] : end], MARKED
    weak, colon = _weak_markers(text)
    last_strong = strong[-1][0] if strong else -1
    for found, level in ((weak, MARKED), (colon, AFTER_COLON)):
        for k in range(len(found) - 1, max(-1, len(found) - 1 - _MAX_MARKERS), -1):
            end = last_strong if last_strong > found[k][1] else len(text)
            yield text[found[k][1] : end], level
    stop = _STOP_LINE.search(text)
    if stop and text[: stop.start()].strip():
        yield text[: stop.start()], UNMARKED
    yield text, UNMARKED


def mark_labels(text: str) -> str:
    """Replace prog section labels by the private-use characters the grammar knows as POS/NEG.

    A "<kind> effects" label must start a line or be followed by ``:``/``=`` or "are"/"is"
    (``Positive effects:``, ``The negative effects are``); a bare ``pos``/``add``/``delete`` (JSON
    ``"pos":`` too) needs the colon.
    """
    out, last = [], 0
    for m in find_words(_LABEL, text):
        i, j = m.start(), m.end()
        if i < last:
            continue
        noun = _LABEL_NOUN.match(text, j)
        if noun:
            tail = _LABEL_COLON.match(text, noun.end()) or _LABEL_COPULA.match(text, noun.end())
            if tail is None:
                if not _LINE_HEAD.match(text, text.rfind("\n", 0, i) + 1, i):
                    continue
                tail = _LABEL_DASH.match(text, noun.end())
        else:
            tail = _LABEL_COLON.match(text, j)
            if tail is None:
                continue
        out.append(text[last:i])
        out.append(" " + (POS_MARK if m.group() in _POS_WORDS else NEG_MARK) + " ")
        last = tail.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


# --------------------------------------------------------------------------------------------------
# which lines of a region


def strip_bullet(line: str) -> str:
    """The line without its bullet, number or opening quote ('- ', '2. ', 'a) ', '> "')."""
    return _BULLET.sub("", line, count=1).strip()


def is_answer_line(s: str) -> bool:
    """`s` (bullet stripped) is a line of an answer block, not prose.

    An answer line starts with ``(``/``[``/``{`` or a short ``label:`` and has no sentence after its
    last bracket: ``(a x) - annotation`` is an answer line, ``(a x) is applicable because ...`` is
    prose. A prog section label is always one.
    """
    if not s:
        return False
    if POS_MARK in s or NEG_MARK in s:  # a prog section label
        return True
    if s[0] not in "([{]}":
        m = _LEADIN.match(s)
        if m is None or _PROSE_LEAD.match(s) or len(m.group(1).split()) > 6:
            return False
    # what follows the last closing bracket must be an annotation ("- sail to l1", ": adds ..."),
    # punctuation, or "none" -- not a sentence (", which is false", ". Then we ...")
    last = max(s.rfind(")"), s.rfind("]"), s.rfind("}"))
    rest = s[last + 1 :].strip() if last >= 0 else ""
    return not rest or rest[0] in "-–—:=#(|/" or not re.search(r"[a-z]", rest) or NONE_PHRASE.match(rest) is not None


def has_group(s: str) -> bool:
    """`s` holds a parenthesised group that starts with a letter."""
    return _GROUP_START.search(s) is not None


def answer_block(region: str, marked: bool) -> str:
    """The lines of `region` that hold the answer.

    In a marked region the block starts at the first line that holds a group, a list, a section
    label or a none phrase, and continues over answer lines and blank lines; it stops at the first
    line of prose. In an unmarked response the block is the *last* run of answer lines (plus a
    preceding line ending in ``:``, ``,``, ``and``, ``or``); failing that, the last line that
    mentions a group.
    """
    lines = region.split("\n")
    if marked:
        out: list[str] = []
        for line in lines:
            s = strip_bullet(line)
            if not out:
                if s and (has_group(s) or is_answer_line(s) or search_word(NONE_PHRASE, s)):
                    out.append(line)
            elif not s or is_answer_line(s):
                out.append(line)
            else:
                break
        return "\n".join(out)
    kinds = [strip_bullet(line) for line in lines]
    answer = [bool(s) and is_answer_line(s) for s in kinds]
    if any(answer):
        end = max(i for i, a in enumerate(answer) if a)
        start = end
        i = end - 1
        while i >= 0 and (answer[i] or not kinds[i]):
            if answer[i]:
                start = i
            i -= 1
        # a lead-in line that continues into the block: "The actions are (a x),"
        j = start - 1
        while j >= 0 and not kinds[j]:
            j -= 1
        if j >= 0 and has_group(kinds[j]) and re.search(r"(?:[:,]|\band|\bor)\s*$", kinds[j]):
            start = j
        return "\n".join(lines[start : end + 1])
    for i in range(len(lines) - 1, -1, -1):
        if has_group(kinds[i]):
            return lines[i]
    return ""


def sentences(line: str) -> list[str]:
    """'a (x). b (y).' -> ['a (x).', 'b (y).']"""
    out, last = [], 0
    for m in _SENTENCE_END.finditer(line):
        out.append(line[last : m.start() + 1])
        last = m.end()
    out.append(line[last:])
    return out


def first_line(region: str) -> str:
    """The first non-blank line of `region` ('' if none)."""
    for line in region.split("\n"):
        if line.strip():
            return line
    return ""
