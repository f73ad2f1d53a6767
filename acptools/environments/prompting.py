"""The text a model is asked for one record: ACPBench Hard's own prompt for the eight hard tasks,
otherwise the record's context and question with a line saying how to write the answer."""

from __future__ import annotations

from ..prompts import prompt_text

HINTS = {
    "bool": "Answer yes or no.",
    "mcq": "Answer with the letter of the right option.",
    "set": "Answer with a list in brackets, e.g. [(pred a b), (pred c)], or [] for none.",
    "effects": "Answer with two lists in brackets: the positive effects, then the negative effects.",
    "number": "Answer with a number.",
    "name": "Answer with the one item asked for, as (name arg1 arg2).",
    "plan": "Answer with the actions in order, in brackets: [(action a b), (action c)].",
    "choice": "Answer with the letter of the right option.",
}
HARD_EXTRA = {"plan": "Answer with a plan that reaches the goal, as a list of actions in brackets."}


def _answer_type(record: dict) -> str:
    spec = record.get("spec")
    return spec.get("answer_type", "") if isinstance(spec, dict) else ""


def _with_pddl(record: dict, text: str) -> str:
    return f"PDDL domain:\n{record['PDDL_domain']}\nPDDL problem:\n{record['PDDL_problem']}\n\n{text}"


def prompt(record: dict, pddl: bool = False) -> str:
    """The question text for `record` (pddl: the domain and problem PDDL in front)."""
    form = record.get("form", "hard")
    if form == "hard" and record.get("group") != "plan_gen":
        try:
            return prompt_text(record, pddl)
        except ValueError:
            pass  # a hard task lm-eval has no prompt for: written as the other forms are
    hint = HINTS.get(form) if form in ("bool", "mcq") else HINTS.get(_answer_type(record), "")
    hint = hint or HARD_EXTRA.get(record.get("group", "").removesuffix("_gen"), "")
    text = f"{record.get('context', '').strip()}\n{record['question'].strip()}\n{hint}".strip()
    return _with_pddl(record, text) if pddl else text
