"""Lenient extraction of the structured answer from a model's free-text response.

Two layers:

1. A regex pre-pass (this module) cleans the text and picks the *region* that holds the answer.
2. A lark LALR grammar shipped in the package (``answer.lark``, compiled once and cached) reads that
   region as a sequence of parenthesised groups, bracketed lists, section labels and words; small
   functions here turn that tree into a :class:`ParsedAnswer`.

Rules for ambiguous responses (applied in this order):

* **Cleaning.** Case is folded. Everything up to the last ``</think>`` is dropped (unless nothing
  follows it). Markdown code fences, ``*``/``**``, backticks, ``$``, ``\\(``/``\\)`` and a few HTML tags
  are removed. Whitespace inside a parenthesised group is collapsed, so ``(board\\n c1  l0)`` is one
  action, and ``board(c1, l0)`` is read as ``(board c1 l0)``. Commas, semicolons and quotes separate
  words, so ``(sail l1, l0)`` and ``['(a x)', '(b y)']`` read naturally.
* **Where the answer is.** Candidate regions are tried in this order; the first one that yields a
  usable answer wins:

  1. the content of the *last* ``<answer>...</answer>`` or ``\\boxed{...}``;
  2. the text after each *strong* marker, latest first (at most 4): ``Answer:``, ``Final answer``,
     ``The/My answer is``, an ``Answer`` heading line; each region ends at the next strong marker;
  3. the text after each *weak* marker, latest first (at most 4): ``... is:``/``... are:``,
     ``therefore``/``thus``/``hence``/``in conclusion``, ``the resulting/simplified plan (is)``,
     ``the next action is``;
  4. the unmarked response: first the part before an ``Explanation:``/``Reasoning:``/``Note:`` line,
     then the whole response.

  So the LAST clearly marked answer wins, but a later marker followed by nothing usable ("Answer: ...
  Final answer: see above") does not hide an earlier good one. "This answer is correct" is no marker.
* **Which lines of a region.** In a marked region the answer block starts at the first line that holds
  a group, a list, a section label or a none phrase, and continues over *answer lines* and blank
  lines; it stops at the first line of prose. An answer line is one that, after a bullet or number,
  starts with ``(``/``[``/``{`` or a short ``label:`` and has no sentence after its last bracket
  (``(a x) - annotation`` is an answer line, ``(a x) is applicable because ...`` is prose). In an
  unmarked response the block is the *last* run of answer lines (plus a preceding line ending in
  ``:``, ``,``, ``and``, ``or``); failing that, the last line that mentions a group.
* **What counts as an atom/action.** A group ``(name arg ...)`` whose name starts with a letter.
  Groups that read as prose are skipped: the first word or an argument is an English function word
  (``(e.g. the first one)``, ``(see above)``, ``(sail from l0 to l1)``) or an argument is a
  ``?variable`` (a lifted schema). ``(not (p x))`` is a negated atom. A group that holds other groups
  (``((a x) (b y))``, ``(and (p) (q))``) is a container: its inner groups are read, its words dropped.
  Unbalanced brackets are repaired (stray ``)`` dropped, missing closers added), so ``1) (a x)`` and a
  truncated ``[(a x), (b y`` still read.
* **Bare atoms** (no parentheses) are accepted only for single-item tasks (reach, areach, land,
  nexta) and only when a whole answer line is ``name arg ...`` (at most 8 words, e.g. ``at t3 l1-2``,
  ACPBench's own reach format), possibly followed by a remark in parentheses (``at t3 l1-2 (never
  true)``; then it needs an argument and a digit, ``_`` or ``-``). Outside a marked answer the line
  must also look like PDDL (a digit, ``_`` or ``-`` somewhere), so ``hello world`` is not an atom
  while ``Answer: clear a`` is.
* **Per task.**

  - app, just: all atoms of the block, in order (duplicates kept: a plan may repeat an action).
    ``[]`` or a none phrase is an explicit empty list (``ok=True``, no items).
  - nexta, reach, areach, land: one item. After a marker the first line decides: its first group,
    or a none phrase if that comes first, or a bare atom. Without a marker: a first sentence that
    leads with the answer (``(a x).``, ``None. ...``, a bare line) decides; otherwise the *last*
    sentence that holds a group or a none phrase does, and within it the first of the two wins.
    None phrases: "none", "no such", "there is/are no", "no <noun> ...", "does not exist", "nothing",
    "n/a", ``[]``, "all ... are reachable". They give ``none=True`` for reach/areach/land; for nexta
    "none" is not an answer (``ok=False``, says why).
  - prog: with labels (``Positive effects:``, ``Negative effects``, ``add:``/``delete:``, JSON
    ``"pos":``/``"neg":``; a "<kind> effects" label must start a line or be followed by ``:``/``=`` or
    "are"/"is"), the atoms after the last positive label go to ``items`` and those after the last
    negative label to ``negative``; a later label followed by prose only does not replace an earlier
    section; "none", "-", ``[]`` mean empty. Unmarked responses keep only label and answer lines.
    Without labels, the last two bracketed lists are positive then negative; a single list counts
    only when it uses ``(not p)``. ``(not p)`` always counts as negative.
  - val: an explicit ``index N`` wins (the first after a marker, the last in unmarked text);
    otherwise the first integer of the region (``03`` -> 3). Digits inside names (``l1``, ``l1-2``),
    ordinals (``5th``, usually 1-based), decimals and ``0-based`` are not indices.

``parse_answer`` never raises on model text: when nothing usable is found it returns ``ok=False`` with
an ``error`` sentence. It raises ``ValueError`` only for an unknown task name. Typical answers take
roughly 10-150 microseconds; a 4 kB chain of thought a few hundred.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError

__all__ = ["ParsedName", "ParsedAnswer", "parse_answer", "parse_name", "TASKS", "TASK_ALIASES", "canonical_task"]

TASKS: tuple[str, ...] = ("app", "prog", "reach", "areach", "val", "just", "land", "nexta")
TASK_ALIASES: dict[str, str] = {
    "applicable_actions_gen": "app",
    "progression_gen": "prog",
    "reachable_atom_gen": "reach",
    "reachable_action_gen": "areach",
    "validation_gen": "val",
    "action_justification_gen": "just",
    "landmarks_gen": "land",
    "goal_closer_gen": "nexta",
}

_SINGLE = frozenset({"reach", "areach", "land", "nexta"})  # exactly one item expected
_NONE_OK = frozenset({"reach", "areach", "land"})  # "None" is a valid answer
_KIND = {"app": "ground action", "just": "ground action", "nexta": "ground action", "areach": "ground action",
         "reach": "atom", "land": "atom", "prog": "atom"}


# --------------------------------------------------------------------------------------------------
# result types


@dataclass(frozen=True)
class ParsedName:
    """One atom or ground action as written: lower-cased name and arguments, canonical text."""

    name: str
    args: tuple[str, ...]
    text: str

    @classmethod
    def of(cls, name: str, args=()) -> "ParsedName":
        name = name.lower()
        args = tuple(a.lower() for a in args)
        return cls(name, args, "(" + " ".join((name, *args)) + ")")

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class ParsedAnswer:
    """What could be read from a response; see the module docstring for the rules."""

    task: str
    ok: bool
    items: tuple[ParsedName, ...] = ()
    negative: tuple[ParsedName, ...] = ()
    index: int | None = None
    none: bool = False
    error: str = ""


def canonical_task(task: str) -> str:
    """'app' or a group name such as 'applicable_actions_gen' -> 'app'; ValueError otherwise."""
    if isinstance(task, str):
        t = task.strip().lower()
        if t in TASKS:
            return t
        if t in TASK_ALIASES:
            return TASK_ALIASES[t]
        if t.startswith("acp_") and t.endswith("_gen") and t[4:-4] in TASKS:  # lm-eval task names
            return t[4:-4]
    raise ValueError(
        f"unknown task {task!r}: expected one of {', '.join(TASKS)} "
        f"or a group name ({', '.join(TASK_ALIASES)})"
    )


# --------------------------------------------------------------------------------------------------
# the grammar


class _Group:
    """A parenthesised group: its words (str) and its nested groups/lists, in order."""

    __slots__ = ("words", "subs")

    def __init__(self, words, subs):
        self.words, self.subs = words, subs


class _List:
    __slots__ = ("children",)

    def __init__(self, children):
        self.children = children


class _Section:
    __slots__ = ("kind", "children")

    def __init__(self, kind, children):
        self.kind, self.children = kind, children


class _Build(Transformer):
    """Inline LALR callbacks: groups, lists and sections become small objects; tokens stay tokens."""

    def pos_section(self, children):
        return _Section("pos", children[1:])

    def neg_section(self, children):
        return _Section("neg", children[1:])

    def start(self, children):
        return children

    def group(self, children):
        if len(children) == 1 and isinstance(children[0], Token) and children[0].type == "ATOM":
            return _Group(_ATOM_WORD.findall(children[0], 1, len(children[0]) - 1), ())  # the fast path
        return _Group([c for c in children if _is_word(c)], [c for c in children if isinstance(c, (_Group, _List))])

    def blist(self, children):
        return _List(children)


@lru_cache(maxsize=None)
def _parser() -> Lark:
    text = resources.files(__package__).joinpath("answer.lark").read_text(encoding="utf-8")
    return Lark(text, parser="lalr", lexer="contextual", transformer=_Build(), start="start")


def _read(text: str, keep_words: str = "") -> list:
    """Top-level elements of `text` (brackets balanced first, so this cannot fail on odd input).

    Words outside all brackets are dropped before lark sees them, so long explanations cost no parsing
    time; keep_words="all" keeps them (parse_name), "prog" keeps section labels and "none"/"no".
    """
    try:
        return _parser().parse(_balance(text, keep_words))
    except LarkError:  # pragma: no cover - defensive: the grammar accepts every balanced input
        return [Token("WORD", w) for w in text.split()]


_OPEN = {"(": ")", "[": "]"}
_CLOSE = {")": "(", "]": "["}
_ATOM_WORD = re.compile(r"[^\s()\[\],;'\"`{}\ue000\ue001]+")  # WORD of answer.lark
_BRACKETS = re.compile(r"[()\[\]]")
_SEPARATORS = ",;'\"`{}"


def _prog_words(segment: str) -> str:
    keep = [w for w in (t.strip(_SEPARATORS) for t in segment.split()) if w in _KEEP_WORDS or w in _LABEL_MARKS]
    return " " + " ".join(keep) + " " if keep else " "


def _balance(text: str, keep_words: str = "all") -> str:
    """Drop closers that match nothing, close what a wrong closer skips over, and close at the end.

    "1) (a x)" -> " (a x)";  "[(a x]" -> "[(a x)]";  "(a x" -> "(a x)". Unless keep_words="all",
    words outside all brackets are dropped or reduced to the few that matter (see `_read`).
    """
    top = (lambda seg: seg) if keep_words == "all" else _prog_words if keep_words == "prog" else (lambda seg: " ")
    if not _BRACKETS.search(text):
        return top(text)
    out: list[str] = []
    stack: list[str] = []
    last = 0
    for m in _BRACKETS.finditer(text):
        ch = m.group()
        seg = text[last:m.start()]
        out.append(seg if stack else top(seg))
        last = m.end()
        if ch in _OPEN:
            stack.append(ch)
            out.append(ch)
        elif _CLOSE[ch] in stack:
            while stack[-1] != _CLOSE[ch]:
                out.append(_OPEN[stack.pop()])
            stack.pop()
            out.append(ch)
        # else: a stray closer ("1)", ":)") is dropped
    seg = text[last:]
    out.append(seg if stack else top(seg))
    out.extend(_OPEN[c] for c in reversed(stack))
    return "".join(out)


# --------------------------------------------------------------------------------------------------
# from elements to names

# Words that start prose, never an atom or action ("(e.g. the first one)", "(see above)").
_NAME_STOP = frozenset(
    """a an the this that these those it its i we you he she they there here which who what why how
    is are was were be been being am do does did had will would can could should must may might
    and or but nor if then so as because since while where when though although unless until
    also only just even not no yes none all any each every some both either neither such
    for from of to by via with without
    e.g e.g. eg i.e i.e. ie cf cf. etc etc. see note notes example examples namely meaning
    action actions atom atoms proposition propositions fact facts effect effects state states
    step steps plan index answer option optional already currently now assuming given using
    based indexed respectively""".split()
)
# Words that never are an object name but often appear in parenthesised prose. Single letters are
# allowed: tasks often name their objects a, b, c ... ("(on a b)").
_ARG_STOP = frozenset(
    """an the is are was were be been it its this that these those which who to from of by for
    with without into onto and or but not no if then so as because since can cannot will would
    should must may might do does did has have had we you they there here also only""".split()
)
_NAME_RE = re.compile(r"[^\W\d_][\w\-]*\Z")
_TRAIL = ".:!?"


def _words_to_name(words) -> ParsedName | None:
    toks = []
    for w in words:
        w = w.lower().rstrip(_TRAIL)
        if w:
            toks.append(w)
    if not toks:
        return None
    return ParsedName.of(toks[0], toks[1:])


def _plausible(pn: ParsedName) -> bool:
    """True unless the group reads like prose or a lifted schema (see module docstring)."""
    if not _NAME_RE.match(pn.name) or pn.name in _NAME_STOP or len(pn.args) > 12:
        return False
    for a in pn.args:
        if a[0] == "?" or a in _ARG_STOP:
            return False
    return True


def _is_word(e) -> bool:
    return isinstance(e, Token) and e.type == "WORD"


def _group_items(g: _Group, neg: bool = False):
    """Yield (ParsedName, negated) for one group: an atom, a (not ...), or a container."""
    words, subs = g.words, g.subs
    if not subs:
        pn = _words_to_name(words)
        if pn is not None and _plausible(pn):
            yield pn, neg
    elif len(words) == 1 and words[0].lower() == "not" and len(subs) == 1 and isinstance(subs[0], _Group):
        yield from _group_items(subs[0], not neg)
    else:
        yield from _walk(subs, neg)


def _walk(elems, neg: bool = False):
    for e in elems:
        if isinstance(e, _Group):
            yield from _group_items(e, neg)
        elif isinstance(e, _List):
            yield from _walk(e.children, neg)


# --------------------------------------------------------------------------------------------------
# the regex pre-pass
#
# The response is lower-cased first, so no pattern needs re.I. Patterns start with a literal (never
# with \b or an optional group): Python's re then skips ahead quickly, which keeps a 4 kB chain of
# thought well under a millisecond. Word boundaries before a match are checked by `_at_word`.

_THINK_END = re.compile(r"</think\s*>")
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)[^\n]*$", re.M)
_DROP = str.maketrans("", "", "*`$\ue000\ue001")  # markup, and our own label characters
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
_WEAK = tuple(re.compile(p) for p in (
    r"therefore\b[ \t,:]*", r"thus\b[ \t,:]*", r"hence\b[ \t,:]*", r"in\s+conclusion\b[ \t,:]*",
    r"in\s+summary\b[ \t,:]*", r"to\s+summarize\b[ \t,:]*", r"conclusion[ \t]*:",
    r"next\s+action\b(?:\s+(?:to\s+take|that\s+\w+(?:\s+\w+){0,4}))?\s+(?:is|would\s+be|should\s+be)\b[ \t]*:?",
))
_WEAK_COLON = re.compile(r"(?:^|\W)(?:is|are|be)[ \t]*\Z")  # "... are:" (checked before each ':')
_PLAN = re.compile(r"plan\b(?:\s+(?:is|would\s+be|will\s+be)\b)?[ \t]*:?")
_PLAN_ADJ = re.compile(r"(?:^|\W)(?:resulting|simplified|new|final|optimi[sz]ed|shorter|reduced)\s+\Z")
_MAX_MARKERS = 4  # regions tried per marker kind, latest first
_UNMARKED, _COLON, _MARKED = 0, 1, 2  # how a region was found
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
_POS_MARK, _NEG_MARK = "\ue000", "\ue001"
_LABEL_MARKS = frozenset({_POS_MARK, _NEG_MARK})
_POS_WORDS = frozenset({"positive", "pos", "add", "adds", "added", "adding"})

_NONE = re.compile(
    r"""none\b | no\s+such\b | nothing\b | null\b | nil\b | n/a\b
      | there\s+(?:is|are|exists?)\s+no\b | there\s+(?:is|are)\s+not\s+any\b
      | no\s+(?:[\w-]+\s+){0,3}?(?:actions?|atoms?|propositions?|facts?|landmarks?|answers?|candidates?)\b
      | (?:does|do)\s+not\s+exist | (?:doesn|don)['’]?t\s+exist | non-?existent\b
      | empty\s+(?:list|set|answer)\b | \[\s*\]
      | all\s+(?:[\w-]+\s+){0,3}(?:are|is|can\s+be|become)\s+(?:reachable|applicable|achievable)""",
    re.X,
)
_BARE_NO = re.compile(r"\s*no\s*[.!]?\s*\Z")
_DIGITS = re.compile(r"\d+")
_INDEX_OF = re.compile(r"index\b(?:\s+(?:is|of|number|no\.?))?\s*[:=#]?\s*(\d+)")
_BULLET = re.compile(r"[ \t]*(?:[-*+>•‣◦▪·]+|\(?\d{1,3}[.):]|[a-z][.)](?=[ \t]))?[ \t]*[\"'“”‘’]*[ \t]*")
_GROUP_START = re.compile(r"\(\s*[^\W\d_]")
_LEADIN = re.compile(r"([^()\[\]\n]{1,60}?):[ \t]*[(\[\ue000\ue001]")
_PROSE_LEAD = re.compile(
    r"(?:explanation|reasoning|reason|rationale|justification|note|notes|why|verification|proof|analysis|"
    r"because|since|this|that|here|so|thus|therefore|hence)\b"
)
_SENTENCE_END = re.compile(r"[.!?]\s+(?=[a-z(\[])")


def _at_word(text: str, i: int) -> bool:
    """A match at `i` starts a word (the character before it is not a letter, digit or '_')."""
    return i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")


def _words(rx: re.Pattern, text: str):
    """rx.finditer(text), keeping only matches that start a word (a fast leading \\b)."""
    return (m for m in rx.finditer(text) if _at_word(text, m.start()))


def _search(rx: re.Pattern, text: str):
    return next(_words(rx, text), None)


def _calls(text: str) -> str:
    """'board(c1, l0)' -> '(board c1, l0)'; a name glued to '(' with something inside."""
    if "(" not in text:
        return text
    out, last = [], 0
    for m in re.finditer(r"\(", text):
        i = m.start()
        if i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_-"):
            continue
        w = _WORD_BEFORE.search(text, max(0, i - 60), i)
        if w is None or not _at_word(text, w.start()) or text[w.start() - 1:w.start()] in ("-", "(", "?"):
            continue
        if not _CALL_ARGS.match(text, i + 1):
            continue
        out.append(text[last:w.start()])
        out.append("(" + w.group() + " ")
        last = i + 1
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _prep(text: str) -> str:
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
    text = _calls(text.translate(_DROP))
    return _INNER.sub(lambda m: "(" + " ".join(m.group(1).split()) + ")", text)


def _strong_markers(text: str) -> list[tuple[int, int]]:
    """(start, end) of 'answer:', 'the answer is', 'final answer', an 'answer' heading line."""
    found = []
    for m in _words(_ANSWER, text):
        i, j = m.start(), m.end()
        line_start = text.rfind("\n", 0, i) + 1
        before = text[line_start:i]
        tail = _ANSWER_TAIL.match(text, j)
        if tail and not tail.group().rstrip().endswith((":", "=", "-")) and not _OWNED.search(before):
            tail = None  # "answer is" needs "the"/"my"/"our"/"final" before it: not "this answer is right"
        final = before.rstrip().endswith("final")
        line_end = text.find("\n", j)
        heading = not before.strip(" \t#>-") and not text[j:line_end if line_end >= 0 else len(text)].strip(" \t:")
        if tail or final or heading:
            if final and not tail:
                tail = _LABEL_DASH.match(text, j)
            found.append((i, tail.end() if tail else j))
    return found


def _weak_markers(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(start, end) of 'therefore', 'the simplified plan is', 'the next action is' ...; and of '... are:'."""
    found = [(m.start(), m.end()) for rx in _WEAK for m in _words(rx, text)]
    for m in _words(_PLAN, text):
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


def _regions(text: str):
    """Yield (region text, level) in the order described in the module docstring."""
    if "<answer>" in text or "\\boxed" in text:
        tags = [m.group(1) for m in _TAG.finditer(text)] + [m.group(1) for m in _BOXED.finditer(text)]
        for t in reversed(tags):
            yield t, _MARKED
    strong = _strong_markers(text)
    for k in range(len(strong) - 1, max(-1, len(strong) - 1 - _MAX_MARKERS), -1):
        end = strong[k + 1][0] if k + 1 < len(strong) else len(text)
        yield text[strong[k][1]:end], _MARKED
    weak, colon = _weak_markers(text)
    last_strong = strong[-1][0] if strong else -1
    for found, level in ((weak, _MARKED), (colon, _COLON)):
        for k in range(len(found) - 1, max(-1, len(found) - 1 - _MAX_MARKERS), -1):
            end = last_strong if last_strong > found[k][1] else len(text)
            yield text[found[k][1]:end], level
    stop = _STOP_LINE.search(text)
    if stop and text[:stop.start()].strip():
        yield text[:stop.start()], _UNMARKED
    yield text, _UNMARKED


def _colon_region_ok(task: str, region: str) -> bool:
    """After a weak '... is:' marker the very next line must be the answer itself, not more prose:
    "The precondition of (a x) is: (p y), which is false" is reasoning, not an answer."""
    first = _strip_bullet(_first_line(region))
    if not first:
        return False
    if task == "val":
        return any(_plain_int(first, m.start(), m.end()) for m in _DIGITS.finditer(first))
    if _is_answer_line(first) or _NONE.match(first) or _BARE_NO.match(first):
        return True
    return task in _SINGLE and _bare(first, True) is not None


def _mark_labels(text: str) -> str:
    """Replace prog section labels by the private-use characters the grammar knows as POS/NEG."""
    out, last = [], 0
    for m in _words(_LABEL, text):
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
        out.append(" " + (_POS_MARK if m.group() in _POS_WORDS else _NEG_MARK) + " ")
        last = tail.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


# ---- line classification


def _strip_bullet(line: str) -> str:
    return _BULLET.sub("", line, count=1).strip()


def _is_answer_line(s: str) -> bool:
    """`s` (bullet stripped) is a line of an answer block, not prose (see module docstring)."""
    if not s:
        return False
    if _POS_MARK in s or _NEG_MARK in s:  # a prog section label
        return True
    if s[0] not in "([{]}":
        m = _LEADIN.match(s)
        if m is None or _PROSE_LEAD.match(s) or len(m.group(1).split()) > 6:
            return False
    # what follows the last closing bracket must be an annotation ("- sail to l1", ": adds ..."),
    # punctuation, or "none" -- not a sentence (", which is false", ". Then we ...")
    last = max(s.rfind(")"), s.rfind("]"), s.rfind("}"))
    rest = s[last + 1:].strip() if last >= 0 else ""
    return not rest or rest[0] in "-–—:=#(|/" or not re.search(r"[a-z]", rest) or _NONE.match(rest) is not None


def _has_group(s: str) -> bool:
    return _GROUP_START.search(s) is not None


def _block(region: str, marked: bool) -> str:
    """The lines of `region` that hold the answer (see module docstring)."""
    lines = region.split("\n")
    if marked:
        out: list[str] = []
        for line in lines:
            s = _strip_bullet(line)
            if not out:
                if s and (_has_group(s) or _is_answer_line(s) or _search(_NONE, s)):
                    out.append(line)
            elif not s or _is_answer_line(s):
                out.append(line)
            else:
                break
        return "\n".join(out)
    kinds = [_strip_bullet(line) for line in lines]
    answer = [bool(s) and _is_answer_line(s) for s in kinds]
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
        if j >= 0 and _has_group(kinds[j]) and re.search(r"(?:[:,]|\band|\bor)\s*$", kinds[j]):
            start = j
        return "\n".join(lines[start:end + 1])
    for i in range(len(lines) - 1, -1, -1):
        if _has_group(kinds[i]):
            return lines[i]
    return ""


def _sentences(line: str) -> list[str]:
    """'a (x). b (y).' -> ['a (x).', 'b (y).']"""
    out, last = [], 0
    for m in _SENTENCE_END.finditer(line):
        out.append(line[last:m.start() + 1])
        last = m.end()
    out.append(line[last:])
    return out


def _first_line(region: str) -> str:
    for line in region.split("\n"):
        if line.strip():
            return line
    return ""


# --------------------------------------------------------------------------------------------------
# per-task interpretation; each returns a ParsedAnswer or None (= nothing usable in this region)


def _explicit_empty(block: str, elems) -> bool:
    if any(isinstance(e, _List) for e in elems):
        return True  # only called when no items were found, so every list is empty
    return bool(_search(_NONE, block) or _BARE_NO.match(block))


def _list_task(task: str, region: str, marked: bool) -> ParsedAnswer | None:
    block = _block(region, marked)
    if not block.strip():
        # "There are no applicable actions." -- no group anywhere, but an explicit none
        if not marked and not _has_group(region) and (_search(_NONE, region) or _BARE_NO.match(region)):
            return ParsedAnswer(task, True)
        return None
    elems = _read(block)
    items = tuple(pn for pn, _neg in _walk(elems))
    if items:
        return ParsedAnswer(task, True, items=items)
    if _explicit_empty(block, elems):
        return ParsedAnswer(task, True)
    return None


_NAMEISH = re.compile(r"[\d_\-]")


def _bare(line: str, marked: bool) -> ParsedName | None:
    """A bare answer line 'at t3 l1-2' (no parentheses) as one atom, or None.

    Up to 8 words, no brackets or colons, plausible as an atom. Outside a marked answer the line must
    also look like PDDL (a digit, '_' or '-' somewhere, as in 'l1-2'), so 'hello world' is not an atom.
    """
    s = _strip_bullet(line).rstrip(" \t.;!")
    if not s or any(c in s for c in "()[]{}:") or _search(_NONE, s):
        return None
    words = [w for w in re.split(r"[\s,'\"]+", s) if w]
    if not 1 <= len(words) <= 8 or (not marked and not _NAMEISH.search(s)):
        return None
    pn = _words_to_name(words)
    return pn if pn is not None and _plausible(pn) else None


def _none_outside(line: str):
    """The first none phrase of `line` that is not inside parentheses ('(nothing-else x)' is a name)."""
    for m in _words(_NONE, line):
        before = line[:m.start()]
        if before.count("(") <= before.count(")"):
            return m
    return _BARE_NO.match(line)


def _decide_line(task: str, line: str, marked: bool) -> ParsedAnswer | None:
    """One answer line of a single-item task: an atom, 'none', or a bare atom."""
    m = _none_outside(line)
    head = line[:m.start()] if m else line
    lead = head.split("(", 1)[0]
    if lead != head and _NAMEISH.search(lead):  # "at t3 l1-2 (never reachable)": bare atom, then a remark
        pn = _bare(lead, marked)
        if pn is not None and pn.args:
            return ParsedAnswer(task, True, items=(pn,))
    for pn, _neg in _walk(_read(head)):
        return ParsedAnswer(task, True, items=(pn,))
    if m:
        if task in _NONE_OK:
            return ParsedAnswer(task, True, none=True)
        # nexta: "none" is not an answer, but an action may still follow on the line
        for pn, _neg in _walk(_read(line[m.end():])):
            return ParsedAnswer(task, True, items=(pn,))
        return ParsedAnswer(task, False, error="the answer says there is no such action, "
                                               "but this task needs one ground action such as '(name arg1 arg2)'")
    pn = _bare(line, marked)
    if pn is not None:
        return ParsedAnswer(task, True, items=(pn,))
    return None


def _single_task(task: str, region: str, marked: bool) -> ParsedAnswer | None:
    if marked:
        res = _decide_line(task, _first_line(region), True)
        if res is not None:
            return res
        block = _block(region, True)
        return _decide_line(task, block, True) if block.strip() else None
    lines = [line for line in region.split("\n") if line.strip()]
    if not lines:
        return None
    lead = _sentences(lines[0])[0]  # a response that leads with its answer: "(a x).", "None. ..."
    first = _strip_bullet(lead)
    if ((_is_answer_line(first) and _has_group(first)) or (_NONE.match(first) and not _has_group(first))
            or _bare(lines[0], False) is not None):
        res = _decide_line(task, lead if _has_group(first) or _NONE.match(first) else lines[0], False)
        if res is not None and (res.ok or len(lines) == 1):
            return res
    for line in reversed(lines):
        for sent in reversed(_sentences(line)):
            if _has_group(sent) or _search(_NONE, sent) or _BARE_NO.match(sent):
                res = _decide_line(task, sent, False)
                if res is not None:
                    return res
    return None


_EMPTY_WORDS = frozenset({"none", "none.", "nothing", "nothing.", "empty", "n/a", "nil", "null", "no", "-", "--", "—", "∅", "{}"})
_KEEP_WORDS = _EMPTY_WORDS


def _section_answers(part) -> bool:
    """A labelled prog section holds an answer: an atom, a list, or a word such as 'none'."""
    for e in part:
        if isinstance(e, (_List, _Group)):
            if isinstance(e, _List) or next(_group_items(e), None) is not None:
                return True
        elif _is_word(e) and e.lower() in _EMPTY_WORDS:
            return True
    return False


def _prog_task(region: str, marked: bool) -> ParsedAnswer | None:
    region = _mark_labels(region)
    if marked:
        block = _block(region, True)
    else:
        # keep label lines and answer lines, drop prose: "(at c x) no longer holds because ..."
        keep = [line for line in region.split("\n") if _is_answer_line(_strip_bullet(line))]
        block = "\n".join(keep)
    if not block.strip():
        return None
    elems = _read(block, keep_words="prog")
    secs = [e for e in elems if isinstance(e, _Section)]
    if secs:
        before = [e for e in elems if not isinstance(e, _Section)]
        chosen: dict[str, list] = {}
        prev = before
        for sec in secs:
            said_no = bool(prev) and _is_word(prev[-1]) and prev[-1].lower() == "no"  # "no negative effects"
            # a later label of the same kind wins, unless it is followed by prose only (no atom,
            # no list, no "none"): "... follow from the delete effects."
            if said_no or sec.kind not in chosen or _section_answers(sec.children):
                chosen[sec.kind] = [] if said_no else sec.children
            prev = sec.children
        pos: list[ParsedName] = []
        neg: list[ParsedName] = []
        for kind, part in chosen.items():
            for pn, negated in _walk(part):
                (neg if negated or kind == "neg" else pos).append(pn)
        for pn, negated in _walk(before):  # before the first label only "(not p)" is taken
            if negated:
                neg.append(pn)
        return ParsedAnswer("prog", True, items=tuple(pos), negative=tuple(neg))
    top = [e for e in elems if isinstance(e, _List)]
    while len(top) == 1 and sum(isinstance(c, _List) for c in top[0].children) >= 2:
        top = [c for c in top[0].children if isinstance(c, _List)]
    if len(top) >= 2:
        p, n = top[-2], top[-1]
        pos = [pn for pn, negated in _walk([p]) if not negated]
        neg = [pn for pn, negated in _walk([p]) if negated] + [pn for pn, _x in _walk([n])]
        return ParsedAnswer("prog", True, items=tuple(pos), negative=tuple(neg))
    found = list(_walk(elems))
    if any(negated for _pn, negated in found):
        return ParsedAnswer("prog", True, items=tuple(pn for pn, g in found if not g),
                            negative=tuple(pn for pn, g in found if g))
    return None


def _val_task(region: str, marked: bool) -> ParsedAnswer | None:
    said = [m for m in _words(_INDEX_OF, region) if _plain_int(region, m.start(1), m.end(1))]
    if said:  # "index 2" names the index outright: the first one after a marker, else the last one
        return ParsedAnswer("val", True, index=int(said[0 if marked else -1].group(1)))
    for m in _DIGITS.finditer(region):
        if _plain_int(region, m.start(), m.end()):
            return ParsedAnswer("val", True, index=int(m.group()))
    return None


def _plain_int(text: str, i: int, j: int) -> bool:
    """digits text[i:j] are a number, not part of a name ('l1', 'l1-2'), an ordinal ('5th'),
    a decimal ('2.5') or a '0-based' qualifier."""
    if i and (text[i - 1].isalnum() or text[i - 1] in "_.-"):
        return False
    nxt = text[j:j + 1]
    if nxt and (nxt.isalnum() or nxt in "_-" and not re.match(r"-\s", text[j:j + 2])):
        return False
    if nxt == "." and text[j + 1:j + 2].isdigit():
        return False
    return not re.match(r"\s*-?\s*(?:based|indexed|index\b)", text[j:j + 12])


# --------------------------------------------------------------------------------------------------
# public API


def parse_answer(task: str, text: str) -> ParsedAnswer:
    """Read the answer of `task` (a task or group name) from a model's response `text`.

    Never raises on odd text: returns ``ok=False`` and an ``error`` sentence instead. Raises
    ``ValueError`` for an unknown task name. The rules are in the module docstring.
    """
    task = canonical_task(task)
    if not isinstance(text, str):
        return ParsedAnswer(task, False, error=f"the response must be text, got {type(text).__name__}")
    if not text.strip():
        return ParsedAnswer(task, False, error="the response is empty")
    try:
        clean = _prep(text)
        for region, level in _regions(clean):
            if level == _COLON:
                if not _colon_region_ok(task, region):
                    continue
                if task == "val":
                    region = _first_line(region)
            marked = level != _UNMARKED
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
    if task == "val":
        return ("no index found: answer with the 0-based position of the first inapplicable action, e.g. 'Answer: 3' "
                "(ordinals such as '4th' are not read, they are usually 1-based)")
    if task == "prog":
        return ("could not tell positive from negative effects: write 'Positive effects: [(p a)] "
                "Negative effects: [(q b)]' or two bracketed lists")
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
    elems = _read(_INNER.sub(lambda m: "(" + " ".join(m.group(1).split()) + ")", _calls(text.strip().strip("`").lower())),
                  keep_words="all")
    groups = [e for e in elems if isinstance(e, _Group)]
    lists = [e for e in elems if isinstance(e, _List)]
    words = [e for e in elems if _is_word(e)]
    if lists and not groups and not words and len(lists) == 1:  # "[(a b)]"
        elems = lists[0].children
        groups = [e for e in elems if isinstance(e, _Group)]
        words = [e for e in elems if _is_word(e)]
        lists = [e for e in elems if isinstance(e, _List)]
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
    pn = _words_to_name(words)
    if pn is None:
        raise ValueError(f"{text!r} has no name inside the parentheses")
    return pn
