"""Trivial answerers: ways to answer a record without reasoning about the task's dynamics, and what
a uniform guess would score (chance).

Each answerer gives, for one record, its expected score in [0, 1], or None when it has nothing to
say about that record (no goal stated, not that answer type). Yes/no and 4-choice answers are
compared with the stored (proven) answer, so records without PDDL (ACPBench v1) are audited too; an
answerer that is left with several options picks one of them uniformly, so its expected score is
1/k when the right option is among its k. Every other answer is written as text and graded by the
project's grader (`acptools.scoring.score_response`, exact semantics) from the record's PDDL.

    yes, no          always "yes" / always "no" (or True / False)
    majority         the answer (or letter) most frequent among the task's records in the set (of
                     the same answer type: yes/no, a list, a count, ...)
    longest,         the longest / shortest option
    shortest
    goal             copy from the goal sentence: "yes" when the question quotes a goal fact; the options
                     that quote one; for a landmark to write, a goal fact that does not hold yet
    state            copy from the state: "yes" when the question quotes a fact of the state; the
                     options that quote one
    unmentioned      the options that quote no fact the context states
    odd_one_out      the options whose words, object names left out, no other option shares (when
                     some other options do share theirs)
    none             "None" (reach, areach, land; set, name and step answers)
    ignore_actions   ActionReasoningBench: the answer about the initial state, as if no action had been done
                     (not for a claim about facts no action changes: reading those off the initial
                     state is the right reasoning)

`majority` answers, for questions that any one of a set of items answers (ACPBench Hard's reach,
areach, land, nexta), the item that is a right answer in the most records (by their stored answers):
the best constant answer, graded by the grader.

Chance per record: 1/2 for yes/no, 1/#options, 1/(#steps + 1) for "the first step that fails, or
None", 1/#steps for a step index (ACPBench Hard's val, steps before the first failure), 1/(#names + 1)
for "the name that is not defined, or None"; for reach, areach, land and nexta the share of the
items the question allows that are right (acptools.audit.shares); 0 for an answer that has to be
written out (a list, effects, a plan, a count), where no guess from a small set of answers exists.
An answer from a small closed set (yes/no, an option, a step, a name) can be found by elimination,
so an answerer far below chance gives it away too; an answer that is written out cannot.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from ..budget import Budget
from ..claims import decide, evaluate, without_actions
from ..dataset import task_of
from ..errors import AcpError
from ..kinds import KINDS
from ..scoring import gold_response, score_response
from ..scoring.generated_forms import gold_text
from ..scoring.question import plan_of_question
from ..truth import task_for
from .facts import Facts, mentions, normal, option_kind
from .shares import PICK_ONE, right_count, share

ANSWERERS = {
    "yes": "always yes (True)",
    "no": "always no (False)",
    "majority": "the most frequent answer (or letter) of the task in the set",
    "longest": "the longest option",
    "shortest": "the shortest option",
    "goal": "copy from the goal sentence",
    "state": "copy from the state",
    "unmentioned": "an option that quotes no fact of the context",
    "odd_one_out": "the option of a kind no other option has (its words but the object names)",
    "none": "None",
    "ignore_actions": "the answer about the initial state (the actions ignored)",
}
YES = ("yes", "true")
WITH_NONE = ("reach", "areach", "land")  # ACPBench Hard tasks whose answer may be None
PLAIN = frozenset({"bool", "choice"})  # compared with the stored answer, no grader needed
CLOSED = frozenset({"bool", "choice", "index", "name"})  # answers from a small set: elimination works


@dataclass
class Item:
    """One record as the answerers see it: its form, task and answer type, the facts its context states."""

    record: dict
    kind: str
    budget: float = 10.0  # CPU seconds per proof (chance of reach and areach)

    @property
    def form(self) -> str:
        """The record's form: 'bool' for land_bool, 'arb' for arb_effects, 'hard' for app and plan."""
        k = KINDS.get(self.kind)
        return k.form if k is not None else "hard"

    @property
    def task(self) -> str:
        """The task within its form: 'land' for land_bool, 'effects' for arb_effects, 'app' for app."""
        k = KINDS.get(self.kind)
        if k is not None and k.task:
            return k.task
        return self.kind[4:] if self.kind.startswith("arb_") else self.kind

    @cached_property
    def spec(self) -> dict:
        spec = self.record.get("spec")
        return spec if isinstance(spec, dict) else {}

    @cached_property
    def answer_type(self) -> str:
        """bool, choice, or the answer type of a graded answer (set, count, ..., or the hard task)."""
        if self.spec.get("answer_type"):
            return self.spec["answer_type"]
        return {"bool": "bool", "mcq": "choice"}.get(self.form, self.kind)

    @cached_property
    def facts(self) -> Facts:
        return Facts.of(self.record.get("context", ""))

    @cached_property
    def options(self) -> list[str]:
        choices = self.record.get("choices")
        return list(choices.get("text", [])) if isinstance(choices, dict) else []

    @cached_property
    def right(self) -> int | None:
        """The index of the right option (choice records)."""
        choices, answer = self.record.get("choices") or {}, str(self.record.get("answer", "")).strip()
        labels = list(choices.get("label") or "ABCDEFGH"[: len(self.options)])
        return labels.index(answer) if answer in labels else None

    @property
    def truth(self) -> bool:
        """The stored yes/no answer (bool records)."""
        return normal(self.record.get("answer", "")) in YES

    def key(self) -> str:
        """The stored answer as `majority` counts it: yes/no, the letter, or the answer as text."""
        if self.answer_type == "bool":
            return "yes" if self.truth else "no"
        if self.answer_type == "choice":
            return str(self.record.get("answer", "")).strip()
        return gold_response(self.record)

    @property
    def pick_one(self) -> bool:
        """Is any one of a set of items a right answer (ACPBench Hard's reach, areach, land, nexta)?"""
        return self.form == "hard" and self.kind in PICK_ONE

    def rights(self) -> list[str]:
        """The right answers as text, by the stored answer: every item of a pick-one question (None
        when there is none), else the one gold answer."""
        if not self.pick_one:
            return [self.key()]
        a = self.record.get("answer")
        items = a.get("yes", []) if isinstance(a, dict) else a or []
        if self.kind == "reach":
            items = [f"({x})" for x in items]
        return [str(x) for x in items] or (["None"] if self.kind != "nexta" else [])

    @property
    def closed(self) -> bool:
        """Is the answer one of a small closed set (found by elimination when an answerer is far below chance)?"""
        return (
            self.answer_type in CLOSED
            or self.kind == "val"
            or (self.answer_type == "count" and (self.spec.get("query") or {}).get("query") == "steps_before_failure")
        )

    @cached_property
    def chance(self) -> float:
        """The expected score of a uniform guess among the answers the question allows (0 when the
        answer has to be written out)."""
        t, query = self.answer_type, self.spec.get("query") or {}
        if t == "bool":
            return 0.5
        if t == "choice":
            return 1 / len(self.options) if self.options else 0.0
        if t == "index":
            return 1 / (len(query.get("plan", [])) + 1)
        if t == "count" and query.get("query") == "steps_before_failure":
            return 1 / max(1, len(query.get("plan", [])))
        if t == "name":
            return 1 / (len(query.get("names", [])) + 1)
        if self.kind == "val":
            return 1 / max(1, len(plan_of_question(self.record.get("question", ""))))
        if self.pick_one:
            task, state = _task_state(self)
            if task is None:
                return 0.0
            right = right_count(self.kind, task, state, self.record.get("answer"), self.budget)
            return share(self.kind, task, state, right)
        return 0.0


class Answerers:
    """Scores the answerers for the records of one task of one form (`majority` needs them all)."""

    def __init__(self, items: list[Item], budget: float = 10.0):
        self.items, self.budget = items, budget
        right: dict[str, Counter] = {}  # by answer type: a task may mix yes/no, lists and counts
        for it in items:
            right.setdefault(it.answer_type, Counter()).update(set(it.rights()))
        self._majority = {t: min(c, key=lambda text: (-c[text], text)) for t, c in right.items() if c}
        self._graded: dict[tuple[int, str], float] = {}

    def majority(self, item: Item) -> str | None:
        """The answer right in the most records of the item's answer type (the first of equals)."""
        return self._majority.get(item.answer_type)

    def score(self, name: str, item: Item) -> float | None:
        """The expected score of answerer `name` on `item`, or None when it does not answer it."""
        if item.answer_type == "bool":
            return self._bool(name, item)
        if item.answer_type == "choice":
            return self._choice(name, item)
        text = self._text(name, item)
        return None if text is None else self._grade(item, text)

    # ---- yes/no -----------------------------------------------------------------------------------
    def _bool(self, name: str, item: Item) -> float | None:
        question, facts = item.record.get("question", ""), item.facts
        if name == "yes":
            said = True
        elif name == "no":
            said = False
        elif name == "majority":
            said = self.majority(item) == "yes"
        elif name == "goal" and facts.goal:
            said = mentions(question, facts.goal)
        elif name == "state" and facts.state:
            said = mentions(question, facts.state)
        elif name == "ignore_actions" and without_actions(item.spec.get("claim")) is not None:
            said = self._decide_unacted(item)
            if said is None:
                return None
        else:
            return None
        return float(said == item.truth)

    def _decide_unacted(self, item: Item) -> bool | None:
        task, state = _task_state(item)
        if task is None or _about_statics(task, item.spec["claim"]):
            return None
        try:
            v = decide(task, state, without_actions(item.spec["claim"]), Budget(None, cpu=self.budget))
        except AcpError:
            return None
        return v.answer

    # ---- choices ----------------------------------------------------------------------------------
    def _choice(self, name: str, item: Item) -> float | None:
        options, right, facts = item.options, item.right, item.facts
        if not options or right is None:
            return None
        every = list(range(len(options)))
        if name == "majority":
            picked = [k for k in every if item.record.get("choices", {}).get("label", "ABCD")[k] == self.majority(item)]
        elif name in ("longest", "shortest"):
            sizes = [len(normal(o)) for o in options]
            best = max(sizes) if name == "longest" else min(sizes)
            picked = [k for k in every if sizes[k] == best]
        elif name == "odd_one_out":
            kinds = [option_kind(o) for o in options]
            picked = [k for k in every if kinds.count(kinds[k]) == 1] if len(set(kinds)) < len(kinds) else every
        elif name in ("goal", "state", "unmentioned"):
            wanted = {"goal": facts.goal, "state": facts.state, "unmentioned": facts.all}[name]
            if not wanted:
                return None
            quoted = [k for k in every if mentions(options[k], wanted)]
            picked = [k for k in every if k not in quoted] if name == "unmentioned" else quoted
        else:
            return None
        picked = picked or every
        return (right in picked) / len(picked)

    # ---- graded answers ---------------------------------------------------------------------------
    def _text(self, name: str, item: Item) -> str | None:
        t = item.answer_type
        if name == "majority":
            return self.majority(item)
        if name == "none" and (t in ("set", "name", "index") or item.kind in WITH_NONE):
            return "None"
        if name == "goal" and item.kind == "land":
            task, state = _task_state(item)
            if task is None:
                return None
            goals = task.names(task.goal_atoms & ~state)
            return goals[0] if goals else None
        if name == "ignore_actions" and without_actions(item.spec.get("query")) is not None:
            return self._evaluate_unacted(item)
        return None

    def _evaluate_unacted(self, item: Item) -> str | None:
        task, state = _task_state(item)
        if task is None:
            return None
        try:
            value = evaluate(task, state, without_actions(item.spec["query"]))
        except AcpError:
            return None
        return gold_text({"answer": value, "spec": item.spec})

    def _grade(self, item: Item, text: str) -> float | None:
        key = (id(item.record), text)
        if key not in self._graded:
            try:
                self._graded[key] = score_response(item.record, text, budget=self.budget).score
            except AcpError:
                self._graded[key] = None
        return self._graded[key]


def _about_statics(task, claim: dict) -> bool:
    """Does the claim name only facts of predicates no action changes (which the context lists as
    never changing)? Answering those from the initial state is the reasoning they ask for, not a
    way around it."""
    names = list(claim.get("atoms", ())) + list(claim.get("negated", ()))
    preds = [str(n).strip("() ").split(" ")[0] for n in names]
    return bool(preds) and all(p in task.domain.predicates and p not in task.fluents for p in preds)


def _task_state(item: Item):
    """The record's task and state (its problem's init), or (None, None) when its PDDL does not load."""
    try:
        task = task_for(item.record["PDDL_domain"], item.record["PDDL_problem"])
    except (AcpError, KeyError, TypeError):
        return None, None
    return task, task.init


def item_of(record: dict, budget: float = 10.0) -> Item:
    """The record as the answerers see it; AcpError when its group names no known task."""
    return Item(record, task_of(record), budget)
