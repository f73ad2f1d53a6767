"""Reading model answers: a regex pre-pass plus a lark grammar (``answer.lark``).

``parse_answer(task, text)`` extracts the structured answer of one of the eight ACPBench Hard tasks
from a free-text response; ``parse_name(text)`` reads one atom or action. The reader works in stages,
one module each: :mod:`.clean` (cleaning, candidate regions, answer lines), :mod:`.grammar` (the
tree and its names) and :mod:`.tasks` (the per-task rules for ambiguous responses, documented there).

:mod:`.lm_eval` is the other reader: the published lm-eval scorer's extraction (its grammar and
error recovery), reimplemented, for reference semantics (``lm_eval.extract(task, text)``).
"""

from . import forms, lm_eval
from .decisions import parse_answer, parse_name, vocabulary
from .types import TASK_ALIASES, TASKS, ParsedAnswer, ParsedName, canonical_task

__all__ = ["ParsedName", "ParsedAnswer", "parse_answer", "parse_name", "vocabulary", "canonical_task", "TASKS",
           "TASK_ALIASES", "lm_eval", "forms"]
