"""Grounding a task, step by step: parse -> footprint -> axioms -> ground -> explore.

Each step is timed and logged at DEBUG on the `acptools.ground` logger (`--log-level DEBUG` on the
command line or the server shows them):

- parse: the domain (shared by the tasks of one domain) and the problem, read into the lifted model;
- footprint: the type table, the static facts and the schemas' joins; the task's size measured from
  the lifted model and refused (AcpError) past the caller's limits, before anything is grounded;
- axioms: the fluent atoms numbered, the derived predicates' rules and the goal grounded;
- ground: the task's tables made (names, init, goal); with `ground_all` (or axioms, which lazy
  grounding does not follow) every action the static facts allow is grounded here;
- explore: lazy grounding's first fixpoint, the operators relaxed-reachable from init.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

from ..pddl import parse_problem
from .axioms import ground_axioms
from .footprint import footprint, within_limits
from .grounded import POSSIBLE_CHECK_EVERY, GroundedTask, Lifted, parsed_domain
from .grounding import MAX_GROUND_OPERATORS, number_comparisons, proposition_atoms

STEPS = ("parse", "footprint", "axioms", "ground", "explore")
log = logging.getLogger("acptools.ground")


@contextmanager
def step(name: str) -> Iterator[None]:
    """One named step of grounding, its wall time logged at DEBUG."""
    start = time.perf_counter()
    try:
        yield
    finally:
        log.debug("grounding step %s: %.4f s", name, time.perf_counter() - start)


def ground_task(
    domain_text: str,
    problem_text: str,
    max_operators: int = MAX_GROUND_OPERATORS,
    budget=None,
    ground_all: bool = False,
    max_bytes: int | None = None,
    max_actions: int | None = None,
) -> GroundedTask:
    """The grounded task of two PDDL texts (see acptools.task.load_task for the limits)."""
    with step("parse"):
        domain = parsed_domain(domain_text)
        problem = parse_problem(problem_text, domain, budget)
    with step("footprint"):
        lifted = Lifted.of(domain, problem)
        size = within_limits(
            footprint(domain, problem, lifted.types, lifted.fluents),
            max_bytes,
            max_actions,
            lambda limit: lifted.count_possible(limit, budget),
            None if budget is None else budget.left(),
        )
    with step("axioms"):
        g = lifted.grounder
        for k, atom in enumerate(proposition_atoms(domain, problem.goal, lifted.types, lifted.fluents)):
            if budget is not None and not k % POSSIBLE_CHECK_EVERY:
                budget.check()
            g.atom_id(atom)
        if g.numeric is not None:
            number_comparisons(domain, problem.goal, lifted.types, g)
        g.frozen = True
        with g.spending(budget):
            axioms = ground_axioms(domain, g, max_operators, budget)  # None without derived predicates
            goal = g.dnf(problem.goal, {})
    with step("ground"):
        # lazy exploration follows neither axioms nor values (no operator adds a comparison atom)
        lazy = not ground_all and not axioms and g.numeric is None
        task = GroundedTask(domain_text, problem_text, lifted, size, axioms, goal, max_operators, lazy)
        if not lazy:
            task.ground_everything(budget)
    with step("explore"):
        if lazy:
            task.explore(budget)
    return task
