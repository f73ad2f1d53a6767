"""acptools: proven answers to questions about action, change and planning in PDDL tasks."""

from __future__ import annotations

from functools import cached_property

from .errors import AcpError, PddlError, UnknownNameError
from .grounding import MAX_GROUND_OPERATORS
from .questions import Questions
from .task import Task
from .task import load_task as _load
from .verdict import Verdict

__version__ = "0.1.0"

Task.questions = cached_property(lambda self: Questions(self))
Task.questions.__set_name__(Task, "questions")


def load_task(domain, problem, max_operators: int = MAX_GROUND_OPERATORS) -> Task:
    """Parse and ground a task once (PDDL text, or `pathlib.Path`s of files); ask it questions via
    `.questions`. Grounding stops with an error past `max_operators` ground operators."""
    return _load(domain, problem, max_operators)


__all__ = ["AcpError", "PddlError", "UnknownNameError", "Questions", "Task", "Verdict", "load_task", "__version__"]
