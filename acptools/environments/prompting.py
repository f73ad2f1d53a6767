"""The text a model is asked for one record: ACPBench Hard's own prompt for the eight hard tasks,
otherwise the record's context and question (which says how to write the answer), with a line for
the yes/no and 4-choice forms."""

from __future__ import annotations

from ..prompts import prompt_text

HINTS = {"bool": "Answer yes or no.", "mcq": "Answer with the letter of the right option."}


def _with_pddl(record: dict, text: str) -> str:
    return f"PDDL domain:\n{record['PDDL_domain']}\nPDDL problem:\n{record['PDDL_problem']}\n\n{text}"


def prompt(record: dict, pddl: bool = False) -> str:
    """The question text for `record` (pddl: the domain and problem PDDL in front)."""
    form = record.get("form", "hard")
    if form == "hard":
        try:
            return prompt_text(record, pddl)
        except ValueError:
            pass  # a task lm-eval has no prompt for (plan): its question says how to answer
    text = f"{record.get('context', '').strip()}\n{record['question'].strip()}\n{HINTS.get(form, '')}".strip()
    return _with_pddl(record, text) if pddl else text
