"""acptools: proven answers to questions about action, change and planning in PDDL tasks.

The public API is what this module exports plus the modules named in `PUBLIC_MODULES`; the MCP
server and the harness adapters use nothing else. The engine's rooms (`ENGINE_PACKAGES`: the PDDL
reader, grounding, search and the outside planners) are reached only through the face modules that
wrap them (`ENGINE_GATES`); `tools/check_structure.py` enforces both rules.
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
_EXPORTS = {"Budget": "budget", "Effort": "budget", "AcpError": "errors", "BudgetExceeded": "errors",
            "PddlError": "errors", "UnknownNameError": "errors", "HStarReport": "questions", "Questions": "questions",
            "Task": "task", "load_task": "task", "task_key": "task", "Verdict": "verdict"}


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'acptools' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value

# modules whose names (besides those re-exported here) other packages may import: every top-level module
# and subpackage of acptools except the engine's rooms
PUBLIC_MODULES = ("acptools.answers", "acptools.audit", "acptools.backends", "acptools.barplots", "acptools.budget",
                  "acptools.claims", "acptools.cli", "acptools.dataset", "acptools.describe",
                  "acptools.environments", "acptools.episode", "acptools.errors", "acptools.evaluation",
                  "acptools.examples", "acptools.export", "acptools.generate", "acptools.hashing", "acptools.htmlreport",
                  "acptools.inspect", "acptools.kinds", "acptools.lru", "acptools.planners", "acptools.progress",
                  "acptools.prompts", "acptools.questions", "acptools.rewards", "acptools.rollout",
                  "acptools.runfile", "acptools.scoring", "acptools.shortrepr", "acptools.store", "acptools.store_key",
                  "acptools.stored_check", "acptools.task", "acptools.task_store", "acptools.truth", "acptools.up", "acptools.verdict")

# the engine's rooms: the lifted model, grounding, search, and the planner processes behind `acptools.planners`
ENGINE_PACKAGES = ("acptools.pddl", "acptools.ground", "acptools.engine", "acptools.planners.fd",
                   "acptools.planners.symk", "acptools.planners.process")

# the face modules that wrap the engine: the only modules outside ENGINE_PACKAGES that may import from them
ENGINE_GATES = ("acptools.task", "acptools.task_store", "acptools.questions", "acptools.truth", "acptools.claims", "acptools.describe",
                "acptools.episode", "acptools.planners", "acptools.up")

__all__ = ["AcpError", "BudgetExceeded", "PddlError", "UnknownNameError", "Budget", "Effort", "HStarReport",
           "Questions", "Task", "Verdict", "load_task", "task_key", "ENGINE_GATES", "ENGINE_PACKAGES",
           "PUBLIC_MODULES", "__version__"]
