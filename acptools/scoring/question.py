"""A question to grade answers against: task kind, grounded task, state, and what the kind needs.

Built from an ACPBench Hard record (`question_of_record`) or from a loaded task plus the kind's
inputs (`Question.build`): prog needs the action (or the expected effects), val and just the plan.
"""

from __future__ import annotations

import re

from ..answers import canonical_task
from ..dataset import domain_name, task_of
from ..errors import AcpError, UnknownNameError
from ..task import Task
from ..truth import StateTruth, task_for, truth_for

_QUOTED_PLAN = re.compile(r'"\s*(\(.*\))\s*"', re.S)
_ACTION = re.compile(r"\([^()]*\)")
REQUIRED_FIELDS = ("id", "group", "PDDL_domain", "PDDL_problem")


class Question:
    """kind, task, state, truth, plan (val/just), action (prog), stored answer, record fields.

    `task`, `state` and `truth` may be loaded lazily (reference semantics compares most answers with
    the stored lists and never needs the grounded task)."""

    def __init__(
        self,
        kind: str,
        task: Task | None = None,
        state: int | None = None,
        *,
        loader=None,
        plan: list[str] | None = None,
        action: str | None = None,
        stored=None,
        question_text: str | None = None,
        record_id=None,
        group: str | None = None,
        domain: str | None = None,
    ):
        self.kind = kind
        self._task, self._state, self._truth, self._loader = task, state, None, loader
        self.plan, self.action, self.stored = plan, action, stored
        self.question_text, self.record_id, self.group, self.domain = question_text, record_id, group, domain

    @property
    def task(self) -> Task:
        """The record's task (loaded on first use)."""
        if self._task is None:
            self._task = self._loader()
        return self._task

    @property
    def state(self) -> int:
        """The state the question is about (the task's initial state unless one was given)."""
        if self._state is None:
            self._state = self.task.init
        return self._state

    @property
    def truth(self) -> StateTruth:
        """The proven facts of the task in that state (made on first use)."""
        if self._truth is None:
            self._truth = truth_for(self.task, self.state)
        return self._truth

    @classmethod
    def build(cls, kind: str, task: Task, state=None, action=None, plan=None, effects=None) -> Question:
        """A question on a loaded task that is not a record. `state`: None (the problem's init), an int
        state or atom strings; prog: `action` (a name or an action id; its effects are computed) or
        `effects={"pos":..,"neg":..}`; val and just: `plan` (action names or ids, or one string
        '(a x) (b y)'). Unreadable names raise errors that say where (`state[2]`, `action`, `plan[3]`)."""
        try:
            kind = canonical_task(kind)
        except ValueError as e:
            raise AcpError(str(e), "task kind") from None
        s = task.questions.state(state)
        q = cls(kind, task, s, domain=task.domain.name)
        if kind == "prog":
            if action is None and effects is None:
                raise AcpError(
                    "a prog question needs the action whose effects are asked for",
                    "score_answer",
                    "pass action='(name arg1 arg2)'",
                )
            if action is not None:
                aid = task.action_id(action, "action")
                if q.truth.effects(aid) is None:
                    raise AcpError(
                        f"{task.action_names[aid]} is not applicable in the state, so it has no effects",
                        "score_answer",
                        "ask about an applicable action: " + ", ".join(q.truth.applicable()[:8]),
                    )
                q.action = task.action_names[aid]
            else:
                q.stored = _check_effects(effects)
        if kind in ("val", "just"):
            if plan is None:
                raise AcpError(
                    f"a {kind} question needs the plan it is about",
                    "score_answer",
                    "pass plan=['(a x)', '(b y)'] or plan='(a x) (b y)'",
                )
            q.plan = task.action_list(task.parse_plan(plan))
            if not q.plan:
                raise AcpError("the plan is empty", "score_answer", "pass at least one action")
        return q


def _check_effects(effects) -> dict:
    if (
        not isinstance(effects, dict)
        or not isinstance(effects.get("pos"), list)
        or not isinstance(effects.get("neg"), list)
    ):
        raise AcpError(
            "effects must be a dict with 'pos' and 'neg' lists of atoms",
            "score_answer",
            "e.g. effects={'pos': ['(on c1)'], 'neg': ['(at c1 l0)']}",
        )
    return effects


def record_where(record: dict) -> str:
    """Where a record is, for error messages: `record group/id`."""
    return f"record {record.get('group', '?')}/{record.get('id', '?')}"


def plan_of_question(question: str) -> list[str]:
    """The quoted plan of a val/just question: ... "(a x) (b y)" ..."""
    m = _QUOTED_PLAN.search(question or "")
    return _ACTION.findall(m.group(1)) if m else []


def check_record(record) -> None:
    """Raise AcpError unless the record is a JSON object with the required fields and PDDL texts."""
    if not isinstance(record, dict):
        raise AcpError(f"a record must be a JSON object, got {type(record).__name__}", "data")
    missing = [f for f in REQUIRED_FIELDS if f not in record]
    if missing:
        raise AcpError(
            f"missing field(s) {', '.join(missing)}",
            record_where(record),
            "ACPBench Hard records carry id, group, question, answer, PDDL_domain, PDDL_problem",
        )
    for f in ("PDDL_domain", "PDDL_problem"):
        if not isinstance(record[f], str) or "(" not in record[f]:
            raise AcpError(f"{f} is not PDDL text", record_where(record))


def question_of_record(record: dict, lazy: bool = False, task: Task | None = None) -> Question:
    """The question of an ACPBench Hard record; its problem's init is the question's state.
    lazy: load (parse and ground) the PDDL only when something asks for the task; `task`: the
    record's task, loaded already."""
    check_record(record)
    kind = task_of(record)
    where = record_where(record)

    def load() -> Task:
        if task is not None:
            return task
        try:
            return task_for(record["PDDL_domain"], record["PDDL_problem"])
        except AcpError as e:
            raise AcpError(f"its PDDL does not load: {e}", where) from None

    q = Question(
        kind,
        loader=load,
        stored=record.get("answer"),
        question_text=record.get("question"),
        record_id=record.get("id"),
        group=record.get("group"),
        domain=domain_name(record),
    )
    if kind in ("val", "just"):
        plan = plan_of_question(record.get("question", ""))
        if not plan and not lazy:
            raise AcpError(
                "the question quotes no plan", where, 'val/just questions quote the plan as "(a x) (b y) ..."'
            )
        q.plan = plan
    if not lazy:
        task = q.task
        try:
            for a in q.plan or ():
                task.parse_action(a)
        except UnknownNameError as e:
            raise AcpError(f"the question's plan names something the PDDL does not define: {e}", where) from None
    return q
