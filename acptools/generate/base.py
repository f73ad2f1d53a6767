"""What every question builder gets (`Item`) and returns (`Draft`), and why it may give up (`Skip`).

A builder never guesses: when a proof does not finish within the budget it raises Skip(UNPROVEN),
and the item is dropped and counted; when the state offers no such question (nothing applicable, the
goal already holds, a dead end) it raises Skip with that reason.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cached_property

from ..budget import Budget
from ..claims import decide
from ..task import Task
from ..truth import StateTruth, truth_for
from ..util.shortrepr import bounded_repr
from .render import Renderer
from .states import optimal_path

UNPROVEN = "unproven within the budget"
NOTHING = "nothing to ask in the state"
DEAD_END = "goal unreachable from the state"
AT_GOAL = "goal already holds"
DUPLICATE = "duplicate of an earlier record"
NO_KIND = "no fluent of the asked kinds"
NO_LANDMARK = "no landmark but goal facts and facts that hold already"


class Skip(Exception):
    """The item cannot be built in this state; `reason` is one of the constants above."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@bounded_repr
@dataclass
class Draft:
    """A question before it becomes a record: its group, context, question text and proven answer,
    the state the record's PDDL problem starts in, and form-specific fields (spec, choices, ...)."""

    group: str
    context: str
    question: str
    answer: object
    state: int
    extra: dict = field(default_factory=dict)


@bounded_repr
@dataclass
class Item:
    """One question to build: the task, the state, a seeded generator, the phrases, the budget in CPU
    seconds per proof, the answer a yes/no question should have (`target`, keeps them balanced) and
    the action-sequence lengths of ActionReasoningBench questions; for ActionReasoningBench questions
    about fluents, the fluent kind asked about (`fluent_kind`, one of acptools.generate.fluent_kinds.KINDS),
    whether it is asked negatively, the task's kinds and sentences the context must add (constraints);
    the position of a 4-choice question's right option (`slot`, balanced over the records), the
    record's index among the task's records, and whether landmark questions may ask about facts
    that hold already or are goal facts (`trivial_landmarks`, ACPBench v1's choice); the paraphrases
    drawn for it (`phrased`); the task's running balance of its 4-choice options (`ledger`,
    acptools.generate.balance.Ledger) and of how often each ACPBench Hard answer was right (`spread`,
    acptools.generate.spread.Spread); for ActionReasoningBench yes/no questions, whether the fact
    asked about is one the actions left as it was (`unchanged`, keeps answering about the initial
    state at chance)."""

    task: Task
    state: int
    rng: random.Random
    render: Renderer
    seconds: float
    target: bool = True
    steps: tuple[int, ...] = (1, 5, 10)
    fluent_kind: str | None = None
    negative: bool = False
    kinds: object = None
    notes: tuple[str, ...] = ()
    slot: int | None = None
    index: int = 0
    trivial_landmarks: bool = False
    phrased: dict | None = None
    ledger: object = None
    spread: object = None
    unchanged: bool = False

    def budget(self) -> Budget:
        """A fresh budget for one proof of this item."""
        return Budget(None, cpu=self.seconds)

    @cached_property
    def truth(self) -> StateTruth:
        """The per-state truth of the item's state (shared, cached)."""
        return truth_for(self.task, self.state)

    def names(self, actions) -> list[str]:
        """Action ids as names."""
        return self.task.action_list(actions)

    def decide(self, claim: dict, state: int | None = None) -> bool:
        """The proven truth of a claim (in the item's state unless told); Skip when unproven."""
        v = decide(self.task, self.state if state is None else state, claim, self.budget())
        if v.answer is None:
            raise Skip(UNPROVEN)
        return v.answer

    def h_star(self) -> int:
        """h* of the state; Skip for a dead end or when the budget ran out."""
        return self._optimum().cost

    def _optimum(self):
        """h* of the state with its proof (an optimal plan); Skip for a dead end or when the budget ran out."""
        h = self.truth.h_star(self.budget())
        if not h.known:
            raise Skip(UNPROVEN)
        if h.cost is None:
            raise Skip(DEAD_END)
        return h

    def solvable(self) -> None:
        """Skip unless some plan reaches the goal (a satisficing search, cheaper than h*)."""
        v = self.task.questions.plan(self.state, optimal=False, budget=self.budget())
        if v.answer is None:
            raise Skip(UNPROVEN)
        if v.answer is False:
            raise Skip(DEAD_END)

    def optimal_plan(self) -> list[int]:
        """An optimal plan, drawn with the seeded generator among all optimal next actions."""
        plan = optimal_path(self.task, self.state, self.rng, self.seconds, self._optimum())
        if plan is None:
            raise Skip(UNPROVEN)
        return plan

    def pick(self, options, k: int = 1) -> list:
        """k distinct elements of `options` (in a seeded order); Skip when there are fewer."""
        options = list(options)
        if len(options) < k:
            raise Skip(NOTHING)
        return self.rng.sample(options, k)
