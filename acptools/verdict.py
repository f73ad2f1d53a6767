"""How every answer is known: a Verdict carries the answer, the kind of proof, and the witness.

`Proof` names the kinds of proof (a verdict's, a list item's or an h* value's `how`); `Grade` the
verdicts the scorer gives an answer. Both are `str`-valued, so they compare equal to, hash as and
serialize as their text. A proof made of steps ("plan-replay+astar-hmax") is written by `chained`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Proof(str, Enum):
    """The kinds of proof, so callers can tell a proof from a witness from a shrug."""

    __str__ = str.__str__  # the text itself in f-strings and str(), as a plain string

    WITNESS = "witness-plan"  # a plan the caller can replay
    STATIC = "static-facts"  # false static facts (or an atom nothing adds)
    RELAXED = "delete-relaxation"  # not reachable even ignoring deletes
    H2 = "h2-mutex"  # two needed literals (atoms true, or false) can never hold together
    PERSISTENT = "persistent-fact"  # an atom it needs false holds, and nothing that can ever apply deletes it
    FIRST_ACHIEVERS = "first-achievers"  # every action that can first achieve a landmark needs or adds it
    EXHAUSTIVE = "exhaustive-search"  # every reachable state was visited
    MUTUAL = "mutually-reachable"  # this state and one whose complete list proves it reach each other
    HOLDS = "holds-in-state"  # already true: no search needed
    TRIVIAL = "trivial"  # a landmark that holds in the state or goal
    UNKNOWN = "unknown"  # the budget ran out before a proof or witness
    SHOWN = "shown-reachable"  # a visited reachable state shows the atom / the action applicable
    AVOIDED = "avoided-by-a-plan"  # a plan reaches the goal without ever making the atom true
    SIMULATED = "simulation"  # replaying the actions in the state shows it
    NO_PLAN = "no-plan"  # a satisficing search's proof that no plan exists
    LMCUT = "lm-cut"  # a lower bound on h* from LM-cut alone
    ASTAR = "astar-hmax"  # the in-process A* with h^max
    ASTAR_SYMMETRY = "astar-hmax-symmetry"  # the same, over states up to interchangeable objects
    SYMK = "symk-bidirectional"  # SymK's bidirectional symbolic search
    PROJECTION = "numeric-projection"  # on the propositional projection of a numeric task (its comparisons
    # taken as satisfiable, its numeric effects dropped): every real plan is a plan of the projection
    INTERVALS = "numeric-intervals"  # the projection with only the comparisons an interval relaxation of the
    # values allows from the state (a sound over-approximation of every reachable value)
    NUMERIC_ASTAR = "numeric-astar-hmax"  # A* over exact numeric states with h^max of the projection
    PLAN_REPAIR = "plan-repair"  # an optimal plan with the action taken out still reaches the goal
    # steps of a chained proof, each followed by the proof it builds on
    PLAN_REPLAY = "plan-replay"  # the optimal plan from the state before replays from this one
    NOT_OPTIMAL_FIRST = "not-an-optimal-first-action"  # outside the complete set of optimal first actions
    OPTIMAL_STEP = "optimal-step"  # after an optimal action h* is one less (ends a chain)


def chained(*steps: str) -> str:
    """One proof made of steps joined by '+', each named once: chained(Proof.PLAN_REPLAY, root.how)
    is 'plan-replay+astar-hmax'; chained(how, Proof.OPTIMAL_STEP) ends `how` with '+optimal-step'
    unless it ends so already."""
    parts: list[str] = []
    for step in steps:
        for part in str(step).split("+"):
            if part and part not in parts:
                parts.append(part)
    return "+".join(parts)


class Grade(str, Enum):
    """The scorer's verdicts: the `verdict` field of a graded answer."""

    __str__ = str.__str__

    CORRECT = "correct"  # score 1
    INCORRECT = "incorrect"  # a wrong set / index / plan, see the metrics
    UNPARSED = "unparsed"  # no answer of the task's shape could be read from the text
    HALLUCINATED = "hallucinated"  # an atom/action that is not a proposition/ground action of the task
    UNKNOWN = "unknown"  # the budget ran out before a proof (score null)
    REACHABLE = "reachable"  # reach: the atom can hold; areach: the action can become applicable
    MISSED = "missed"  # 'None' answered, but such atoms/actions/landmarks exist
    TRIVIAL = "trivial"  # land: the atom holds in the state or is part of the goal
    NOT_LANDMARK = "not-landmark"  # land: a plan avoids the atom
    INAPPLICABLE = "inapplicable"  # nexta: the action cannot be applied in the state
    SUBOPTIMAL = "suboptimal"  # nexta: applicable, but h*(s[a]) >= h*(s)
    NOT_SUBSEQUENCE = "not-subsequence"  # just: not a proper subsequence of the question's plan
    NOT_PLAN = "not-a-plan"  # just: a proper subsequence, but it does not reach the goal
    ERROR = "error"  # batch runs only: the item could not be scored (bad record); score null


@dataclass
class Verdict:
    """An answer and how it is known; `witness` is a plan (action names) replayable from the
    question's state. `plan_ids` is the same plan as action ids, for the library's own use.
    `from_store`: read from the proof store (proven by an earlier run), not proven by this call."""

    answer: bool | None  # None: unknown within the budget
    how: str  # a Proof, or a chain of them (`chained`)
    witness: list[str] | None = None
    detail: str = ""
    extra: dict = field(default_factory=dict)
    plan_ids: list[int] | None = field(default=None, repr=False, compare=False)
    from_store: bool = field(default=False, compare=False)

    @property
    def known(self) -> bool:
        """Whether the answer was decided (not None)."""
        return self.answer is not None
