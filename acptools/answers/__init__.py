"""Reading model answers: a lark grammar (``answer.lark``) plus a regex pre-pass.

``parse_answer(task, text)`` extracts the structured answer of one of the eight ACPBench Hard tasks
from a free-text response; ``parse_name(text)`` reads one atom or action. See
:mod:`acptools.answers.parse` for the rules applied to ambiguous responses.
"""

from .parse import TASK_ALIASES, TASKS, ParsedAnswer, ParsedName, canonical_task, parse_answer, parse_name

__all__ = ["ParsedName", "ParsedAnswer", "parse_answer", "parse_name", "canonical_task", "TASKS", "TASK_ALIASES"]
