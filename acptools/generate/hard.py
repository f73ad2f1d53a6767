"""The ACPBench Hard form: its eight generative tasks with the published records' question texts and
answer shapes (so `acptools score`, `--gold`, `score_response` and the reference scorer read them like
the published records), and `plan`: write a plan that reaches the goal.

Answer shapes, as published: app a list of actions; prog {'pos', 'neg'}; reach a list of atoms written
without parentheses; areach a list of actions; val the 0-based index of the first inapplicable
action; just a list of removals (['(a)', 'k']: the k-th occurrence of (a); ['(a)', '(b)', '-1']: that
consecutive pair); land {'yes', 'no'}; nexta {'yes', 'no', 'maybe', 'opt'} (opt = h* as a string).
The lists of reach, areach and land 'no' hold at most LIST_CAP items, each proven; every other list
is complete. plan: {'opt': h*, 'plan': one optimal plan}.

prog, land and nexta questions are chosen so that no one answer is right far more often than chance
over a task's records (acptools.generate.spread).
"""

from __future__ import annotations

from ..audit.shares import share
from ..dataset import TASK_TO_GROUP
from ..kinds import PLAN_GROUP
from .base import AT_GOAL, DEAD_END, NOTHING, UNPROVEN, Draft, Item, Skip
from .sequences import corrupted, redundant_plan, removal_code, some_sequence
from .spread import Spread
from .states import all_facts

LIST_CAP = 50

APP = "Generate the list of all ground actions that are applicable in this state."
PROG = (
    'Break down the outcomes of performing the action "{action}" into two lists, positive effects and negative '
    "effects. Positive effects are the propositions that are false in the current state but will become true "
    "after performing the action. Negative effects are the propositions that are true in the current state and "
    "will become false after performing the action."
)
REACH = "What proposition can never hold in any potentially reachable state?"
AREACH = "What action can never become applicable, in any state reachable from the current state?"
VAL = 'What is the first inapplicable action in the next sequence of actions: "{plan}"?'
# the reference scorer cuts the plan out of this text by position: keep it exactly as published
JUST = (
    'Simplify the plan "{plan}" by removing either a single action or a pair of consecutive actions, while still '
    "maintaining a valid plan. Provide the resulting simplified plan."
)
LAND = "Generate a non-trivial fact landmark, one that does not hold in the initial state or goal."
NEXTA = "What is the next action that takes us towards the goal?"
PLAN = (
    "Generate a plan that reaches the goal from the current state: a sequence of ground actions, such as [(a x) (b y)]."
)


def _draft(item: Item, task: str, question: str, answer, **context) -> Draft:
    return Draft(TASK_TO_GROUP[task], item.render.context(item.state, **context), question, answer, item.state)


def app(item: Item) -> Draft:
    """A app question (every action applicable in the state) about the item's state, its answer proven."""
    return _draft(item, "app", APP, item.truth.applicable(), actions=True)


def prog_answer(item: Item, action: int) -> dict:
    """The effects of an applicable action: {'pos': [...], 'neg': [...]}."""
    pos, neg = item.truth.effects(action)
    return {"pos": sorted(pos), "neg": sorted(neg)}


def _spread(item: Item) -> Spread:
    """The task's running spread of right answers (a fresh one for an item built on its own)."""
    if item.spread is None:
        item.spread = Spread()
    return item.spread


def prog(item: Item) -> Draft:
    """A prog question (the positive and negative effects of an action) about the item's state, its
    answer proven; the action is one whose effects have not been the answer too often already."""
    actions = list(item.task.applicable(item.state))
    if not actions:
        raise Skip(NOTHING)
    item.rng.shuffle(actions)
    spread = _spread(item)
    answers = {a: prog_answer(item, a) for a in actions}
    keys = {a: repr((answer["pos"], answer["neg"])) for a, answer in answers.items()}
    a = min(actions, key=lambda a: max(0.0, spread.excess([keys[a]], 0.0)))  # the first that fits, if any
    spread.take([keys[a]], 0.0)
    q = PROG.format(action=item.render.action(item.task.action_names[a]))
    return _draft(item, "prog", q, answers[a], atoms=True)


def reach(item: Item) -> Draft:
    """A reach question (a proposition that can never hold) about the item's state, its answer proven."""
    res = item.truth.unreachable_atoms(item.budget())
    if not res.complete:
        raise Skip(UNPROVEN)
    return _draft(item, "reach", REACH, [n[1:-1] for n in res.names[:LIST_CAP]], atoms=True)


def areach(item: Item) -> Draft:
    """A areach question (an action that can never become applicable) about the item's state, its answer proven."""
    res = item.truth.unreachable_actions(item.budget())
    if not res.complete:
        raise Skip(UNPROVEN)
    return _draft(item, "areach", AREACH, res.names[:LIST_CAP], actions=True)


def val_answer(item: Item, plan: list[str]) -> int | None:
    """The 0-based index of the first action of `plan` that cannot be applied (None: all apply)."""
    return item.truth.validate(tuple(plan)).first_inapplicable


def val(item: Item) -> Draft:
    """A val question (the first inapplicable action of a sequence) about the item's state, its answer proven."""
    seq, at = corrupted(item, some_sequence(item))
    names = item.names(seq)
    found = val_answer(item, names)
    assert found == at, (found, at)  # the steps before `at` are a prefix of an applicable sequence
    return _draft(item, "val", VAL.format(plan=" ".join(names)), at, goal=True, actions=True)


def just_answer(item: Item, plan: list[str]) -> list[list[str]]:
    """Every removal of one action or two consecutive ones that leaves a plan, as answer entries
    (a pair whose entry would name an earlier occurrence of the same pair is left out)."""
    removals = item.task.questions.simplify(plan, item.state, item.budget())
    return [c for c in (removal_code(plan, r.indices) for r in removals) if c]


def just(item: Item) -> Draft:
    """A just question (a plan with one or two consecutive actions removed) about the item's state, its
    answer proven."""
    names = item.names(redundant_plan(item))
    codes = just_answer(item, names)
    if not codes:
        raise Skip(NOTHING)
    return _draft(item, "just", JUST.format(plan=" ".join(names)), codes, goal=True, actions=True)


def land(item: Item) -> Draft:
    """A land question (a non-trivial fact landmark) about the item's state, its answer proven."""
    item.solvable()  # at a dead end every atom would be a landmark: nothing to ask
    res = item.truth.landmarks(item.budget())
    if not res.complete:
        raise Skip(UNPROVEN)
    task = item.task
    yes = set(res.names)
    candidates = all_facts(task) & ~item.state & ~task.goal_atoms
    no = [n for n in task.names(candidates) if n not in yes][:LIST_CAP]
    _spread(item).take(sorted(yes) or ["None"], share("land", task, item.state, len(yes)))
    return _draft(item, "land", LAND, {"yes": sorted(yes), "no": no}, goal=True, atoms=True)


def nexta(item: Item) -> Draft:
    """A nexta question (an action that brings the goal one step closer) about the item's state, its answer proven."""
    rep = item.task.questions.optimal_next(item.state, item.budget())
    if not rep.known:
        raise Skip(UNPROVEN)
    if rep.h_star is None:
        raise Skip(DEAD_END)
    if rep.h_star == 0:
        raise Skip(AT_GOAL)
    yes = sorted(rep.optimal_actions)
    no = sorted(set(item.truth.applicable()) - set(yes))
    _spread(item).take(yes, share("nexta", item.task, item.state, len(yes)))
    return _draft(
        item, "nexta", NEXTA, {"yes": yes, "no": no, "maybe": [], "opt": str(rep.h_star)}, goal=True, actions=True
    )


def plan(item: Item) -> Draft:
    """A plan question (a plan that reaches the goal) about the item's state, its answer proven."""
    h_star = item.h_star()
    path = item.names(item.optimal_plan())
    if not path:
        raise Skip(AT_GOAL)
    context = item.render.context(item.state, goal=True, actions=True)
    return Draft(
        PLAN_GROUP,
        context,
        PLAN,
        {"opt": str(h_star), "plan": path},
        item.state,
        {"form": "hard", "spec": {"answer_type": "plan"}},
    )
