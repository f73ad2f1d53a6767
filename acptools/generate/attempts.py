"""Which state one task's next question is asked in, and why a task fell short.

States are taken in turn across the problems. A state whose attempt fails is retired for that task
(a second attempt in it would mostly repeat the same proofs to the same end), except when the failure
came of a random choice inside the question (a random walk that hit a dead end, a duplicate, a fluent
kind the state lacks), which retires it after RETRIES failures in a row; when every state is
retired, fresh states are drawn (random walks, seeded by the task), once if the task has made no
record yet and up to FRESH_ROUNDS times otherwise (prefixes of optimal plans too, for the tasks whose
answers are spread by passing states over, acptools.generate.spread), and then the task stops. A domain where few states
offer such a question costs one attempt per state tried, not dozens of attempts on the same ones,
and the report says how many states were tried and what retired them.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace

from .balance import GIVEAWAY
from .base import DUPLICATE, NO_KIND, NOTHING
from .states import sample_states

RETRIES = 6  # failures in a row that retire a state when another random choice may succeed
RANDOM = frozenset({NOTHING, DUPLICATE, NO_KIND})
FRESH_ROUNDS = 3  # times fresh states are drawn once every state is retired (once while nothing was made)


@dataclass
class _Slot:
    problem: int
    state: int
    retired: str | None = None  # the reason that retired it
    misses: int = 0  # failures in a row


class States:
    """The states of one task's attempts (see the module docstring)."""

    def __init__(self, pools, tasks, name: str, opt, plans: bool = False):
        self.tasks, self.name, self.opt, self.plans = tasks, name, opt, plans
        self.seen = [{s.state for s in pool} for pool in pools]
        self.slots = _interleave([[_Slot(k, s.state) for s in pool] for k, pool in enumerate(pools)])
        self.fresh_rounds, self.fresh, self.at, self.current, self.productive = 0, 0, 0, None, False

    def next(self) -> _Slot | None:
        """The next live state, in turn (fresh ones drawn when none is left), or None."""
        for _ in range(2):
            n = len(self.slots)
            for step in range(n):
                i = (self.at + step) % n
                if self.slots[i].retired is None:
                    self.current, self.at = self.slots[i], i + 1
                    return self.current
            if not self._draw():
                return None
        return None

    def made(self) -> None:
        """The current state gave a record: states retired only because every choice of options
        would have given the answer away come back (the balance those choices are judged by moved)."""
        self.productive = True
        self.current.misses = 0
        for s in self.slots:
            if s.retired == GIVEAWAY:
                s.retired = None

    def live(self) -> bool:
        """Is some state not retired yet (without drawing fresh ones)?"""
        return any(s.retired is None for s in self.slots)

    def failed(self, reason: str) -> None:
        """The current state failed to give a record, for `reason`: it is retired (at once, or after
        RETRIES failures in a row of a random choice)."""
        self.current.misses += 1
        if reason not in RANDOM or self.current.misses >= RETRIES:
            self.current.retired = reason

    def _draw(self) -> bool:
        """Fresh states for every problem (walks only, no optimal plan being needed, unless `plans`:
        then prefixes of optimal plans too, which reach states farther on than walks do); False when
        the rounds are used up or no new state turned up."""
        if self.fresh_rounds >= (FRESH_ROUNDS if self.productive else 1):
            return False
        self.fresh_rounds += 1
        walks = self.opt.difficulty if self.plans else replace(self.opt.difficulty, plan_share=0.0)
        drawn = []
        for k, task in enumerate(self.tasks):
            rng = random.Random(f"{self.opt.seed}/states/{k}/{self.name}/{self.fresh_rounds}")
            new = [
                s.state
                for s in sample_states(task, max(4, len(self.seen[k])), rng, walks, self.opt.budget)
                if s.state not in self.seen[k]
            ]
            self.seen[k].update(new)
            drawn.append([_Slot(k, s) for s in new])
        new_slots = _interleave(drawn)
        self.at = len(self.slots)
        self.fresh += len(new_slots)
        self.slots += new_slots
        return bool(new_slots)

    def shortfall(self, made: int, wanted: int) -> str:
        """Why the task made fewer records than wanted: the states tried and what retired them."""
        retired = Counter(s.retired for s in self.slots if s.retired is not None)
        why = ", ".join(f"{n} {reason}" for reason, n in retired.most_common())
        fresh = f", {self.fresh} of them drawn afresh for this task" if self.fresh else ""
        live = sum(1 for s in self.slots if s.retired is None)
        end = "the attempts ran out" if live else "no state was left to try"
        return (
            f"{made} of {wanted} records: {len(self.slots)} states tried{fresh}; {end}; states retired: {why or 'none'}"
        )


def _interleave(pools: list[list]) -> list:
    """The pools' elements taken in turn, one from each pool."""
    return [pool[i] for i in range(max(map(len, pools), default=0)) for pool in pools if i < len(pool)]
