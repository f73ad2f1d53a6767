"""The public task: a grounded task plus the questions you can ask about it.

`Task` sits above the question layer (which works on `GroundedTask`), so asking
`task.questions` needs no import that points back down.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from .ground.grounded import GroundedTask, task_key
from .ground.grounding import MAX_GROUND_OPERATORS
from .questions import Questions

__all__ = ["Task", "load_task", "task_key"]


class Task(GroundedTask):
    """A PDDL task parsed and grounded once; `task.questions` answers the eight ACP questions."""

    @cached_property
    def questions(self) -> Questions:
        """The questions about this task (their engines and caches are built on first use)."""
        return Questions(self)


def load_task(domain, problem, max_operators: int = MAX_GROUND_OPERATORS, budget=None, *,
              ground_all: bool = False, max_bytes: int | None = None, max_actions: int | None = None) -> Task:
    """Parse and ground a task once; ask it questions through `.questions`.

    `domain` and `problem` are PDDL text, or `pathlib.Path`s of files. A plain string is always
    text, so a server passing user input here can never be tricked into reading a file. Grounding
    stops with an `AcpError` past `max_operators` ground operators; malformed PDDL is a `PddlError`
    with line and column. With a `Budget`, grounding stops (BudgetExceeded) once it is spent or
    cancelled. Operators are grounded as questions need them (relaxed reachability, continued
    for any state asked about); `ground_all=True` grounds every action the static facts allow at
    once (the same answers, slower to load). With `max_bytes`, a task that may need more memory
    than that (an upper estimate from the lifted model, see `acptools.footprint`) is refused with
    an `AcpError` (where 'memory') before anything is grounded; with `max_actions`, so is a task
    with more ground actions than that whose preconditions the static facts allow ('ground actions').
    """
    if isinstance(domain, Path):
        domain = domain.read_text()
    if isinstance(problem, Path):
        problem = problem.read_text()
    return Task(domain, problem, max_operators, budget, ground_all=ground_all, max_bytes=max_bytes,
                max_actions=max_actions)
