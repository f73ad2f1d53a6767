"""acptools: proven answers to questions about action, change and planning in PDDL tasks.

The public API is what this module exports plus the modules named in `PUBLIC_MODULES`; the MCP
server and the harness adapters use nothing else (but the `PLUMBING`). The engine's rooms
(`ENGINE_PACKAGES`: the PDDL reader, grounding, search and the outside planners) are reached only
through the face modules that wrap them (`ENGINE_GATES`); `INTERNAL_MODULES` are the library's own.
`tools/check_structure.py` enforces these rules, and that the top level stays small.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .budget import Budget, Effort
    from .errors import AcpError, BudgetExceeded, PddlError, UnknownNameError
    from .questions import HStarReport, Questions
    from .task import Task, load_task, task_key
    from .verdict import Verdict

__version__ = "0.1.0"

# the exported names and their modules: imported on first use, so `import acptools.x` costs only x's imports
_EXPORTS = {
    "Budget": "budget",
    "Effort": "budget",
    "AcpError": "errors",
    "BudgetExceeded": "errors",
    "PddlError": "errors",
    "UnknownNameError": "errors",
    "HStarReport": "questions",
    "Questions": "questions",
    "Task": "task",
    "load_task": "task",
    "task_key": "task",
    "Verdict": "verdict",
}


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'acptools' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


# what a user imports (besides the names re-exported here): the library's face; the MCP server and the
# harness adapters import nothing else of acptools but PLUMBING
PUBLIC_MODULES = (
    "acptools.answers",
    "acptools.audit",
    "acptools.budget",
    "acptools.dataset",
    "acptools.describe",
    "acptools.environments",
    "acptools.episode",
    "acptools.errors",
    "acptools.evaluation",
    "acptools.examples",
    "acptools.export",
    "acptools.generate",
    "acptools.htmlreport",
    "acptools.inspect_eval",
    "acptools.kinds",
    "acptools.planners",
    "acptools.prompts",
    "acptools.proofs",
    "acptools.questions",
    "acptools.rewards",
    "acptools.rollout",
    "acptools.scoring",
    "acptools.task",
    "acptools.truth",
    "acptools.up",
    "acptools.verdict",
)

# shared plumbing, no part of the face: bounded caches and bounded text, which the server reuses too
PLUMBING = ("acptools.util",)

# the library's own workings and its command line: imported only inside acptools
INTERNAL_MODULES = ("acptools.backends", "acptools.claims", "acptools.cli")

# the engine's rooms: the lifted model, grounding, search, and the planner processes behind `acptools.planners`
ENGINE_PACKAGES = (
    "acptools.pddl",
    "acptools.ground",
    "acptools.engine",
    "acptools.planners.fd",
    "acptools.planners.symk",
    "acptools.planners.process",
)

# the face modules that wrap the engine: the only modules outside ENGINE_PACKAGES that may import from them
ENGINE_GATES = (
    "acptools.task",
    "acptools.questions",
    "acptools.truth",
    "acptools.proofs.kept_tasks",
    "acptools.proofs.verify",
    "acptools.claims",
    "acptools.describe",
    "acptools.episode",
    "acptools.planners",
    "acptools.up",
)

__all__ = [
    "AcpError",
    "BudgetExceeded",
    "PddlError",
    "UnknownNameError",
    "Budget",
    "Effort",
    "HStarReport",
    "Questions",
    "Task",
    "Verdict",
    "load_task",
    "task_key",
    "ENGINE_GATES",
    "ENGINE_PACKAGES",
    "INTERNAL_MODULES",
    "PLUMBING",
    "PUBLIC_MODULES",
    "__version__",
]
