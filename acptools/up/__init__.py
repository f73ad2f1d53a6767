"""acptools for unified-planning users (pip install 'acptools[up]').

    import acptools.up                      # registers the "acptools" engine with the factory
    from unified_planning.shortcuts import OneshotPlanner, PlanValidator, SequentialSimulator
    with OneshotPlanner(name="acptools") as planner:
        result = planner.solve(problem)     # a proven shortest plan (SequentialPlan)
    task = acptools.load_task(problem)      # the ACP questions on a Problem; task.up maps names back

unified-planning (1.3) finds engines in its own list, in `up.ini` files and through
`factory.add_engine`; it has no entry points a package could declare. Importing this module calls
`add_engine` on the global environment's factory; without that import, the `[engine acptools]`
section in docs/unified-planning.md, in `~/.up.ini`, does the same with no code.
"""

from __future__ import annotations

from unified_planning.environment import get_environment

from ..ground.unified import UPNames, convert, supported_kind, unsupported_features
from .bridge import AcpState, Bridge
from .up_engine import NAME, AcptoolsEngine

__all__ = [
    "AcptoolsEngine",
    "AcpState",
    "Bridge",
    "UPNames",
    "convert",
    "register",
    "supported_kind",
    "unsupported_features",
    "NAME",
]


def register(environment=None) -> None:
    """Add the engine to an environment's factory (the global one by default) unless it is there."""
    factory = get_environment(environment).factory
    if NAME not in factory.engines:
        factory.add_engine(NAME, f"{__name__}.up_engine", "AcptoolsEngine")


register()
