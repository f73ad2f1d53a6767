"""unified-planning's own engines on a NumericTask: its PlanValidator and SequentialSimulator (a second
opinion on the oracle's verdicts), ENHSP (up-enhsp, needs Java 17+) and Fast Downward's cost-optimal
search (up-fast-downward). All take and return the oracle's strings: "(name a b)"."""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings

from unified_planning.engines import PlanGenerationResultStatus as Status
from unified_planning.engines import ValidationResultStatus
from unified_planning.plans import ActionInstance, SequentialPlan
from unified_planning.shortcuts import OneshotPlanner

from tests.support.numeric_compile import fluent_key
from tests.support.numeric_oracle import NumericTask, State, normalize, state_of
from tests.support.up_engines import up_simulator, up_validator

SOLVED = {Status.SOLVED_OPTIMALLY, Status.SOLVED_SATISFICING}


def enhsp_available() -> bool:
    try:
        import up_enhsp  # noqa: F401
    except ImportError:
        return False
    return shutil.which("java") is not None


def to_up_plan(task: NumericTask, plan: list[str]) -> SequentialPlan:
    problem = task.up_problem
    steps = []
    for step in plan:
        name, *args = normalize(step).strip("()").split()
        steps.append(ActionInstance(problem.action(name), [problem.object(a) for a in args]))
    return SequentialPlan(steps)


def from_up_plan(plan) -> list[str]:
    return [fluent_key(a.action.name, [p.object().name for p in a.actual_parameters]) for a in plan.actions]


def up_validates(task: NumericTask, plan: list[str]) -> bool:
    """UP's PlanValidator on the plan (raises where UP cannot validate the task, e.g. undefined fluents)."""
    problem = task.up_problem
    with up_validator(problem) as validator:
        return validator.validate(problem, to_up_plan(task, plan)).status == ValidationResultStatus.VALID


def up_trajectory(task: NumericTask, plan: list[str]) -> list[State]:
    """The states UP's SequentialSimulator visits along a plan, in the oracle's format (UP's numbers
    are Fractions or ints; they are not rounded here)."""
    problem = task.up_problem
    simulator = up_simulator(problem)
    state = simulator.get_initial_state()
    out = [_as_state(problem, state)]
    for step in to_up_plan(task, plan).actions:
        state = simulator.apply(state, step)
        out.append(_as_state(problem, state))
    return out


def _as_state(problem, up_state) -> State:
    return state_of((f, up_state.get_value(f)) for f in problem.initial_values)


def _solve(task: NumericTask, engine: str, timeout: float):
    here, folder = os.getcwd(), tempfile.mkdtemp(prefix="numeric-oracle-")
    os.chdir(folder)  # Fast Downward's translator writes output.sas into the working folder
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # UP's notes on the problem kind
            with OneshotPlanner(name=engine) as planner:
                return planner.solve(task.up_problem, timeout=timeout)
    finally:
        os.chdir(here)
        shutil.rmtree(folder, ignore_errors=True)


def plan_with(task: NumericTask, engine: str, timeout: float = 60) -> tuple[str, list[str] | None]:
    """(UP's status name, the plan or None) from a planner UP drives: "enhsp", "enhsp-opt",
    "fast-downward-opt", ..."""
    result = _solve(task, engine, timeout)
    return result.status.name, (from_up_plan(result.plan) if result.status in SOLVED else None)
