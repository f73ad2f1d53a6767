"""What the answer reader returns (:class:`ParsedName`, :class:`ParsedAnswer`) and the task names it knows.

Every stage of the reader imports from here, so this module imports none of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..kinds import HARD, KINDS, form_kind

__all__ = ["ParsedName", "ParsedAnswer", "TASKS", "TASK_ALIASES", "canonical_task"]

TASKS: tuple[str, ...] = HARD
TASK_ALIASES: dict[str, str] = {KINDS[t].group: t for t in TASKS}  # record group -> task


# lm-eval's ACPBench Hard task names: acp_<task>_gen (2-shot) and acp_<task>_gen_with_pddl (the PDDL in front)
_LM_EVAL_TASK = re.compile(r"acp_([a-z]+)_gen(?:_with_pddl)?")


@dataclass(frozen=True)
class ParsedName:
    """One atom or ground action as written: lower-cased name and arguments, canonical text."""

    name: str
    args: tuple[str, ...]
    text: str

    @classmethod
    def of(cls, name: str, args=()) -> ParsedName:
        """A name from its parts, lower-cased, with its canonical text."""
        name = name.lower()
        args = tuple(a.lower() for a in args)
        return cls(name, args, "(" + " ".join((name, *args)) + ")")

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class ParsedAnswer:
    """What could be read from a response; the rules are in :mod:`acptools.answers.decisions`."""

    task: str
    ok: bool
    items: tuple[ParsedName, ...] = ()
    negative: tuple[ParsedName, ...] = ()
    index: int | None = None
    none: bool = False
    error: str = ""


def canonical_task(task: str) -> str:
    """'app', a group name such as 'applicable_actions_gen' or an lm-eval task name such as
    'acp_app_gen_with_pddl' -> 'app'; a generated form's group or kind -> its kind ('landmarks_bool' ->
    'land_bool', see acptools.kinds); ValueError otherwise."""
    if isinstance(task, str):
        t = task.strip().lower()
        if t in TASKS:
            return t
        if t in TASK_ALIASES:
            return TASK_ALIASES[t]
        m = _LM_EVAL_TASK.fullmatch(t)
        if m and m.group(1) in TASKS:
            return m.group(1)
        kind = form_kind(t)  # a generated form: 'applicable_actions_bool' -> 'app_bool' (acptools.kinds)
        if kind is not None:
            return kind
    raise ValueError(
        f"unknown task {task!r}: expected one of {', '.join(TASKS)}, a group name ({', '.join(TASK_ALIASES)}), "
        f"an lm-eval task name (acp_<task>_gen, acp_<task>_gen_with_pddl) or a generated form's (see acptools.kinds)"
    )
