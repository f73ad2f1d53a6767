"""The prompt a harness sends for one record: ACPBench Hard's own 2-shot prompt (lm-eval's, byte
for byte) for its eight tasks; for the generated forms, the record's context and question followed
by one line saying how to write the answer (the grader reads it leniently, see docs/scoring.md)."""

from __future__ import annotations

from ..answers import TASKS
from ..dataset import task_of
from ..errors import AcpError
from ..prompts import max_tokens, prompt_text, stop_strings

# how to write an answer, per answer type of the generated forms (the record's spec.answer_type)
ANSWER_SHAPES = {
    "bool": "Answer with yes or no.",
    "choice": "Answer with the letter of the one correct option.",
    "set": "Answer with the list of names, for example [(a x) (b y)], or None if there are none.",
    "effects": "Answer with two lists: the positive effects, then the negative effects, e.g. [(a x)] [(b y)].",
    "count": "Answer with a number.",
    "index": "Answer with the number of the first step that cannot be executed, or None if every step can.",
    "value": "Answer with the exact number: an integer, a decimal or a fraction such as 5/4.",
    "name": "Answer with the name, or None.",
    "plan": "Answer with the plan: one action per line, for example (a x y).",
}
FORM_STOPS: list[str] = []  # the generated forms' answers end where the model stops
FORM_MAX_TOKENS = 512


def _answer_type(record: dict) -> str | None:
    spec = record.get("spec")
    return spec.get("answer_type") if isinstance(spec, dict) else None


def is_hard(record: dict) -> bool:
    """Is this one of ACPBench Hard's eight tasks (which have lm-eval's prompts)?"""
    try:
        return task_of(record) in TASKS
    except AcpError:
        return False


def record_prompt(record: dict, pddl: bool = False) -> str:
    """The prompt text for `record` (pddl: the PDDL domain and problem in front)."""
    if is_hard(record):
        return prompt_text(record, pddl)
    parts = []
    if pddl and record.get("PDDL_domain"):
        parts.append(f"PDDL domain:\n{record['PDDL_domain']}\n\nPDDL problem:\n{record.get('PDDL_problem', '')}")
    parts += [str(record.get("context", "")), str(record.get("question", ""))]
    shape = ANSWER_SHAPES.get(_answer_type(record))
    if shape:
        parts.append(shape)
    return "\n\n".join(p for p in parts if p) + "\n"


def record_stops(record: dict, pddl: bool = False) -> tuple[list[str], int | None]:
    """(stop strings, token limit) for `record`: lm-eval's for ACPBench Hard, none and 512 otherwise."""
    if is_hard(record):
        kind = task_of(record)
        return stop_strings(kind, pddl), max_tokens(kind, pddl)
    return list(FORM_STOPS), FORM_MAX_TOKENS
