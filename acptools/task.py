"""The public task: a grounded task plus the questions you can ask about it.

`Task` holds a `GroundedTask` (acptools.ground) and shows its public face by name (`FACE`: identity
and model, names, parsing, semantics); the engines and the question layer take the grounded task
itself. `load_task` grounds through acptools.ground.pipeline, one named and timed step at a time.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cached_property
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import AcpError
from .ground.grounded import GroundedTask, task_key
from .ground.grounding import MAX_GROUND_OPERATORS
from .ground.numeric import number_text
from .ground.pipeline import ground_task
from .questions import Questions

__all__ = ["FACE", "Task", "load_task", "task_key"]

# what a Task shows of its grounded task, read through by name (the rest is the engine's: `task.grounded`)
FACE = {
    "identity and model": (
        "key",
        "id",
        "domain_text",
        "problem_text",
        "domain",
        "problem",
        "types",
        "fluents",
        "static_true",
        "footprint",
        "axioms",
        "derived",
        "metric",
        "metric_reason",
    ),
    "names": (
        "atoms",
        "atom_names",
        "atom_name_index",
        "atom_index",
        "action_names",
        "action_index",
        "names",
        "action_list",
        "num_actions",
        "num_possible_actions",
        "possible_actions",
        "possible_set",
        "possible_action_ids",
        "all_ground_actions",
        "written_domain_text",
        "problem_for",
    ),
    "parsing": ("parse_action", "parse_atom", "parse_state", "parse_plan", "action_id"),
    "semantics": (
        "init",
        "goal",
        "goal_atoms",
        "operators",
        "ops_of_action",
        "is_goal",
        "applicable",
        "applicable_ops",
        "op_for",
        "apply_op",
        "run",
        "is_plan",
        "unsatisfied",
        "false_static_facts",
        "close",
    ),
}


class Task:
    """A PDDL task parsed and grounded once; `task.questions` answers the eight ACP questions.

    The names in `FACE` read through to `grounded`, the GroundedTask it holds."""

    if TYPE_CHECKING:  # the FACE names are set on the class below, read through to `grounded`

        def __getattr__(self, name: str) -> Any: ...

    def __init__(self, grounded: GroundedTask, up=None):
        self.grounded = grounded
        # names back to the unified-planning Problem the task was loaded from (acptools.up.UPNames), else None
        self.up = up

    @cached_property
    def questions(self) -> Questions:
        """The questions about this task (their engines and caches are built on first use)."""
        return Questions(self.grounded)

    @property
    def approx_bytes(self) -> int:
        """Rough memory held by this task, its engines and their caches (what a cache of tasks budgets)."""
        questions = self.__dict__.get("questions")
        return self.grounded.approx_bytes + (0 if questions is None else questions.approx_bytes)

    def __repr__(self) -> str:
        return f"<Task {self.grounded.domain.name}/{self.grounded.problem.name} {self.grounded.id}>"


def cost_text(value: Fraction) -> str:
    """A cost or numeric value as exact text: its decimal when it has one ("1.25"), else "n/d"."""
    return number_text(value)


def _read_through(name: str) -> property:
    """A property reading `name` of the task's grounded task (a method comes back bound to it)."""
    member = GroundedTask.__dict__.get(name)
    doc = member.__doc__ if callable(member) or isinstance(member, (property, cached_property)) else None
    return property(lambda self: getattr(self.grounded, name), doc=doc or f"The grounded task's `{name}`.")


for _name in chain(*FACE.values()):
    setattr(Task, _name, _read_through(_name))


def load_task(
    domain,
    problem=None,
    max_operators: int = MAX_GROUND_OPERATORS,
    budget=None,
    *,
    ground_all: bool = False,
    max_bytes: int | None = None,
    max_actions: int | None = None,
) -> Task:
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
            raise AcpError(
                "load_task needs a domain and a problem (PDDL text or pathlib.Path), or one "
                f"unified-planning Problem; got only a {type(domain).__name__}",
                "problem",
                "pass load_task(domain_text, problem_text)",
            )
        from .ground.unified import convert

        domain, problem, names = convert(domain)
        task = load_task(
            domain, problem, max_operators, budget, ground_all=ground_all, max_bytes=max_bytes, max_actions=max_actions
        )
        task.up = names
        return task
    if isinstance(domain, Path):
        domain = domain.read_text()
    if isinstance(problem, Path):
        problem = problem.read_text()
    return Task(
        ground_task(
            domain, problem, max_operators, budget, ground_all=ground_all, max_bytes=max_bytes, max_actions=max_actions
        )
    )


def _is_unified_planning_problem(value) -> bool:
    """Whether `value` is a unified-planning Problem, told without importing unified_planning (an
    optional dependency that takes about a second to import)."""
    return any(
        cls.__module__.startswith("unified_planning.") and cls.__name__ == "Problem" for cls in type(value).__mro__
    )
