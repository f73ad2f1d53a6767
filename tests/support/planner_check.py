"""Solvability decided outside acptools: unified-planning reads the PDDL, the question is put as a
planning problem in unified-planning's own model, and Fast Downward (A* with LM-cut, which proves
unsolvability) answers; a plan it finds is replayed by unified-planning's simulator. Shares no code
with acptools (the Fast Downward binary is the one acptools can also run, driven here by
unified-planning's own translation of the problem)."""

from __future__ import annotations

import os
import tempfile
from functools import lru_cache

from unified_planning.engines import PlanGenerationResultStatus as Status
from unified_planning.io import PDDLReader
from unified_planning.shortcuts import And, Not, OneshotPlanner, get_environment

from tests.support.up_engines import up_simulator

get_environment().credits_stream = None
get_environment().error_used_name = False

SOLVED = {Status.SOLVED_OPTIMALLY, Status.SOLVED_SATISFICING}


def _fluents(problem) -> dict:
    out = {}
    for f in problem.initial_values:
        if f.is_fluent_exp():
            out["(" + " ".join([f.fluent().name.lower()] + [str(a).lower() for a in f.args]) + ")"] = f
    return out


@lru_cache(maxsize=2048)
def solvable(
    domain_text: str, problem_text: str, goal: tuple[str, ...] | None = None, avoid: str | None = None
) -> bool:
    """Can the goal (the problem's own, or the conjunction of `goal` atoms) be reached from the
    problem's init through states that never hold `avoid`? Raises when the planner cannot tell."""
    problem = PDDLReader().parse_problem_string(domain_text, problem_text)
    fluents = _fluents(problem)
    if goal is not None:
        problem.clear_goals()
        problem.add_goal(And(*[fluents[a] for a in goal]) if goal else True)
    if avoid is not None:
        if problem.initial_values[fluents[avoid]].bool_constant_value():
            return False
        for action in problem.actions:  # no step from a state holding it, and no goal state holds it
            action.add_precondition(Not(fluents[avoid]))
        problem.add_goal(Not(fluents[avoid]))
    with tempfile.TemporaryDirectory() as tmp, OneshotPlanner(name="fast-downward-opt") as planner:
        here = os.getcwd()
        os.chdir(tmp)  # Fast Downward's translator writes output.sas into the working folder
        try:
            result = planner.solve(problem)
        finally:
            os.chdir(here)
    if result.status == Status.UNSOLVABLE_PROVEN:
        return False
    assert result.status in SOLVED, f"the planner could not decide: {result.status}"
    _check_plan(problem, result.plan)
    return True


def _check_plan(problem, plan) -> None:
    """The plan reaches the (changed) goal in unified-planning's simulator."""
    sim = up_simulator(problem)
    state = sim.get_initial_state()
    for a in plan.actions:
        assert sim.is_applicable(state, a.action, a.actual_parameters), a
        state = sim.apply(state, a.action, a.actual_parameters)
    assert sim.is_goal(state)
