"""ACPBench Hard questions whose right answer is not one constant: states of one problem share much
(a landmark most plans pass through, an optimal first move, an action whose effects are nothing new),
so answering the same thing to every question of a task would pay far above chance. The task's
running `Spread` counts in how many records each answer has been right and what a uniform guess
would have scored (acptools.audit.shares); a question that would make some answer right in more
records than chance allows (LIMIT records' worth, or SHARE of the records, whichever is more) is
not asked: another action is asked about (prog), or the state is passed over (land, nexta) and its
record set aside. When the states run out first, the set-aside records whose answers repeat least
complete the task (one problem may offer no other: a landmark most of its states share).
The proofs are untouched: this only chooses which proven questions are asked.

reach and areach are left alone: an atom or action that no state of the problem reaches is a right
answer to every reach or areach question of that problem, in ACPBench Hard's own data too; no
choice of state changes that (acptools.audit reports it; docs/generating.md).
"""

from __future__ import annotations

from collections import Counter

BY_STATE = ("land", "nexta")  # spread by passing states over: fresh states include optimal-plan prefixes
REPEATED = "its answer would be right in more records than chance has it"
LIMIT = 1.5  # records' worth above chance an answer may be right in
SHARE = 0.05  # or this share of the records, when that is more
RATIO_FLOOR = 0.01  # the chance a record of chance 0 counts as, choosing among those set aside


class Spread:
    """For one task's records so far: in how many each answer was right, and the sum of their chances."""

    def __init__(self):
        self.right: Counter = Counter()
        self.chance = 0.0
        self.records = 0
        self.pending: tuple[frozenset, float] | None = None

    def excess(self, rights, chance: float) -> float:
        """Records' worth by which a record whose right answers are `rights` (chance `chance`) would
        take its most repeated answer past what chance allows (<= 0: within)."""
        allowed = self.chance + chance + max(LIMIT, SHARE * (self.records + 1))
        return max((self.right[r] + 1 - allowed for r in set(rights)), default=-1.0)

    def cost(self, rights, chance: float) -> tuple[int, float]:
        """What a record with these right answers (and chance) would do to the spread: the count of
        the most repeated answer afterwards, then how much the sum of the squared counts would grow
        per unit of chance the record adds (of two records that keep the top count, the one whose
        answers are rarer, or whose chance is larger, leaves more room for the records after it)."""
        top = max(self.right.values(), default=0)
        rights = set(rights)
        most = max([top] + [self.right[r] + 1 for r in rights])
        return most, sum(2 * self.right[r] + 1 for r in rights) / (chance + RATIO_FLOOR)

    def take(self, rights, chance: float) -> None:
        """The record being built has these right answers (counted once it is made)."""
        self.pending = (frozenset(rights), chance)

    def fits(self) -> bool:
        """Does the record being built keep every answer within what chance allows (True when it
        said nothing)?"""
        return self.pending is None or self.excess(*self.pending) <= 0

    def commit(self) -> None:
        """The record whose answers were taken last was made: count them."""
        if self.pending is not None:
            rights, chance = self.pending
            self.right.update(rights)
            self.chance += chance
            self.records += 1
        self.pending = None

    def least_repeating(self, aside: list, k: int) -> list:
        """Up to k of the questions set aside (each a (question, (rights, chance)) pair), one at a
        time the one that keeps the most repeated answer least repeated (`cost`; the first of
        equals); each is counted as it is taken."""
        out, left = [], list(aside)
        while len(out) < k and left:
            best = min(range(len(left)), key=lambda i: self.cost(*left[i][1]))
            question, self.pending = left.pop(best)
            self.commit()
            out.append(question)
        return out
