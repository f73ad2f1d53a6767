"""The ACPBench (v1) forms of its seven tasks: yes/no questions (balanced: the item says which answer
it wants) and 4-choice questions with exactly one right option, every option's truth proven.

Each task offers candidate claims (`acptools.claims`) with a hint of their truth; a builder decides
candidates (the proof, never the hint, sets the answer) until it has what it needs. The question
texts follow ACPBench's. A record carries its claim(s) in `spec`, so its grader decides them again
from the record's PDDL.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from itertools import islice

from ..errors import BudgetExceeded
from ..kinds import ACP_STEMS, ACP_TASKS
from .balance import GOAL_SHOWN, choice_shapes, mixed, pick_options, placed, yes_no_shape
from .base import NO_LANDMARK, NOTHING, UNPROVEN, Draft, Item, Skip
from .sequences import corrupted, redundant_plan, some_sequence
from .states import all_facts, facts, random_walk, replay, step

LABELS = ("A", "B", "C", "D")
SAMPLE = 12  # candidates offered per hint
DECISIONS = 24  # proofs tried per question before giving up
RIGHT_POOL = 3  # right options proven per 4-choice question, one of them asked (balance.pick_options)
WRONG_POOL = 8  # wrong options proven per 4-choice question, three of them asked
NO_TRUE = "no candidate proven true in the state"
FEW_FALSE = "too few candidates proven false in the state"
NO_FOUR = "no four candidates of one shape that may give one right and three wrong options"


@dataclass
class Pool:
    """A task's questions in one state: the yes/no question (with {} for the option), the 4-choice
    stem and query, and candidate (claim, text, hint) triples."""

    yes_no: str
    stem: str
    query: str
    candidates: list[tuple[dict, str, bool | None]]


def _sample(item: Item, xs, k: int = SAMPLE) -> list:
    """k elements of xs in a seeded order (a set is sorted first: its own order changes per process)."""
    xs = sorted(xs) if isinstance(xs, (set, frozenset)) else list(xs)
    return item.rng.sample(xs, min(k, len(xs)))


# ---- candidates per task --------------------------------------------------------------------------


def _app(item: Item, need_no: bool = True) -> Pool:
    task, s = item.task, item.state
    applicable = task.applicable(s)
    now = set(applicable)
    others = [a for a in task.possible_action_ids() if a not in now and task.ops_of_action[a]]
    cands = [(a, True) for a in _sample(item, applicable)] + [(a, False) for a in _sample(item, others)]
    return Pool(
        "Is the following action applicable in this state: {}?",
        "Which of the following actions will be applicable in this state?",
        "Which action will be applicable in this state?",
        [
            ({"claim": "applicable", "action": task.action_names[a]}, item.render.action(task.action_names[a]), h)
            for a, h in cands
        ],
    )


def _prog(item: Item, need_no: bool = True) -> Pool:
    task, s = item.task, item.state
    a = item.pick(task.applicable(s))[0]
    name = task.action_names[a]
    s, t = facts(task, s), facts(task, step(task, s, a))
    added, deleted = t & ~s, s & ~t
    unchanged_true, other_false = t & s, all_facts(task) & ~t & ~s
    cands = []
    for mask, hint, k in (
        (added, True, SAMPLE),
        (unchanged_true, True, 4),
        (deleted, False, SAMPLE),
        (other_false, False, 6),
    ):
        cands += [(n, hint) for n in _sample(item, task.names(mask), k)]
    text = item.render.action(name)
    return Pool(
        f'Will the fact "{{}}" hold after performing the action "{text}" in the current state?',
        f'Which of the following facts hold after performing the action "{text}" in the current state?',
        f'Which fact will hold after performing the action "{text}" in the current state?',
        [({"claim": "holds", "after": [name], "atoms": [n]}, item.render.atom(n), h) for n, h in cands],
    )


def _reach_pairs(item: Item, unreachable: set[str]) -> list[tuple[list[str], bool | None]]:
    """Two facts at once, neither true in the state: pairs that a walk shows together (true), and
    pairs of facts that are each reachable but share an object or a predicate, so often exclude each
    other (decided by proof)."""
    task, s, rng = item.task, item.state, item.rng
    out: list[tuple[list[str], bool | None]] = []
    for _ in range(4):  # two facts a walk makes true together, neither of them true in the state
        t = replay(task, s, random_walk(task, s, rng.randint(1, 10), rng))
        new = task.names(facts(task, t & ~s))
        if len(new) >= 2:
            out.append((sorted(rng.sample(new, 2)), True))
    atoms = [n for n in task.names(all_facts(task) & ~s) if n not in unreachable]
    for p in _sample(item, atoms, SAMPLE):
        pred, args = task.atoms[task.atom_name_index[p]]
        near = [
            q
            for q in atoms
            if q != p
            and (
                task.atoms[task.atom_name_index[q]][0] == pred
                or set(args) & set(task.atoms[task.atom_name_index[q]][1])
            )
        ]
        if near:
            out.append((sorted([p, rng.choice(near)]), None))
    return [(pair, h) for pair, h in out if len(pair) == 2]


def _cheap_unreachable(item: Item, need_no: bool) -> tuple[int, list[int] | None]:
    """Atoms proven unreachable by the cheap proofs, as a mask: the delete relaxation, and when
    the question needs false options also h^2 (pairs of atoms that never hold together); with the
    h^2 pairs (None when not computed). The rest is decided one candidate at a time, so no list
    question (a proof for every atom) is needed."""
    task, s = item.task, item.state
    unreachable = ((1 << len(task.atoms)) - 1) & ~item.truth.relaxed_reachable()
    if not need_no:
        return unreachable, None
    try:
        pairs = task.questions.engine.h2(s, item.budget())
    except BudgetExceeded:
        raise Skip(UNPROVEN) from None
    return unreachable | sum(1 << i for i in range(len(task.atoms)) if not pairs[i] >> i & 1), pairs


def _together(pairs: list[int], mask: int) -> bool:
    """May all atoms of `mask` hold together, as far as the h^2 pairs tell?"""
    rest = mask
    while rest:
        low = rest & -rest
        if pairs[low.bit_length() - 1] & mask != mask:
            return False
        rest ^= low
    return True


def _reach(item: Item, need_no: bool = True) -> Pool:
    """One fact or two facts at once (ACPBench's two-fact questions), in a seeded mix."""
    task, s = item.task, item.state
    unreachable = set(task.names(facts(task, _cheap_unreachable(item, need_no)[0])))  # comparisons: no questions
    others = [n for n in task.names(all_facts(task) & ~s) if n not in unreachable]
    singles = [([n], False) for n in _sample(item, unreachable)] + [([n], None) for n in _sample(item, others)]
    pairs = _reach_pairs(item, unreachable)
    cands = pairs + singles if item.rng.random() < 0.5 else singles + pairs
    return Pool(
        "Is it possible to transition to a state where the following holds: {}?",
        "Which of the following options can hold in a state that can potentially be reached?",
        "Which fact is reachable from this state?",
        [({"claim": "reachable", "atoms": atoms}, item.render.atoms(atoms), h) for atoms, h in cands],
    )


def _areach(item: Item, need_no: bool = True) -> Pool:
    """Actions ruled out by static facts, the relaxation or (for a no) h^2 are hinted false, the rest open."""
    task = item.task
    unreachable, pairs = _cheap_unreachable(item, need_no)
    never, possible = set(), []
    for a in task.possible_action_ids():
        ops = task.ops_of_action[a]
        if ops and any(not op.pre & unreachable and (pairs is None or _together(pairs, op.pre)) for op in ops):
            possible.append(task.action_names[a])
        else:
            never.add(task.action_names[a])
    if need_no and task.num_actions > task.num_possible_actions:  # type-correct, but static facts forbid them
        allowed = task.possible_set()
        never.update(islice((n for n in task.all_ground_actions() if n not in allowed), 4 * SAMPLE))
    cands = [(n, False) for n in _sample(item, never)] + [(n, None) for n in _sample(item, possible)]
    return Pool(
        'Is it possible to transition to a state where the action "{}" can be applied?',
        "Which of the following actions can eventually be applied?",
        "Which action is reachable from this state?",
        [({"claim": "action_reachable", "action": n}, item.render.action(n), h) for n, h in cands],
    )


def _land(item: Item, need_no: bool = True) -> Pool:
    """Facts neither true in the state nor goal facts (a goal fact or a fact that holds is a landmark
    by definition: the answer would be a copy); with `item.trivial_landmarks`, goal facts too, as
    ACPBench v1 asks."""
    task, s = item.task, item.state
    item.solvable()  # at a dead end every fact would be a landmark: nothing to ask
    plan = task.questions.engine.some_plan(s, item.budget())  # the plan the landmark proofs try first
    if plan is None:
        raise Skip(UNPROVEN)
    on_path = s
    for a in plan:  # a fact the plan never makes true is no landmark: one plan refutes most candidates
        s = step(task, s, a)
        on_path |= s
    s = item.state
    candidates = all_facts(task) & ~s & ~task.goal_atoms
    if not candidates & on_path and not item.trivial_landmarks:
        raise Skip(NO_LANDMARK)  # every landmark is on every plan: this one shows there is none to ask
    cands = [(n, None) for n in _sample(item, task.names(candidates & on_path))]
    if item.trivial_landmarks:
        cands += [(n, True) for n in _sample(item, task.names(facts(task, task.goal_atoms) & ~s), 2)]
    cands += [(n, False) for n in _sample(item, task.names(candidates & ~on_path))]
    return Pool(
        "Is the following fact a landmark (must hold at some point along any plan) for the current state? {}",
        "Which of the following facts is a landmark (must hold at some point along any plan) for the current state?",
        "Which fact must hold at some point on any way to the goal from the current state?",
        [({"claim": "landmark", "atom": n}, item.render.atom(n), h) for n, h in cands],
    )


def _val(item: Item, need_no: bool = True) -> Pool:
    plan = some_sequence(item, shortest=1)
    names = item.names(plan)
    cands = [(names, None)]
    if len(plan) > 1:
        cands.append((names[:-1], None))
    cands.append((item.names(corrupted(item, plan)[0]), False))
    return Pool(
        'Is the following sequence of actions "{}" valid in this problem?',
        "",
        "",
        [({"claim": "plan", "plan": seq}, ", ".join(item.render.action(n) for n in seq), h) for seq, h in cands],
    )


def _just_plan(item: Item) -> tuple[list[str], str]:
    names = item.names(redundant_plan(item))
    return names, ", ".join(item.render.action(n) for n in names)


def _just(item: Item, need_no: bool = True) -> Pool:
    """Single actions (that occur once in the plan) and consecutive pairs (the question's shape,
    drawn by `yes_no`, says which)."""
    names, text = _just_plan(item)
    good = {r.indices for r in item.task.questions.simplify(names, item.state, item.budget())}
    singles = [(i,) for i, n in enumerate(names) if names.count(n) == 1]
    pairs = [(i, i + 1) for i in range(len(names) - 1)]
    return Pool(
        f'Given the plan: "{text}"; can the following {{what}} be removed from this plan and still have a '
        "valid plan: {}?",
        "",
        "",
        [
            (
                {"claim": "removable", "plan": names, "steps": list(sp)},
                " and ".join(item.render.action(names[i]) for i in sp),
                sp in good,
            )
            for sp in _sample(item, singles, 2 * SAMPLE) + _sample(item, pairs, 2 * SAMPLE)
        ],
    )


POOLS = {"app": _app, "prog": _prog, "reach": _reach, "areach": _areach, "val": _val, "just": _just, "land": _land}


# ---- deciding candidates ------------------------------------------------------------------------


def find(
    item: Item, candidates, want: bool, k: int, avoid: set[str] = frozenset(), least: int | None = None
) -> list[tuple[dict, str]]:
    """Up to k (at least `least`, default k) candidates proven to have truth `want` (those hinted so
    first), with distinct texts."""
    least = k if least is None else least
    order = (
        [c for c in candidates if c[2] is want]
        + [c for c in candidates if c[2] is None]
        + [c for c in candidates if c[2] is (not want)]
    )
    out, texts, unproven, tried = [], set(avoid), 0, 0
    for claim, text, _hint in order:
        if len(out) == k or tried >= DECISIONS:
            break
        if text in texts:
            continue
        tried += 1
        try:
            truth = item.decide(claim)
        except Skip:
            unproven += 1
            continue
        if truth == want:
            out.append((claim, text))
            texts.add(text)
    if len(out) < least:
        raise Skip(UNPROVEN if unproven else NO_TRUE if want else FEW_FALSE)
    return out


def yes_no(item: Item, task: str) -> Draft:
    """A yes/no question about `task` whose answer (the item says which) is proven; its shape is
    drawn before the answer is sought (acptools.generate.balance)."""
    pool = POOLS[task](item, not item.target)
    ((claim, text),) = find(item, yes_no_shape(item, pool.candidates, _goal_shown(item, task)), item.target, 1)
    what = "pair of consecutive actions" if len(claim.get("steps", ())) == 2 else "action"
    return Draft(
        f"{ACP_STEMS[task]}_bool",
        context(item, task),
        pool.yes_no.format(text, what=what),
        "yes" if item.target else "no",
        item.state,
        {"form": "bool", "spec": {"answer_type": "bool", "claim": claim}},
    )


def _goal_shown(item: Item, task: str) -> bool:
    """Is the goal a shape feature (the context states it, and landmarks are asked non-trivially)?"""
    return task in GOAL_SHOWN and not (task == "land" and item.trivial_landmarks)


def choices(item: Item, task: str, stem: str, query: str, right, wrong) -> Draft:
    """A 4-choice record from one right and three wrong (claim, text) pairs, the right one at the
    item's slot."""
    options, at = placed(item, right, wrong)
    answer = LABELS[at]
    question = stem + " " + " ".join(f"{label}. {text}." for label, (_, text) in zip(LABELS, options, strict=False))
    return Draft(
        f"{ACP_STEMS[task]}_mcq",
        context(item, task),
        question,
        answer,
        item.state,
        {
            "form": "mcq",
            "choices": {"text": [t for _, t in options], "label": list(LABELS)},
            "query": query,
            "spec": {"answer_type": "choice", "claims": [c for c, _ in options]},
        },
    )


def multiple_choice(item: Item, task: str) -> Draft:
    """A 4-choice question about `task` with exactly one right option, every option's truth proven."""
    if task == "val":
        return _val_choices(item)
    if task == "just":
        return _just_choices(item)
    pool = POOLS[task](item, True)
    right, wrong = _options(item, choice_shapes(item, pool.candidates, _goal_shown(item, task)))
    return choices(item, task, pool.stem, pool.query, right, wrong)


def _options(item: Item, groups) -> tuple[tuple[dict, str], list]:
    """One right and three wrong options of one shape (the first group that has them), chosen so
    that neither their lengths nor their kinds single out the right one (balance.pick_options)."""
    why = NO_FOUR
    for group in groups:
        group = mixed(group)
        try:
            rights = find(item, group, True, RIGHT_POOL, least=1)
            wrong = find(item, group, False, WRONG_POOL, {text for _, text in rights}, least=3)
            return pick_options(item, rights, wrong)
        except Skip as e:
            why = e.reason
    raise Skip(why)


def _val_choices(item: Item) -> Draft:
    plan = some_sequence(item, shortest=2)
    kind = item.rng.choice(("plan", "applicable", "inapplicable", "inapplicable"))  # each option text 1 in 4
    if kind == "inapplicable":
        seq, _ = corrupted(item, plan)
    elif kind == "applicable":
        seq = plan[: item.rng.randrange(1, len(plan))]
    else:
        seq = plan
    names = item.names(seq)
    claims = [
        ({"claim": "plan_status", "plan": names, "status": "plan"}, "The sequence is a plan"),
        (
            {"claim": "plan_status", "plan": names, "status": "applicable"},
            "The sequence is applicable, but does not achieve the goal",
        ),
    ]
    claims += [
        (
            {"claim": "plan_status", "plan": names, "status": "inapplicable", "step": i},
            f"The sequence is not applicable: step {i + 1} is the first action that cannot be applied",
        )
        for i in range(len(names))
    ]
    truths = [item.decide(c) for c, _ in claims]
    assert truths.count(True) == 1, truths  # the three statuses exclude each other, and one holds
    right = claims[truths.index(True)]
    statuses = [c for c in claims[:2] if c is not right]
    indexes = [c for c in claims[2:] if c is not right]
    need = 3 - len(statuses)
    if len(indexes) < need:
        raise Skip(NOTHING)
    wrong = statuses + item.rng.sample(indexes, need)
    text = ", ".join(item.render.action(n) for n in names)
    return choices(
        item,
        "val",
        f'Which of the following claims is true with regard to the following sequence of actions "{text}"?',
        f'Is the sequence of actions "{text}" applicable in the current state, and does it achieve the goal?',
        right,
        wrong,
    )


def _just_choices(item: Item) -> Draft:
    names, text = _just_plan(item)
    good = {r.indices for r in item.task.questions.simplify(names, item.state, item.budget())}
    width = 2 if any(len(g) == 2 for g in good) and len(names) >= 5 else 1
    spans = [tuple(range(i, i + width)) for i in range(len(names) - width + 1)]
    cands = [
        (
            {"claim": "removable", "plan": names, "steps": list(sp)},
            " and ".join(item.render.action(names[i]) for i in sp),
            sp in good,
        )
        for sp in spans
    ]
    right, wrong = _options(item, [cands])
    what = "pairs of consecutive actions" if width == 2 else "actions"
    return choices(
        item,
        "just",
        f'Given the plan: "{text}"; which of the following {what} can be removed from this '
        "plan and still have a valid plan?",
        f'Given the plan: "{text}"; which of the {what} can be removed from this plan?',
        right,
        wrong,
    )


def context(item: Item, task: str) -> str:
    """The question's context: the state (and the goal where the task needs it) in natural language."""
    return item.render.context(item.state, goal=task in ("val", "just", "land"))


# the builder of every ACPBench task in both forms, by kind ('app_bool', 'app_mcq', ...): acptools.kinds
BUILDERS = {
    f"{task}_{form}": partial(build, task=task)
    for task in ACP_TASKS
    for form, build in (("bool", yes_no), ("mcq", multiple_choice))
}
