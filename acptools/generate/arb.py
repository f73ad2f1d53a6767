"""The ActionReasoningBench form: questions about the state after a sequence of k actions (k drawn
from the item's `steps`, as ARB's 1, 5, 10, ...), in its eight families, with ARB's phrasing.

Answers are sets of propositions or actions, counts, step indices, yes/no ('True'/'False') and, for
hallucination questions, the name that is not part of the task (or None). Every answer follows by
simulation from the record's state (the PDDL problem's init); the record's `spec` says what was asked
(`acptools.claims` claims and queries), so its grader computes the answer again. What is asked about
is chosen so that answering about the initial state instead pays no more than chance
(acptools.generate.arb_changes).
"""

from __future__ import annotations

import re

from ..claims import COUNTED, atoms_of, count, evaluate
from .arb_changes import MAX_LIST, changed_object, differs, literal, literals, moved
from .base import NOTHING, Draft, Item, Skip
from .render import join
from .sequences import corrupted
from .states import random_walk, replay

INIT = "Given the initial condition"
PERFORMED = INIT + ", the following actions are performed: {actions} to reach the current state. In this state,"
PLANNED = INIT + ", the following actions are planned to be performed: {actions}."
NONE = "Write None if there are none."
ATOMS = "Answer with a list of propositions such as [(p a) (q b)], or None."
PROPERTIES = "valid properties of the state"
POSITIVE = PROPERTIES + " that do not involve negations"
NEGATIVE = "valid properties of the state that involve negations"
COUNT_NAMES = {
    "true_atoms": POSITIVE,
    "false_atoms": NEGATIVE,
    "executable_actions": "executable actions",
    "inexecutable_actions": "inexecutable actions",
}


class Seq:
    """The item's action sequence (k steps from its state, k from the item's steps, at least `least`)
    and where it ends; with k = 0 the question is about the initial state itself."""

    def __init__(self, item: Item, least: int = 0):
        lengths = [k for k in item.steps if k >= least]
        if not lengths:
            raise Skip(NOTHING)
        k = item.rng.choice(lengths)
        self.ids = random_walk(item.task, item.state, k, item.rng)
        if len(self.ids) < k:
            raise Skip(NOTHING)  # a dead end before k steps
        self.names = item.names(self.ids)
        self.text = item.render.actions(self.names)
        self.end = replay(item.task, item.state, self.ids)
        self.head = PERFORMED.format(actions=self.text) if self.ids else INIT + ","


def _draft(item: Item, family: str, question: str, answer, spec: dict, **context) -> Draft:
    text = " ".join([item.render.context(item.state, lead="Initially", **context), *item.notes])
    extra = {"form": "arb", "spec": spec}
    if item.fluent_kind:
        extra.update(fluent_kind=item.fluent_kind, polarity="negative" if item.negative else "positive")
    return Draft(f"arb_{family}", text, question, answer, item.state, extra)


def _about_objects(item: Item) -> bool:
    """Can a question about one object's properties be asked (of the kind asked about)?"""
    return not item.fluent_kind or item.kinds.about_objects(item.fluent_kind)


def _kind_filter(item: Item) -> dict:
    """The query field restricting an answer to the predicates of the kind asked about."""
    return {"predicates": item.kinds.predicates(item.fluent_kind)} if item.fluent_kind else {}


def _changed(item: Item, actions) -> bool:
    """Does this yes/no question ask about facts the actions changed (never when no action is done)?"""
    return not item.unchanged and bool(actions)


def _bool(item: Item, family: str, question: str, claim: dict) -> Draft:
    truth = item.decide(claim)
    return _draft(item, family, question, "True" if truth else "False", {"answer_type": "bool", "claim": claim})


def _sign(item: Item, positive_share: float) -> str:
    """'true' (ask for what holds) or 'false' (what does not): the asked polarity, else drawn."""
    if item.fluent_kind:
        return "false" if item.negative else "true"
    return "true" if item.rng.random() < positive_share else "false"


def _among_kind(item: Item) -> str:
    """' among the properties (p ...), (q ...)': the predicates a set answer is restricted to."""
    if not item.fluent_kind:
        return ""
    preds = item.kinds.predicates(item.fluent_kind)
    return f", considering only properties of the form {join(f'({p} ...)' for p in preds)}"


def _set(item: Item, family: str, question: str, query: dict, actions: bool = False) -> Draft:
    answer = evaluate(item.task, item.state, query)
    if len(answer) > MAX_LIST:
        raise Skip(NOTHING)
    moved(item, query, answer)
    return _draft(
        item, family, question, answer, {"answer_type": "set", "query": query}, atoms=not actions, actions=actions
    )


# ---- families -------------------------------------------------------------------------------------


def fluent_tracking(item: Item) -> Draft:
    """Fluent tracking: which properties (positive or negative) hold after the actions."""
    seq = Seq(item)
    head = seq.head
    if item.rng.random() < 0.5 or item.fluent_kind == "static" or not _about_objects(item):
        claim, text = literal(item, seq.end, item.target, _changed(item, seq.ids))
        return _bool(
            item,
            "fluent_tracking",
            f"{head} is it True or False that {text}?",
            {"claim": "holds", "after": seq.names, **claim},
        )
    sign = _sign(item, 0.6)
    obj = changed_object(item, seq.end, sign)
    what = POSITIVE if sign == "true" else NEGATIVE + " (list the propositions that are false)"
    return _set(
        item,
        "fluent_tracking",
        f"{head} what are the {what} for {obj}{_among_kind(item)}? {NONE} {ATOMS}",
        {"query": "atoms", "sign": sign, "object": obj, "after": seq.names, **_kind_filter(item)},
    )


def state_tracking(item: Item) -> Draft:
    """State tracking: the whole state after the actions, restricted to what they changed."""
    seq = Seq(item)
    head = seq.head
    if item.rng.random() < 0.4 or item.fluent_kind == "static":
        claim, text = literals(item, seq.end, item.target, _changed(item, seq.ids))
        return _bool(
            item,
            "state_tracking",
            f"{head} are all of the following {PROPERTIES} true: {text}? Respond with True or False.",
            {"claim": "holds", "after": seq.names, **claim},
        )
    if item.fluent_kind:
        sign = _sign(item, 0)
    else:
        sign = "false" if item.rng.random() < 0.3 and count(item.task, seq.end, "false_atoms") <= MAX_LIST else "true"
    what = POSITIVE if sign == "true" else NEGATIVE + " (list the propositions that are false)"
    return _set(
        item,
        "state_tracking",
        f"{head} list all {what}{_among_kind(item)}. {NONE} {ATOMS}",
        {"query": "atoms", "sign": sign, "after": seq.names, **_kind_filter(item)},
    )


def action_executability(item: Item) -> Draft:
    """Action executability: whether (or from which step) the sequence can be executed."""
    seq, rng = Seq(item, least=1), item.rng
    variant = rng.randrange(4)
    if variant == 3:
        return _set(
            item,
            "action_executability",
            f"{seq.head} list all executable actions. "
            f"{NONE} Answer with a list of actions such as [(a x) (b y)], or None.",
            {"query": "applicable", "after": seq.names},
            actions=True,
        )
    ids, at = (seq.ids, rng.randrange(len(seq.ids))) if item.target and variant < 2 else corrupted(item, seq.ids)
    names = item.names(ids)
    text = item.render.actions(names)
    if variant == 0:
        return _bool(
            item,
            "action_executability",
            f"{PLANNED.format(actions=text)} Is it possible to execute it, True or False?",
            {"claim": "executable", "plan": names},
        )
    if variant == 1:
        return _bool(
            item,
            "action_executability",
            f"{INIT}, for steps 1 through {len(names)} the following actions "
            f"are planned to be performed: {text}. Is the action: {item.render.action(names[at])} executable "
            f"at step {at + 1}, True or False?",
            {"claim": "executable_at", "plan": names, "step": at},
        )
    if rng.random() < 1 / (len(seq.names) + 1):  # None as often as each step, for a uniform answer
        names, text = seq.names, seq.text
    query = {"query": "first_failure", "plan": names}
    return _draft(
        item,
        "action_executability",
        f"{PLANNED.format(actions=text)} What is the first inexecutable "
        f"action in the sequence? Answer with its step number, from 1 to {len(names)}, or None if every "
        "action can be executed.",
        evaluate(item.task, item.state, query),
        {"answer_type": "index", "query": query},
    )


def effects(item: Item) -> Draft:
    """Effects: what changes if the next action is performed after the sequence (asked as a list, of an
    action that changes something of the kind asked about, not as it would in the initial state)."""
    seq = Seq(item)
    task, head = item.task, seq.head
    if item.rng.random() < 0.5 or item.fluent_kind == "static":
        a = item.pick(task.applicable(seq.end))[0]
        name, end = task.action_names[a], replay(task, seq.end, [a])
        claim, text = literal(item, end, item.target, _changed(item, [a]), focus=end ^ seq.end)
        return _bool(
            item,
            "effects",
            f"{head} suppose {item.render.action(name)} is performed next. Is it True or False that afterwards {text}?",
            {"claim": "holds", "after": seq.names + [name], **claim},
        )
    for a in item.pick(task.applicable(seq.end), len(task.applicable(seq.end)) or 1):
        name = task.action_names[a]
        query = {"query": "effects", "action": name, "after": seq.names, **_kind_filter(item)}
        answer = evaluate(task, item.state, query)
        if (answer["pos"] or answer["neg"]) and differs(item, query, answer):  # neither nothing nor as initially
            return _draft(
                item,
                "effects",
                f"{head} suppose {item.render.action(name)} is performed next. Which "
                f"properties{_among_kind(item)} would become true, and which would become false? Answer "
                "with two lists of propositions: the positive effects and the negative effects.",
                answer,
                {"answer_type": "effects", "query": query},
                atoms=True,
            )
    raise Skip(NOTHING)


def _count_claim(item: Item, seq: Seq) -> Draft:
    """'Is the number of ... equal to n?': of a count the actions changed or one they did not (as the
    item asks), n the count after them or not, so that the count in the initial state answers right
    exactly when the actions did not change what is asked about."""
    task, rng, changed = item.task, item.rng, _changed(item, seq.ids)
    for of in rng.sample(COUNTED, len(COUNTED)):
        n, own = count(task, seq.end, of), count(task, item.state, of)
        if (n != own) != changed:
            continue
        if not item.target:  # wrong after the actions: the initial count when it changed, else another
            n = own if changed else rng.choice([m for m in range(max(0, n - 2), n + 3) if m not in (n, own)])
        return _bool(
            item,
            "numerical_reasoning",
            f"{seq.head} is the number of {COUNT_NAMES[of]} equal to {n}? True or False",
            {"claim": "count", "of": of, "value": n, "after": seq.names},
        )
    raise Skip(NOTHING)


def _changed_count(item: Item, state: int) -> str:
    """A count (of COUNTED) that differs in `state` from the item's own state (any when they are one)."""
    for of in item.rng.sample(COUNTED, len(COUNTED)):
        if state == item.state or count(item.task, state, of) != count(item.task, item.state, of):
            return of
    raise Skip(NOTHING)


def _value(item: Item, seq: Seq) -> Draft:
    """'What is the value of (f o)?' after the actions: a numeric fluent they changed, its exact value
    by the task's numeric semantics (so the initial value is never the answer)."""
    task = item.task
    before, after = task.grounded.values(item.state), task.grounded.values(seq.end)
    changed = [i for i, (old, new) in enumerate(zip(before, after, strict=True)) if new is not None and new != old]
    if not changed:
        raise Skip(NOTHING)
    fluent = task.grounded.numeric.var_names[item.rng.choice(changed)]
    query = {"query": "value", "fluent": fluent, "after": seq.names}
    return _draft(
        item,
        "numerical_reasoning",
        f"{seq.head} what is the value of {item.render.quantity(fluent)}, {fluent}? Write the exact number: "
        "an integer, a decimal or a fraction such as 5/4.",
        evaluate(task, item.state, query),
        {"answer_type": "value", "query": query},
    )


def numerical_reasoning(item: Item) -> Draft:
    """Numerical reasoning: how many properties or executable actions there are after the actions
    and, on a task with numeric fluents, the value of a fluent after them."""
    numeric = item.task.grounded.numeric is not None
    variant = item.rng.randrange(4 if numeric else 3)
    seq = Seq(item, least=1 if variant >= 2 else 0)
    if variant == 3:
        return _value(item, seq)
    if variant == 0:
        return _count_claim(item, seq)
    if variant == 1:
        of = _changed_count(item, seq.end)
        query = {"query": "count", "of": of, "after": seq.names}
        q = f"{seq.head} what is the total number of {COUNT_NAMES[of]}? Write as an integer."
    else:
        names = item.names(corrupted(item, seq.ids)[0])
        query = {"query": "steps_before_failure", "plan": names}
        q = (
            f"{PLANNED.format(actions=item.render.actions(names))} How many actions are there before the first "
            "inexecutable action? Write as an integer."
        )
    answer = evaluate(item.task, item.state, query)
    moved(item, query, answer)
    return _draft(item, "numerical_reasoning", q, answer, {"answer_type": "count", "query": query})


def composite(item: Item) -> Draft:
    """Composite: a question combining executability and the resulting state."""
    seq, rng = Seq(item, least=1), item.rng
    changed = not item.unchanged  # then some action applies before the failure (when the lengths allow)
    if changed and len(seq.ids) < 2 and max(item.steps) >= 2:
        raise Skip(NOTHING)
    ids, at = corrupted(item, seq.ids, rng.randrange(1, len(seq.ids)) if changed and len(seq.ids) >= 2 else None)
    names = item.names(ids)
    head = PLANNED.format(actions=item.render.actions(names))
    before = replay(item.task, item.state, ids[:at])
    variant = rng.randrange(3)
    if item.fluent_kind:  # the count is over every property: the kinds ask about listed ones
        variant = 0 if item.fluent_kind == "static" or variant == 0 or not _about_objects(item) else 2
    if variant == 0:
        claim, text = literals(item, before, item.target, changed and at > 0)
        return _bool(
            item,
            "composite",
            f"{head} Are the following properties true before the first inexecutable "
            f"action in the sequence: {text}? True or False",
            {"claim": "holds", "before_failure": names, **claim},
        )
    if variant == 1:
        of = _changed_count(item, before)
        query = {"query": "count", "of": of, "before_failure": names}
        answer = evaluate(item.task, item.state, query)
        moved(item, query, answer)
        return _draft(
            item,
            "composite",
            f"{head} How many {COUNT_NAMES[of]} are there just before the first "
            "inexecutable action in the sequence? Write as an integer.",
            answer,
            {"answer_type": "count", "query": query},
        )
    sign = _sign(item, 1)
    obj = changed_object(item, before, sign)
    what = POSITIVE if sign == "true" else NEGATIVE + " (list the propositions that are false)"
    return _set(
        item,
        "composite",
        f"{head} What are the {what} for {obj}{_among_kind(item)} just before the first "
        f"inexecutable action in the sequence? {NONE} {ATOMS}",
        {"query": "atoms", "sign": sign, "object": obj, "before_failure": names, **_kind_filter(item)},
    )


def invented_object(task, like: str) -> str:
    """A name in the style of `like` ('c3' -> 'c7') that is no object, predicate or action of the task."""
    stem = re.sub(r"\d+$", "", like) or like
    taken = set(task.types.objects) | set(task.domain.predicates) | set(task.domain.actions)
    k = 1
    while f"{stem}{k}" in taken or (stem == like and f"{stem}-{k}" in taken):
        k += 1
    return f"{stem}{k}" if stem != like else f"{stem}-{k}"


def _invent(item: Item, name: str) -> str:
    """`name` (an atom or action) with one argument replaced by an object that does not exist."""
    head, *args = name[1:-1].split()
    if not args:
        raise Skip(NOTHING)
    i = item.rng.randrange(len(args))
    args[i] = invented_object(item.task, args[i])
    return "(" + " ".join([head] + args) + ")"


def hallucination(item: Item) -> Draft:
    """Hallucination: whether a named object, fluent or action exists at all in the task."""
    rng, task = item.rng, item.task
    variant = rng.randrange(3)
    seq = Seq(item, least=1 if variant == 1 else 0)
    head = seq.head
    if variant == 0:
        obj = rng.choice(sorted(task.types.objects))
        if not item.target:
            obj = invented_object(task, obj)
        return _bool(
            item,
            "hallucination",
            f"{head} some objects may or may not be defined. Is {obj} part of the domain? True or False",
            {"claim": "defined", "name": obj, "what": "object"},
        )
    if variant == 1:
        names = list(seq.names)
        if rng.random() < len(names) / (len(names) + 1):  # None as often as each listed name
            i = rng.randrange(len(names))
            names[i] = _invent(item, names[i])
        query = {"query": "undefined", "names": names, "what": "action"}
        q = (
            f"{PLANNED.format(actions=item.render.actions(names))} Some of these actions may not be defined in this "
            "domain. Which action is not defined? Answer with the action, or None if all are defined."
        )
        return _draft(
            item,
            "hallucination",
            q,
            evaluate(task, item.state, query),
            {"answer_type": "name", "query": query},
            actions=True,
        )
    facts = item.pick(task.names(seq.end), min(3, bin(seq.end).count("1")) or 1)
    if rng.random() < len(facts) / (len(facts) + 1):  # None as often as each listed name
        with_args = [i for i, f in enumerate(facts) if " " in f]
        if not with_args:
            raise Skip(NOTHING)
        i = rng.choice(with_args)
        facts[i] = _invent(item, facts[i])
    query = {"query": "undefined", "names": facts, "what": "atom"}
    return _draft(
        item,
        "hallucination",
        f"{head} some properties may or may not be defined. Which property out of "
        f"{item.render.atoms(facts)} is not defined? Answer with the proposition, or None if all are "
        "defined.",
        evaluate(task, item.state, query),
        {"answer_type": "name", "query": query},
        atoms=True,
    )


def _about(task, obj: str) -> list[str]:
    """Every atom of the task that names `obj`."""
    return sorted(n for n, (_, args) in zip(task.atom_names, task.atoms, strict=True) if obj in args)


def object_tracking(item: Item) -> Draft:
    """Object tracking: the properties of one named object after the actions, all of them (positive
    or negative) or which of a few listed ones hold."""
    seq, rng = Seq(item), item.rng
    head = seq.head
    if item.fluent_kind == "static":
        claim, text = literal(item, seq.end, item.target, False)
        return _bool(
            item,
            "object_tracking",
            f"{head} is it True or False that {text}?",
            {"claim": "holds", "after": seq.names, **claim},
        )
    if rng.random() < 0.4:
        return _listed_properties(item, seq)
    sign = _sign(item, 0.6)
    obj = changed_object(item, seq.end, sign)
    what = (
        "do not involve negations"
        if sign == "true"
        else "involve negations (list the propositions about it that are false)"
    )
    return _set(
        item,
        "object_tracking",
        f"{head} list all valid properties of {item.render.object(obj)}{_among_kind(item)} that {what}. {NONE} {ATOMS}",
        {"query": "atoms", "sign": sign, "object": obj, "after": seq.names, **_kind_filter(item)},
    )


def _listed_properties(item: Item, seq: Seq) -> Draft:
    """Object tracking's 'which of these properties of o hold' (or, asked negatively, 'do not hold'):
    the listed ones include one that is an answer and, after some actions, one whose answer they
    changed (so neither None nor the answer about the initial state is right), and often leave out
    another answer (so the list matters)."""
    rng, task = item.rng, item.task
    wanted = set(item.kinds.predicates(item.fluent_kind)) if item.fluent_kind else None
    sign = _sign(item, 1)
    objs = sorted({o for _, args in task.atoms for o in args})
    rng.shuffle(objs)
    for obj in objs:
        listed = [n for n in _about(task, obj) if wanted is None or n[1:-1].split()[0] in wanted]
        hits = set(atoms_of(task, seq.end, sign, obj)) & set(listed)
        changed = hits ^ (set(atoms_of(task, item.state, sign, obj)) & set(listed))
        if len(listed) >= 2 and hits and (changed or not seq.ids):
            break
    else:
        raise Skip(NOTHING)
    must = {rng.choice(sorted(hits))} | ({rng.choice(sorted(changed))} if changed else set())
    k = max(len(must), rng.randint(2, max(2, min(4, len(listed) - 1))))  # a few, not all of three or more
    others = sorted(set(listed) - must)
    if hits - must and rng.random() < 0.5:  # half the time it can, the list leaves out a property that is an answer
        unlisted = rng.choice(sorted(hits - must))
        others = [o for o in others if o != unlisted] if len(others) > k - len(must) else others
    among = sorted(must | set(rng.sample(others, k - len(must))))
    verb = "hold" if sign == "true" else "do not hold"
    return _set(
        item,
        "object_tracking",
        f"{seq.head} which of the following properties of {item.render.object(obj)} "
        f"{verb}: {item.render.atoms(among)}? {NONE} {ATOMS}",
        {"query": "atoms", "sign": sign, "object": obj, "among": among, "after": seq.names},
    )
