"""The `acptools` engine of unified-planning's factory: plan validator, sequential simulator and
one-shot planner over acptools' parser, grounder and proofs.

    OneshotPlanner(name="acptools"), PlanValidator(name="acptools"),
    SequentialSimulator(problem, name="acptools")

One class serves the three operation modes because the factory looks an engine up by one name in
every mode. Everything it returns is unified-planning's own: `ActionInstance`, `SequentialPlan`,
`State`, fluent expressions (`FNode`), `ValidationResult`, `PlanGenerationResult`.
"""

from __future__ import annotations

import time
import warnings

from unified_planning.engines import Credits, Engine, PlanGenerationResult, PlanGenerationResultStatus
from unified_planning.engines.mixins import OneshotPlannerMixin, PlanValidatorMixin, SequentialSimulatorMixin
from unified_planning.engines.mixins.oneshot_planner import OptimalityGuarantee
from unified_planning.engines.results import LogLevel, LogMessage
from unified_planning.exceptions import UPUnsupportedProblemTypeError, UPUsageError
from unified_planning.plans import PlanKind, SequentialPlan

from .. import AcpError, load_task, task_key
from ..ground.unified import convert, supported_kind
from ..questions.basic import unmet_goals
from ..util.lru import LRUCache
from .bridge import Bridge
from .planning import plan_result
from .validation import validation_result

NAME = "acptools"
TASKS_KEPT = 8  # parsed tasks an engine keeps, by the text of their PDDL

CREDITS = Credits(
    "acptools",
    "the acptools authors",
    "the acptools issue tracker",
    "see the acptools README",
    "Apache-2.0",
    "Proven answers about classical planning tasks: validation with reasons, fast simulation, optimal plans.",
    "acptools parses and grounds a task in milliseconds (states are bitsets) and answers with proofs: plan "
    "validation naming the failing step and its unsatisfied preconditions, a sequential simulator, and plans "
    "that are proven optimal (A*, Fast Downward, SymK) or a witness. Classical planning: STRIPS with types, "
    "negative, disjunctive and quantified conditions, equality, conditional and universal effects, action "
    "costs, and numeric fluents (PDDL 2.1 level 2) in exact arithmetic.",
)


class AcptoolsEngine(Engine, OneshotPlannerMixin, PlanValidatorMixin, SequentialSimulatorMixin):
    """acptools as a unified-planning engine (planner, validator and simulator).

    Options (`params=` of the factory): `optimal` (default True): the planner searches a shortest
    plan and proves it; False asks for any plan (greedy search), which is faster."""

    def __init__(self, problem=None, error_on_failed_checks: bool = True, optimal: bool = True):
        Engine.__init__(self)
        OneshotPlannerMixin.__init__(self)
        self._optimal = optimal
        self._tasks = LRUCache(TASKS_KEPT)
        self._bridge: Bridge | None = None
        if problem is not None:  # a simulator: the factory hands it the problem here
            SequentialSimulatorMixin.__init__(self, problem, error_on_failed_checks)
            self._bridge = self.bridge(problem)

    @property
    def name(self) -> str:
        """The engine's name in unified-planning's factory."""
        return NAME

    @staticmethod
    def supported_kind():
        """The problem kinds the engine handles in every mode (what the factory selects by), numeric
        fluents included: the planner plans numeric Problems (search over exact states, raced by
        ENHSP where installed), and simulation and validation are exact."""
        return supported_kind()

    @staticmethod
    def supports(problem_kind) -> bool:
        """Whether the engine handles problems of `problem_kind` in every mode."""
        return problem_kind <= supported_kind()

    @staticmethod
    def supports_plan(plan_kind) -> bool:
        """Whether the engine validates plans of `plan_kind` (sequential plans only)."""
        return plan_kind == PlanKind.SEQUENTIAL_PLAN

    @staticmethod
    def satisfies(optimality_guarantee) -> bool:
        """Whether the engine's plans meet `optimality_guarantee` (they are optimal)."""
        return optimality_guarantee in (OptimalityGuarantee.SATISFICING, OptimalityGuarantee.SOLVED_OPTIMALLY)

    @staticmethod
    def get_credits(**kwargs):
        """The engine's credits for unified-planning."""
        return CREDITS

    def bridge(self, problem) -> Bridge:
        """The Problem written as PDDL and loaded (a parsed task is reused when the PDDL is the same);
        UPUnsupportedProblemTypeError names a feature acptools does not support."""
        if self._bridge is not None and problem is self._problem:
            return self._bridge
        try:
            domain, text, names = convert(problem)
            key = task_key(domain, text)
            task = self._tasks.get_or_make(key, lambda: load_task(domain, text))
        except AcpError as e:
            raise UPUnsupportedProblemTypeError(str(e)) from e
        return Bridge(task, names)

    # ---- SequentialSimulator --------------------------------------------------------------------
    def _simulated(self) -> Bridge:
        if self._bridge is None:
            raise UPUsageError(
                "this acptools engine was made without a problem; a simulator is made with "
                "SequentialSimulator(problem, name='acptools')"
            )
        return self._bridge

    def _get_initial_state(self):
        b = self._simulated()
        return b.state(b.task.init)

    def _is_applicable(self, state, action, parameters) -> bool:
        b = self._simulated()
        return b.task.op_for(b.action_id(action, parameters), b.bits(state)) is not None

    def _apply(self, state, action, parameters):
        b = self._simulated()
        s = b.bits(state)
        op = b.task.op_for(b.action_id(action, parameters), s)
        return None if op is None else b.state(b.task.apply_op(op, s))

    def _get_applicable_actions(self, state):
        b = self._simulated()
        return iter([b.move(a) for a in b.task.applicable(b.bits(state))])

    def _is_goal(self, state) -> bool:
        b = self._simulated()
        return b.task.is_goal(b.bits(state))

    def get_unsatisfied_conditions(self, state, action_or_action_instance, parameters=None) -> list:
        """The atoms (fluent expressions, `Not(...)` for those that must be false) that keep an action
        from applying in the state; empty when it applies. An action whose static preconditions are
        false in the problem gives [FALSE]."""
        b = self._simulated()
        action, params = self._get_action_and_parameters(action_or_action_instance, parameters)
        aid, s = b.action_id(action, params), b.bits(state)
        if b.task.op_for(aid, s) is not None:
            return []
        if not b.task.ops_of_action[aid]:
            return [b.false]
        return b.exps(b.task.unsatisfied(aid, s).describe())

    def get_unsatisfied_goals(self, state) -> list:
        """The goal atoms (of the closest goal disjunct) that do not hold in the state."""
        b = self._simulated()
        return b.exps(unmet_goals(b.task, b.bits(state)))

    # ---- PlanValidator ----------------------------------------------------------------------------
    def _validate(self, problem, plan):
        if not isinstance(plan, SequentialPlan):
            raise UPUsageError(f"acptools validates sequential plans, not a {type(plan).__name__}")
        return validation_result(self.name, self.bridge(problem), plan, problem)

    # ---- OneshotPlanner ---------------------------------------------------------------------------
    def _solve(self, problem, heuristic=None, timeout=None, output_stream=None):
        if heuristic is not None:
            warnings.warn("acptools does not use a custom heuristic", UserWarning, stacklevel=2)
        if output_stream is not None:
            warnings.warn("acptools does not write to an output stream", UserWarning, stacklevel=2)
        started = time.perf_counter()
        try:
            b = self.bridge(problem)
        except UPUnsupportedProblemTypeError as e:
            return PlanGenerationResult(
                PlanGenerationResultStatus.UNSUPPORTED_PROBLEM,
                None,
                NAME,
                log_messages=[LogMessage(LogLevel.ERROR, str(e))],
            )
        optimal = self._optimal or self.optimality_metric_required
        return plan_result(self.name, b, problem, optimal, timeout, started)
