"""acptools: proven answers to questions about action, change and planning in PDDL tasks.

The public API is what this module exports plus the modules named in `PUBLIC_MODULES`; the MCP
server and the harness adapters use nothing else.
"""

from __future__ import annotations

from .errors import AcpError, BudgetExceeded, PddlError, UnknownNameError
from .grounded import task_key
from .questions import HStarReport, Questions
from .search import Budget, Effort
from .task import Task, load_task
from .verdict import Verdict

__version__ = "0.1.0"

# modules whose names (besides those re-exported here) other packages may import
PUBLIC_MODULES = ("acptools.examples", "acptools.dataset", "acptools.scoring", "acptools.answers",
                  "acptools.questions", "acptools.verdict", "acptools.errors", "acptools.episode", "acptools.truth",
                  "acptools.lru", "acptools.describe", "acptools.rollout", "acptools.generate", "acptools.rewards",
                  "acptools.inspect", "acptools.store", "acptools.prompts", "acptools.planner",
                  "acptools.up")   # acptools.up needs the [up] extra (unified-planning)

__all__ = ["AcpError", "BudgetExceeded", "PddlError", "UnknownNameError", "Budget", "Effort", "HStarReport", "Questions", "Task", "Verdict",
           "load_task", "task_key", "PUBLIC_MODULES", "__version__"]
