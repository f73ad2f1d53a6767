"""Plan validation as a unified-planning ValidationResult: the failing step, why it fails (its
unsatisfied preconditions as the Problem's expressions), and the trace of states up to it.

The log message uses unified-planning's own wording ("Preconditions [...] of 3-th action instance
... are not satisfied."), so a tool that reads SequentialPlanValidator's log reads ours; `metrics`
adds the same facts as text (0-based index, atom names).
"""

from __future__ import annotations

from unified_planning.engines.results import FailedValidationReason, LogLevel, LogMessage, ValidationResult
from unified_planning.engines.results import ValidationResultStatus as Status
from unified_planning.exceptions import UPUsageError

from .. import AcpError
from ..questions.basic import unmet_goals


def validation_result(name: str, bridge, plan, problem) -> ValidationResult:
    """Replay a SequentialPlan from the initial state and report as SequentialPlanValidator does (as
    the engine `name`)."""
    task = bridge.task
    state = task.init
    trace = [bridge.state(state)]
    for k, ai in enumerate(plan.actions):
        try:
            aid = bridge.action_id(ai)
        except AcpError as e:
            raise UPUsageError(f"{k + 1}-th action instance {ai}: {e}") from e
        op = task.op_for(aid, state)
        if op is None:
            return _inapplicable(name, bridge, k, ai, aid, state, trace)
        state = task.apply_op(op, state)
        trace.append(bridge.state(state))
    if task.is_goal(state):
        return ValidationResult(Status.VALID, name, [], _metric_values(problem, plan), trace=trace)
    unmet = unmet_goals(task, state)
    msg = f"Goals {bridge.exps(unmet)} are not satisfied by the plan."
    return ValidationResult(
        Status.INVALID,
        name,
        [LogMessage(LogLevel.INFO, msg)],
        None,
        FailedValidationReason.UNSATISFIED_GOALS,
        metrics={"unmet_goals": " ".join(unmet)},
        trace=trace,
    )


def _inapplicable(name: str, bridge, k: int, ai, aid: int, state: int, trace: list) -> ValidationResult:
    task = bridge.task
    if task.ops_of_action[aid]:
        unsat = task.unsatisfied(aid, state).describe()
        conditions = bridge.exps(unsat)
    else:  # no operator: a static precondition (one no action changes) is false in this problem
        unsat = ["a static precondition that is false in this problem"]
        conditions = [bridge.false]
    msg = f"Preconditions {conditions} of {k + 1}-th action instance {ai} are not satisfied."
    metrics = {"first_inapplicable": str(k), "unsatisfied_preconditions": "; ".join(unsat)}
    return ValidationResult(
        Status.INVALID,
        name,
        [LogMessage(LogLevel.INFO, msg)],
        None,
        FailedValidationReason.INAPPLICABLE_ACTION,
        inapplicable_action=ai,
        metrics=metrics,
        trace=trace,
    )


def _metric_values(problem, plan):
    """The plan's value for a plan-length metric (other metrics are not evaluated: None)."""
    metrics = problem.quality_metrics
    if len(metrics) == 1 and metrics[0].is_minimize_sequential_plan_length():
        return {metrics[0]: len(plan.actions)}
    return None
