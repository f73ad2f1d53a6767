"""The published ACPBench Hard scorer's answer extraction (lm-eval's `acp_utils.py`), reimplemented.

Follows docs/reference-scorer.md (the harness path): cut the text at the yaml's stop strings
(:func:`cut_until`), apply the group's :func:`clean` step, then read it with the same Lark grammar and
the same error recovery (:func:`grammar_parse`). :func:`extract` does all three. The evaluators'
helpers that normalise what was read (:func:`fix_action_name`, :func:`cleanup_answer`) are here too.
Nothing from lm-eval is imported; grading lives in :mod:`acptools.scoring.reference`.
"""

from __future__ import annotations

from functools import cache

from lark import Lark
from lark.lexer import Token
from lark.visitors import Visitor

__all__ = [
    "GRAMMAR",
    "UNTIL",
    "START",
    "grammar_parse",
    "cut_until",
    "clean",
    "extract",
    "fix_action_name",
    "cleanup_answer",
]

# acp_grammar.lark of lm-eval 0.4.13 (tasks/acpbench/gen_2shot), byte for byte
GRAMMAR = r"""NAME: /[a-zA-Z][a-zA-Z0-9-_]*/
LPAR : "("
RPAR : ")"
LSPAR: "["
RSPAR: "]"
COMMA: ","
WS: /[ \n]/

action_none : "None"

action_name : LPAR NAME (WS NAME)* RPAR

action_list : (action_name WS?)*

prog_list :  action_name* (COMMA action_name)*

progression_list : LSPAR prog_list RSPAR LSPAR prog_list RSPAR

act : action_name | action_none

index: /[0-9]+[0-9]*/

start: action_list
"""

UNTIL = ["\n\n\n\n", "\n\n", "**Question**:", "**Question:**", "Q:"]  # _gen_yaml_2shot generation_kwargs

# the grammar rule each task's answer is read with
START = {
    "app": "action_list",
    "prog": "progression_list",
    "reach": "act",
    "areach": "act",
    "val": "index",
    "just": "action_list",
    "land": "act",
    "nexta": "action_name",
}


@cache
def _lark(start: str) -> Lark:
    return Lark(GRAMMAR, start=start, parser="lalr")


class _Visitor(Visitor):
    """ACPBench_Visitor: collects what the evaluators read, visiting the tree top-down."""

    def __init__(self):
        super().__init__()
        self.action_lists = None
        self.action_names = None
        self.progression_lists = None
        self.prog_lists = None
        self.indexes = None

    def action_list(self, tree):
        self.action_lists = []

    def prog_list(self, tree):
        if self.prog_lists is not None:
            self.progression_lists.append(self.prog_lists)
        self.prog_lists = []

    def progression_list(self, tree):
        self.progression_lists = []

    def action_none(self, tree):
        self.action_names = "None"

    def action_name(self, tree):
        name = "(" + "".join(tree.children[1:-1]) + ")"
        self.action_names = name
        if self.action_lists is not None:
            self.action_lists.append(name)
        if self.prog_lists is not None:
            self.prog_lists.append(name)

    def index(self, tree):
        self.indexes = "".join(tree.children)
        if not self.indexes.isnumeric():
            self.indexes = None


def grammar_parse(start: str, text: str):
    """ACPGrammarParser(start).parse(text): str, list, list of lists, or None (nothing parsed)."""
    parser = _lark(start)

    def ignore_errors(e):
        if hasattr(e, "token") and e.token.type == "$END":
            for x in e.expected:
                if x != "WS":
                    e.interactive_parser.feed_token(Token(x, parser.get_terminal(x).pattern.value))
        return True

    text = text.replace("\n", "").strip()
    try:
        tree = parser.parse(text, on_error=ignore_errors)
        v = _Visitor()
        v.visit_topdown(tree)
        if start == "action_list":
            return v.action_lists
        if start in ("act", "action_name"):
            return v.action_names
        if start == "index":
            return v.indexes
        if v.prog_lists not in v.progression_lists:
            v.progression_lists.append(v.prog_lists)
        return v.progression_lists
    except Exception:  # noqa: BLE001 - the reference turns every parser failure into "nothing parsed"
        return None


def cut_until(text: str) -> str:
    """lm-eval's postprocess_generated_text with the yaml's stop strings."""
    for term in UNTIL:
        text = text.split(term)[0]
    return text


def clean(kind: str, text: str) -> str:
    """The group's clean step: prog answers written as labelled effects become two bracketed lists,
    just answers keep what follows 'simplified plan:'."""
    low = text.lower()
    if kind == "prog" and "positive effects" in low and "negative effects" in low and "[" not in text:
        return low.replace("*", "").replace("positive effects", "[").replace("negative effects", "] [") + "]"
    if kind == "just" and "simplified plan:" in low:
        return low.replace("*", "").split("simplified plan:")[1]
    return text


def extract(kind: str, response: str, until: bool = True):
    """What the reference reads from `response` for task `kind` (see `grammar_parse` for the shapes);
    until=False skips the stop strings, as an API run without them does."""
    if until:
        response = cut_until(response)
    return grammar_parse(START[kind], clean(kind, response))


# ---- the evaluators' helpers ---------------------------------------------------------------------


def fix_action_name(a: str) -> str:
    """'(a  b )' -> '(a b)': the evaluators' normalisation of one action read by the grammar."""
    return "(" + " ".join(x.strip() for x in a[1:-1].split(" ") if len(x) > 0) + ")"


def cleanup_answer(ans) -> list[str]:
    """The evaluators' cleanup_answer: lower-case each action, split glued '(a) (b)' strings."""
    if isinstance(ans, str):
        s = ans
        if not s.startswith("("):
            i = s.find("(")
            s = s[i:] if i >= 0 else ""
        if not s.endswith(")"):
            i = s.rfind(")")
            s = s[: i + 1] if i >= 0 else ""
        s = s.lower()
        return s.replace(")\n(", ")######(").replace("),(", ")######(").replace(") (", ")######(").split("######")
    out: list[str] = []
    for x in ans:
        out.extend(cleanup_answer(x))
    return out
