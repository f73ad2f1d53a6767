"""Why an action cannot be applied in a state (what `GroundedTask.unsatisfied` answers)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Unsatisfied:
    """Why an action cannot be applied: atoms that must hold but do not, and ones that must not but do."""

    missing: tuple[str, ...]
    present: tuple[str, ...]

    def describe(self) -> list[str]:
        """The failed preconditions as PDDL: missing atoms, then `(not a)` for atoms that must not hold."""
        return list(self.missing) + [f"(not {a})" for a in self.present]
