"""One error type for everything a caller can get wrong, so tools can report it cleanly."""

from __future__ import annotations


class AcpError(ValueError):
    """Bad input: says what is wrong, where, and (when we can) what to do instead."""

    def __init__(self, what: str, where: str = "", suggestion: str = ""):
        self.what, self.where, self.suggestion = what, where, suggestion
        text = f"{where}: {what}" if where else what
        if suggestion:
            text += f" ({suggestion})"
        super().__init__(text)


class RunStopped(AcpError):
    """A batch run stopped part way because where it ran failed (a Ray worker or system process died):
    what finished is kept in --out, and the same command with --resume goes on from there."""


class PddlError(AcpError):
    """Malformed or unsupported PDDL, located by file kind, line and column."""


class UnknownNameError(AcpError):
    """An atom or action name that does not denote anything in the task."""


class BudgetExceeded(Exception):
    """Internal signal: a search ran out of its budget (turned into an `unknown` verdict)."""

    floor: float  # set by an optimal search that ran out: the lower bound on h* it proved
