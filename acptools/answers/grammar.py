"""Reading a cleaned answer region as a tree, and the tree's groups as atoms and actions.

The lark LALR grammar shipped in the package (``answer.lark``, compiled once) reads a region as a
sequence of parenthesised groups, bracketed lists, section labels and words. :func:`read` balances
the brackets first, so it cannot fail on odd input; :func:`walk` turns the tree into names.

What counts as an atom/action: a group ``(name arg ...)`` whose name starts with a letter. Groups
that read as prose are skipped: the first word or an argument is an English function word
(``(e.g. the first one)``, ``(see above)``, ``(sail from l0 to l1)``) or an argument is a
``?variable`` (a lifted schema). ``(not (p x))`` is a negated atom. A group that holds other groups
(``((a x) (b y))``, ``(and (p) (q))``) is a container: its inner groups are read, its words dropped.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from functools import cache
from importlib import resources

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError

from .parsed import ParsedName

# The grammar's POS and NEG terminals: the pre-pass replaces prog section labels ("Positive
# effects:", "del:") by these private-use characters, which no response contains.
POS_MARK, NEG_MARK = "\ue000", "\ue001"
LABEL_MARKS = frozenset({POS_MARK, NEG_MARK})

# Words that say "empty" in a prog section ("Negative effects: none"); the only prose words kept
# outside brackets when reading a prog region, besides the section labels.
EMPTY_WORDS = frozenset(
    {"none", "none.", "nothing", "nothing.", "empty", "n/a", "nil", "null", "no", "-", "--", "—", "∅", "{}"}
)


# --------------------------------------------------------------------------------------------------
# the tree


class Group:
    """A parenthesised group: its words (str) and its nested groups/lists, in order."""

    __slots__ = ("words", "subs")

    def __init__(self, words, subs):
        self.words, self.subs = words, subs


class BracketList:
    """A bracketed list ``[...]``: its elements (groups, lists, word tokens), in order."""

    __slots__ = ("children",)

    def __init__(self, children):
        self.children = children


class Section:
    """A prog section: ``kind`` is "pos" or "neg", ``children`` the elements up to the next label."""

    __slots__ = ("kind", "children")

    def __init__(self, kind, children):
        self.kind, self.children = kind, children


class _TreeBuilder(Transformer):
    """Inline LALR callbacks: groups, lists and sections become small objects; tokens stay tokens."""

    def pos_section(self, children):
        return Section("pos", children[1:])

    def neg_section(self, children):
        return Section("neg", children[1:])

    def start(self, children):
        return children

    def group(self, children):
        if len(children) == 1 and isinstance(children[0], Token) and children[0].type == "ATOM":
            return Group(_ATOM_WORD.findall(children[0], 1, len(children[0]) - 1), ())  # the fast path
        return Group([c for c in children if is_word(c)], [c for c in children if isinstance(c, (Group, BracketList))])

    def blist(self, children):
        return BracketList(children)


@cache
def _parser() -> Lark:
    text = resources.files(__package__).joinpath("answer.lark").read_text(encoding="utf-8")
    return Lark(text, parser="lalr", lexer="contextual", transformer=_TreeBuilder(), start="start")


def read(text: str, keep_words: str = "") -> list:
    """Top-level elements of `text` (brackets balanced first, so this cannot fail on odd input).

    Words outside all brackets are dropped before lark sees them, so long explanations cost no parsing
    time; keep_words="all" keeps them (parse_name), "prog" keeps section labels and "none"/"no".
    """
    try:
        return _parser().parse(_balance(text, keep_words))
    except LarkError:  # pragma: no cover - defensive: the grammar accepts every balanced input
        return [Token("WORD", w) for w in text.split()]


def is_word(e) -> bool:
    """A WORD token of the tree (not a group, a list or a section label)."""
    return isinstance(e, Token) and e.type == "WORD"


# --------------------------------------------------------------------------------------------------
# balancing brackets

_OPEN = {"(": ")", "[": "]"}
_CLOSE = {")": "(", "]": "["}
_ATOM_WORD = re.compile(r"[^\s()\[\],;'\"`{}\ue000\ue001]+")  # WORD of answer.lark
_BRACKETS = re.compile(r"[()\[\]]")
_SEPARATORS = ",;'\"`{}"


def _prog_words(segment: str) -> str:
    """The words of a prog region outside brackets that matter: section labels and 'none'-like words."""
    keep = [w for w in (t.strip(_SEPARATORS) for t in segment.split()) if w in EMPTY_WORDS or w in LABEL_MARKS]
    return " " + " ".join(keep) + " " if keep else " "


def _balance(text: str, keep_words: str = "all") -> str:
    """Drop closers that match nothing, close what a wrong closer skips over, and close at the end.

    "1) (a x)" -> " (a x)";  "[(a x]" -> "[(a x)]";  "(a x" -> "(a x)", so a numbered list and a
    truncated ``[(a x), (b y`` still read. Unless keep_words="all", words outside all brackets are
    dropped or reduced to the few that matter (see `read`).
    """
    top = (lambda seg: seg) if keep_words == "all" else _prog_words if keep_words == "prog" else (lambda seg: " ")
    if not _BRACKETS.search(text):
        return top(text)
    out: list[str] = []
    stack: list[str] = []
    last = 0
    for m in _BRACKETS.finditer(text):
        ch = m.group()
        seg = text[last : m.start()]
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


def words_to_name(words) -> ParsedName | None:
    """The words of a group (or a bare line) as one name, trailing punctuation dropped; None if empty."""
    toks = []
    for w in words:
        w = w.lower().rstrip(_TRAIL)
        if w:
            toks.append(w)
    if not toks:
        return None
    return ParsedName.of(toks[0], toks[1:])


# Names the task being graded defines (predicates, actions, objects): a task may name a predicate
# 'here' or an object 'no', which would otherwise read as prose. Set by parse_answer(..., known=).
KNOWN_NAMES: ContextVar[frozenset] = ContextVar("known_names", default=frozenset())


def plausible(pn: ParsedName) -> bool:
    """True unless the group reads like prose or a lifted schema (see the module docstring); a
    name the task defines (KNOWN_NAMES) never reads as prose."""
    known = KNOWN_NAMES.get()
    if not _NAME_RE.match(pn.name) or (pn.name in _NAME_STOP and pn.name not in known) or len(pn.args) > 12:
        return False
    for a in pn.args:
        if a[0] == "?" or (a in _ARG_STOP and a not in known):
            return False
    return True


def group_items(g: Group, neg: bool = False):
    """Yield (ParsedName, negated) for one group: an atom, a (not ...), or a container."""
    words, subs = g.words, g.subs
    if not subs:
        pn = words_to_name(words)
        if pn is not None and plausible(pn):
            yield pn, neg
    elif len(words) == 1 and words[0].lower() == "not" and len(subs) == 1 and isinstance(subs[0], Group):
        yield from group_items(subs[0], not neg)
    else:
        yield from walk(subs, neg)


def walk(elems, neg: bool = False):
    """Yield (ParsedName, negated) for every atom/action in `elems`, lists and containers included."""
    for e in elems:
        if isinstance(e, Group):
            yield from group_items(e, neg)
        elif isinstance(e, BracketList):
            yield from walk(e.children, neg)
