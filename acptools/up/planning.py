"""The one-shot planner's answer as a unified-planning PlanGenerationResult.

An optimal plan is proven optimal in the task's metric (h* is its cost, or its length without
action costs; the proof's kind is in the metrics). unified-planning calls a plan SOLVED_OPTIMALLY
only against the Problem's quality metric, so that status needs a metric acptools optimises: plan
length, or fixed action costs. Otherwise the plan is SOLVED_SATISFICING and the log says why.
"""

from __future__ import annotations

import time

from unified_planning.engines import PlanGenerationResult
from unified_planning.engines import PlanGenerationResultStatus as Status
from unified_planning.engines.results import LogLevel, LogMessage
from unified_planning.plans import SequentialPlan

from .. import Budget

OPTIMAL_SHARE = 0.75  # of a timeout, spent proving a shortest plan before settling for any plan


def plan_result(name: str, bridge, problem, optimal: bool, timeout, started: float) -> PlanGenerationResult:
    """Plan with acptools (optimal: a proven shortest plan; with a timeout that runs out, any plan
    found in the rest of it) and report in unified-planning's terms, as the engine `name`."""
    q = bridge.task.questions
    logs: list[LogMessage] = []
    if optimal:
        verdict = q.plan(optimal=True, budget=Budget(None if timeout is None else OPTIMAL_SHARE * timeout, None))
        if verdict.answer is None and timeout is not None:
            logs.append(
                LogMessage(
                    LogLevel.INFO,
                    f"no shortest plan proven in {OPTIMAL_SHARE * timeout:.1f} s; "
                    "searching for any plan in the rest of the timeout",
                )
            )
            left = max(0.0, timeout - (time.perf_counter() - started))
            verdict = q.plan(optimal=False, budget=Budget(left, None))
    else:
        verdict = q.plan(optimal=False, budget=Budget(timeout, None))
    metrics = {"engine_internal_time": f"{time.perf_counter() - started:.6f}", "proof": verdict.how}
    if verdict.answer is None:
        return PlanGenerationResult(Status.TIMEOUT, None, name, metrics, logs)
    if verdict.answer is False:
        logs.append(LogMessage(LogLevel.INFO, f"no plan exists (proof: {verdict.how})"))
        return PlanGenerationResult(Status.UNSOLVABLE_PROVEN, None, name, metrics, logs)
    plan = SequentialPlan([bridge.names.action_instance(a) for a in verdict.witness], problem.environment)
    status = Status.SOLVED_SATISFICING
    if "h_star" in verdict.extra:
        metrics["h_star"] = str(verdict.extra["h_star"])
        if length_decides_metric(problem) or _costs_decide_metric(bridge, problem):
            status = Status.SOLVED_OPTIMALLY
        else:
            logs.append(
                LogMessage(
                    LogLevel.INFO,
                    f"{_which_optimum(bridge)}: h* = {verdict.extra['h_star']} "
                    f"(proof: {verdict.how}); {_why_not_optimal(bridge, problem)}",
                )
            )
    return PlanGenerationResult(status, plan, name, metrics, logs)


def length_decides_metric(problem) -> bool:
    """Whether a shortest plan is optimal for the Problem's quality metric."""
    if len(problem.quality_metrics) != 1:
        return False
    metric = problem.quality_metrics[0]
    if metric.is_minimize_sequential_plan_length():
        return True
    if not metric.is_minimize_action_costs():
        return False
    costs = set()
    for action in problem.actions:
        cost = metric.get_action_cost(action)
        if cost is None:
            return False
        cost = cost.simplify()
        if not (cost.is_int_constant() or cost.is_real_constant()) or cost.constant_value() <= 0:
            return False
        costs.add(cost.constant_value())
    return len(costs) <= 1


def _costs_decide_metric(bridge, problem) -> bool:
    """Whether the task's h* is the Problem's action-cost metric (fixed costs acptools read)."""
    metrics = problem.quality_metrics
    return len(metrics) == 1 and metrics[0].is_minimize_action_costs() and bridge.task.metric == "cost"


def _which_optimum(bridge) -> str:
    return "a cheapest plan under the task's metric" if bridge.task.metric == "cost" else "a shortest plan"


def _why_not_optimal(bridge, problem) -> str:
    if not problem.quality_metrics:
        return "the Problem has no quality metric (add MinimizeSequentialPlanLength() for SOLVED_OPTIMALLY)"
    if bridge.task.metric == "cost":
        return (
            "acptools minimised the metric of the task's PDDL (cost accumulators increased by the actions); "
            "SOLVED_OPTIMALLY is reported for a plan-length or action-cost metric only"
        )
    return "acptools minimises plan length here: the Problem's action costs are not fixed non-negative numbers"
