"""unified-planning's own simulator and validator, always by name: the factory may pick acptools for
a Problem's kind, and an oracle answered by acptools would not be independent. Named, unified-planning
only warns on a kind its engine does not support; these refuse such a Problem as the factory would."""

from __future__ import annotations

from unified_planning.engines import Engine
from unified_planning.exceptions import UPNoSuitableEngineAvailableException
from unified_planning.shortcuts import PlanValidator, SequentialSimulator, get_environment

SIMULATOR = "sequential_simulator"
VALIDATOR = "sequential_plan_validator"


def up_simulator(problem) -> Engine:
    """unified-planning's SequentialSimulator on `problem`."""
    _require_support(SIMULATOR, problem)
    return SequentialSimulator(problem, name=SIMULATOR)


def up_validator(problem) -> Engine:
    """unified-planning's sequential PlanValidator, for `problem`'s kind."""
    _require_support(VALIDATOR, problem)
    return PlanValidator(name=VALIDATOR)


def _require_support(name: str, problem) -> None:
    if not get_environment().factory.engine(name).supports(problem.kind):
        raise UPNoSuitableEngineAvailableException(f"unified-planning's {name} does not support this problem's kind")
