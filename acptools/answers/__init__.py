"""Reading model answers: a regex pre-pass plus a lark grammar (``answer.lark``).

``parse_answer(task, text)`` extracts the structured answer of one of the eight ACPBench Hard tasks
from a free-text response; ``parse_name(text)`` reads one atom or action. The reader works in stages,
one module each: :mod:`.clean` (cleaning, candidate regions, answer lines), :mod:`.grammar` (the
tree and its names) and :mod:`.tasks` (the per-task rules for ambiguous responses, documented there).

:mod:`.lm_eval_extract` is the other reader: the published lm-eval scorer's extraction (its grammar and
error recovery), reimplemented, for reference semantics (``lm_eval_extract.extract(task, text)``).
"""

import importlib
from typing import TYPE_CHECKING

from .parsed import TASK_ALIASES, TASKS, ParsedAnswer, ParsedName, canonical_task

if TYPE_CHECKING:
    from . import form_readers, lm_eval_extract
    from .decisions import parse_answer, parse_name, vocabulary

# the reader's names and modules, imported on first use (its grammar is compiled then): naming a task
# (canonical_task, TASKS) costs no parser
_LAZY = {
    "parse_answer": ".decisions",
    "parse_name": ".decisions",
    "vocabulary": ".decisions",
    "form_readers": None,
    "lm_eval_extract": None,
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'acptools.answers' has no attribute {name!r}")
    module = importlib.import_module(_LAZY[name] or f".{name}", __name__)
    value = module if _LAZY[name] is None else getattr(module, name)
    globals()[name] = value
    return value


__all__ = [
    "ParsedName",
    "ParsedAnswer",
    "parse_answer",
    "parse_name",
    "vocabulary",
    "canonical_task",
    "TASKS",
    "TASK_ALIASES",
    "lm_eval",
    "forms",
]
