"""How every answer is known: a Verdict carries the answer, the kind of proof, and the witness."""

from __future__ import annotations

from dataclasses import dataclass, field

# proof kinds, so callers can tell a proof from a witness from a shrug
WITNESS = "witness-plan"            # a plan the caller can replay
STATIC = "static-facts"             # false static facts (or an atom nothing adds)
RELAXED = "delete-relaxation"       # not reachable even ignoring deletes
H2 = "h2-mutex"                     # two needed literals (atoms true, or false) can never hold together
PERSISTENT = "persistent-fact"      # an atom it needs false holds, and nothing that can ever apply deletes it
FIRST_ACHIEVERS = "first-achievers"  # every action that can first achieve a landmark needs or adds it
EXHAUSTIVE = "exhaustive-search"    # every reachable state was visited
MUTUAL = "mutually-reachable"       # this state and one whose complete list proves it reach each other (replayed plans)
HOLDS = "holds-in-state"            # already true: no search needed
TRIVIAL = "trivial"                 # a landmark that holds in the state or goal
UNKNOWN = "unknown"                 # the budget ran out before a proof or witness


@dataclass
class Verdict:
    """An answer and how it is known; `witness` is a plan (action names) replayable from the
    question's state. `plan_ids` is the same plan as action ids, for the library's own use."""

    answer: bool | None                 # None: unknown within the budget
    how: str
    witness: list[str] | None = None
    detail: str = ""
    extra: dict = field(default_factory=dict)
    plan_ids: list[int] | None = field(default=None, repr=False, compare=False)

    @property
    def known(self) -> bool:
        """Whether the answer was decided (not None)."""
        return self.answer is not None
