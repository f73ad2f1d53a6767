"""Yes/no and 4-choice questions that no trivial answerer (acptools.audit) can answer above chance.

A candidate's *shape* is what can be seen without reasoning: how many facts (or actions) it names,
whether one of its facts is stated in the context's state, and whether one is a goal fact (when the
context states the goal). A yes/no question's shape is drawn among the shapes the state offers with
either answer before its answer is sought, so the shape says nothing about the answer; the four
options of a choice question all have the right option's shape; the wrong options are chosen so that,
over a task's records, the right option is the longest, the shortest and the odd one out (the only
one of its kind) as often as chance has it; and its letter comes from a schedule that gives every
letter the same share.
The proofs are untouched: this only chooses which proven candidates are asked.
"""

from __future__ import annotations

import random
from itertools import combinations

from ..audit.facts import normal, option_kind
from .base import NOTHING, Item, Skip

LETTERS = 4
GOAL_SHOWN = ("val", "just", "land")  # the tasks whose context states the goal
LIMIT = 1.5  # records' worth an option answerer may stray from chance, summed over a task's records
GIVEAWAY = "every choice of options would single out the right one by its length or kind"


def shape(item: Item, claim: dict, goal_shown: bool) -> tuple[int, bool, bool]:
    """(facts or steps named, one of its facts holds in the state, one is a goal fact)."""
    names = claim.get("atoms") or ([claim["atom"]] if claim.get("atom") else [])
    task = item.task
    ids = [task.atom_name_index[n] for n in names if n in task.atom_name_index]
    size = len(names) or len(claim.get("steps", ())) or 1
    return (size, any(item.state >> i & 1 for i in ids), goal_shown and any(task.goal_atoms >> i & 1 for i in ids))


def by_shape(item: Item, candidates, goal_shown: bool) -> dict[tuple, list]:
    """The candidates grouped by shape (each group in the candidates' order)."""
    groups: dict[tuple, list] = {}
    for c in candidates:
        groups.setdefault(shape(item, c[0], goal_shown), []).append(c)
    return groups


def _possible(group, want: bool, k: int = 1) -> bool:
    """Do the hints leave at least k candidates of the group that may have truth `want`?"""
    return sum(1 for _, _, hint in group if hint is None or hint is want) >= k


def yes_no_shape(item: Item, candidates, goal_shown: bool) -> list:
    """The candidates of one shape, drawn among the shapes whose hints allow both answers (so the
    shape is drawn the same way whichever answer the item wants); Skip when no shape allows both."""
    groups = by_shape(item, candidates, goal_shown)
    both = [s for s in sorted(groups) if _possible(groups[s], True) and _possible(groups[s], False)]
    if not both:
        raise Skip(NOTHING)
    return groups[item.rng.choice(both)]


def choice_shapes(item: Item, candidates, goal_shown: bool) -> list[list]:
    """Groups of candidates of one shape each that may give one right and three wrong options, in a
    seeded order."""
    groups = by_shape(item, candidates, goal_shown)
    fit = [groups[s] for s in sorted(groups) if _possible(groups[s], True) and _possible(groups[s], False, 3)]
    item.rng.shuffle(fit)
    return fit


def mixed(candidates) -> list:
    """The candidates interleaved by kind (option_kind: the text without object names), one of each
    kind in turn, so the first few proven cover several kinds."""
    kinds: dict[str, list] = {}
    for c in candidates:
        kinds.setdefault(option_kind(c[1]), []).append(c)
    queues = list(kinds.values())
    return [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]


def _odd_one_out(kinds: list[str]) -> float:
    """What the 'odd one out' answerer scores when the right option is the first of these kinds."""
    single = [k for k in range(len(kinds)) if kinds.count(kinds[k]) == 1] if len(set(kinds)) < len(kinds) else []
    single = single or list(range(len(kinds)))
    return (0 in single) / len(single)


def _extremes(sizes: list[int]) -> tuple[float, float]:
    """What the 'longest option' and 'shortest option' answerers score when the right option is the first."""
    top, low = max(sizes), min(sizes)
    return (sizes[0] == top) / sizes.count(top), (sizes[0] == low) / sizes.count(low)


class Ledger:
    """For one task's 4-choice records so far: how far above chance (in sum) the answerers that look
    at the options alone have scored (the longest option, the shortest, the odd one out), so the
    next record's wrong options can pull each back towards chance."""

    NAMES = ("longest", "shortest", "odd_one_out")

    def __init__(self):
        self.total = dict.fromkeys(self.NAMES, 0.0)
        self.pending: dict[str, float] | None = None

    def scores(self, right: str, wrong: list[str]) -> dict[str, float]:
        """What each answerer scores on options `[right] + wrong` (as acptools.audit scores them)."""
        texts = [right] + wrong
        longest, shortest = _extremes([len(normal(t)) for t in texts])
        return {"longest": longest, "shortest": shortest, "odd_one_out": _odd_one_out([option_kind(t) for t in texts])}

    def cost(self, scores: dict[str, float]) -> float:
        """The sum of squares of the answerers' distances from chance once these scores are added."""
        return sum((self.total[a] + scores[a] - 1 / LETTERS) ** 2 for a in self.NAMES)

    def commit(self) -> None:
        """The record whose options were chosen last was made: count its scores."""
        if self.pending is not None:
            for a in self.NAMES:
                self.total[a] += self.pending[a] - 1 / LETTERS
        self.pending = None


def pick_options(item: Item, rights: list, wrong: list, k: int = LETTERS - 1) -> tuple[tuple, list]:
    """One of the `rights` and k of the `wrong` (claim, text) options, chosen so that the answerers
    that look at the options alone (longest, shortest, odd one out) stay near chance over the
    task's records (the item's ledger, or a fresh one). Skip when there are fewer than k wrong
    options, or when every choice would take some answerer more than LIMIT records' worth from chance."""
    if len(wrong) < k or not rights:
        raise Skip(NOTHING)
    ledger = item.ledger if item.ledger is not None else Ledger()
    scored = [
        (ledger.cost(s), right, c, s)
        for right in rights
        for c in combinations(wrong, k)
        for s in [ledger.scores(right[1], [w[1] for w in c])]
    ]
    best = min(x[0] for x in scored)
    _, right, combo, scores = item.rng.choice([x for x in scored if x[0] == best])
    if any(abs(ledger.total[a] + scores[a] - 1 / LETTERS) > max(LIMIT, abs(ledger.total[a])) for a in Ledger.NAMES):
        raise Skip(GIVEAWAY)
    ledger.pending = scores
    return right, list(combo)


def slot(seed: str, index: int) -> int:
    """The answer's position for the `index`-th record of a task: each block of four records puts
    the answer once at every letter, in a seeded order."""
    return random.Random(f"{seed}/slots/{index // LETTERS}").sample(range(LETTERS), LETTERS)[index % LETTERS]


def placed(item: Item, right, wrong: list) -> tuple[list, int]:
    """The options in order, the right one at the item's slot (drawn when it has none), and its index."""
    wrong = list(wrong)
    item.rng.shuffle(wrong)
    at = item.slot if item.slot is not None else item.rng.randrange(len(wrong) + 1)
    return wrong[:at] + [right] + wrong[at:], at
