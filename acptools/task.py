"""The public task: a grounded task plus the questions you can ask about it.

`Task` sits above the question layer (which works on `GroundedTask`), so asking
`task.questions` needs no import that points back down.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from .errors import AcpError
from .ground.grounded import GroundedTask, task_key
from .ground.grounding import MAX_GROUND_OPERATORS
from .questions import Questions

__all__ = ["Task", "load_task", "task_key"]


class Task(GroundedTask):
    """A PDDL task parsed and grounded once; `task.questions` answers the eight ACP questions."""

    # names back to the unified-planning Problem the task was loaded from (acptools.up.UPNames), else None
    up = None

    @cached_property
    def questions(self) -> Questions:
        """The questions about this task (their engines and caches are built on first use)."""
        return Questions(self)

    @property
    def approx_bytes(self) -> int:
        """Rough memory held by this task, its engines and their caches (what a cache of tasks budgets)."""
        questions = self.__dict__.get("questions")
        return GroundedTask.approx_bytes.fget(self) + (0 if questions is None else questions.approx_bytes)


def load_task(domain, problem=None, max_operators: int = MAX_GROUND_OPERATORS, budget=None, *,
              ground_all: bool = False, max_bytes: int | None = None, max_actions: int | None = None) -> Task:
    """Parse and ground a task once; ask it questions through `.questions`.

    `domain` and `problem` are PDDL text, or `pathlib.Path`s of files. A plain string is always
    text, so a server passing user input here can never be tricked into reading a file. Grounding
    stops with an `AcpError` past `max_operators` ground operators; malformed PDDL is a `PddlError`
    with line and column. With a `Budget`, grounding stops (BudgetExceeded) once it is spent or
    cancelled. Operators are grounded as questions need them (relaxed reachability, continued
    for any state asked about); `ground_all=True` grounds every action the static facts allow at
    once (the same answers, slower to load). With `max_bytes`, a task that may need more memory
    than that (an upper estimate from the lifted model, see `acptools.ground.footprint`) is refused with
    an `AcpError` (where 'memory') before anything is grounded, what its quantified formulas expand to
    included; with `max_actions`, so is a task with more ground actions than that whose preconditions
    the static facts allow ('ground actions'); with a `budget`, so is one whose goal and axioms expand
    more quantifier bindings than grounding could visit in the time it has ('budget').

    `load_task(problem)` with one unified-planning `Problem` (pip install 'acptools[up]') writes
    it as PDDL with unified-planning's own PDDLWriter and loads that; `task.up` maps names back to
    the Problem's objects, fluents and actions (see acptools.up). A feature acptools does not
    support (numeric fluents, durative actions, ...) is an AcpError naming it.
    """
    if problem is None:
        if not _is_unified_planning_problem(domain):
            raise AcpError("load_task needs a domain and a problem (PDDL text or pathlib.Path), or one "
                           f"unified-planning Problem; got only a {type(domain).__name__}", "problem",
                           "pass load_task(domain_text, problem_text)")
        from .ground.unified import convert
        domain, problem, names = convert(domain)
        task = load_task(domain, problem, max_operators, budget, ground_all=ground_all, max_bytes=max_bytes,
                         max_actions=max_actions)
        task.up = names
        return task
    if isinstance(domain, Path):
        domain = domain.read_text()
    if isinstance(problem, Path):
        problem = problem.read_text()
    return Task(domain, problem, max_operators, budget, ground_all=ground_all, max_bytes=max_bytes,
                max_actions=max_actions)


def _is_unified_planning_problem(value) -> bool:
    """Whether `value` is a unified-planning Problem, told without importing unified_planning (an
    optional dependency that takes about a second to import)."""
    return any(cls.__module__.startswith("unified_planning.") and cls.__name__ == "Problem"
               for cls in type(value).__mro__)
