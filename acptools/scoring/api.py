"""Grading one answer: `score_response` for ACPBench Hard records, `score_answer` for any loaded task."""

from __future__ import annotations

import time

from ..answers import parse_answer, vocabulary
from ..answers.lm_eval_extract import extract
from ..budget import Budget
from ..dataset import task_of
from ..errors import AcpError, BudgetExceeded
from ..kinds import GOLD, GRADER, KINDS, REFERENCE, form_kind, implementation
from ..task import Task
from ..verdict import Grade
from . import generated_forms
from .items import ItemScore, Outcome, parsed_dict
from .question import Question, plan_of_question, question_of_record, record_where

SEMANTICS = ("exact", "reference")
MAX_REFERENCE_CHARS = 200_000


def _check_semantics(semantics: str) -> None:
    if semantics not in SEMANTICS:
        raise AcpError(f"unknown semantics {semantics!r}", "semantics", "use 'exact' or 'reference'")


def check_stored(q: Question, where: str) -> None:
    """Reference semantics reads the stored answer as the truth: it must have the task's shape."""
    typ, shape, keys = KINDS[q.kind].stored
    st = q.stored
    ok = isinstance(st, typ) and not isinstance(st, bool)
    if ok and keys:
        ok = all(isinstance(st.get(k), list) for k in keys)
    if not ok:
        raise AcpError(
            f"the stored answer is not {shape} (got {st!r:.80})",
            where,
            "reference semantics scores against the stored answer; use --semantics exact",
        )


def grade(
    q: Question, response, semantics: str = "exact", budget: float | Budget | None = None, until: bool = True
) -> tuple[Outcome, dict]:
    """(Outcome, parsed-as-JSON) for a response to a question. Reading the response spends the
    budget too when it is a Budget (a huge response ends `unknown`, never running on)."""
    if semantics == "reference":
        text = "" if response is None else str(response)
        if len(text) > MAX_REFERENCE_CHARS:
            raise AcpError(
                f"the response has {len(text)} characters, more than reference semantics reads "
                f"({MAX_REFERENCE_CHARS}): the published scorer's parser is slow on long text and "
                "lm-eval generations are far shorter",
                "response",
                "use semantics 'exact'",
            )
        parsed = extract(q.kind, text, until)
        return implementation(REFERENCE, q.kind)(q, parsed, budget), {"reference": parsed}
    try:
        parsed = parse_answer(
            q.kind, response, budget if isinstance(budget, Budget) else None, known=vocabulary(q.task)
        )
    except BudgetExceeded as e:
        return Outcome(None, Grade.UNKNOWN, f"the response could not be read within the budget ({e})"), {}
    return implementation(GRADER, q.kind)(q, parsed, budget), parsed_dict(parsed)


def score_response(
    record: dict,
    response: str,
    semantics: str = "exact",
    budget: float | Budget | None = None,
    model: str | None = None,
    until: bool = True,
    task: Task | None = None,
) -> ItemScore:
    """Grade a free-text `response` to an ACPBench Hard `record` (a dict with its PDDL).

    semantics: 'exact' (computed from the PDDL; the default) or 'reference' (the published lm-eval
    scorer's rules). budget: seconds per proof (None: the library default of 60 s), or an
    `acptools.Budget` shared by every proof of this call (set its `cancel` event to stop
    them; a verdict cut short is 'unknown'). until: in reference
    semantics, cut the text at lm-eval's stop strings first, as an lm-eval harness run does. task:
    the record's task when the caller loaded it already (the MCP server, under its limits).
    Raises AcpError for a record that cannot be scored (missing fields, PDDL that does not load).
    Records of the generated forms (yes/no, 4-choice, ActionReasoningBench, plans) are graded by
    `acptools.scoring.generated_forms`."""
    _check_semantics(semantics)
    if generated_forms.handles(record):
        return generated_forms.score_record(record, response, semantics, budget, model)
    t0 = time.perf_counter()
    q = question_of_record(record, lazy=semantics == "reference", task=task)
    if semantics == "reference":
        check_stored(q, record_where(record))
    out, parsed = grade(q, response, semantics, budget, until)
    return ItemScore(
        id=record.get("id"),
        group=record.get("group"),
        task=q.kind,
        domain=q.domain,
        model=model,
        score=out.score,
        verdict=out.verdict,
        reason=out.reason,
        witness=out.witness,
        metrics=out.metrics,
        parsed=parsed,
        seconds=round(time.perf_counter() - t0, 6),
        semantics=semantics,
    )


def score_answer(
    task_kind: str,
    response: str,
    task: Task,
    state=None,
    action=None,
    plan=None,
    effects=None,
    budget: float | Budget | None = None,
) -> ItemScore:
    """Grade a response to a question about a loaded task that is not an ACPBench record (exact semantics).

    task_kind: app, prog, reach, areach, val, just, land or nexta (or a group name). state: None for the
    problem's init, an int state, or a list of atom strings. prog: `action` (a name or an action id; the
    effects are computed) or `effects={'pos': [...], 'neg': [...]}`. val and just: `plan` (action names
    or ids, or one string). budget: seconds per proof, or a `Budget` shared by every proof of this call
    (set its `cancel` event to stop them). Unreadable names raise an AcpError saying where (`plan[3]`).
    """
    if form_kind(task_kind) is not None:
        raise AcpError(
            f"{task_kind!r} questions are graded from their records",
            "task kind",
            "pass the record to score_response (the MCP tool: record=...)",
        )
    t0 = time.perf_counter()
    q = Question.build(task_kind, task, state, action, plan, effects)
    out, parsed = grade(q, response, "exact", budget)
    return ItemScore(
        task=q.kind,
        domain=q.domain,
        score=out.score,
        verdict=out.verdict,
        reason=out.reason,
        witness=out.witness,
        metrics=out.metrics,
        parsed=parsed,
        seconds=round(time.perf_counter() - t0, 6),
    )


# ---- the stored answer written as text (what --gold scores) -----------------------------------------


def _fmt(actions) -> str:
    return "[" + ", ".join(actions) + "]"


def _apply_removal(plan: list[str], removal: list[str]) -> list[str]:
    """["(a)", "k"] drops the k-th occurrence (1-based) of (a); ["(a)", "(b)", "-1"] drops that pair."""
    if len(removal) == 3 and str(removal[-1]) == "-1":
        a, b = removal[0], removal[1]
        for i in range(len(plan) - 1):
            if plan[i] == a and plan[i + 1] == b:
                return plan[:i] + plan[i + 2 :]
        raise ValueError(f"the pair {a} {b} is not in the plan")
    act, k = removal[0], int(removal[1])
    seen = 0
    for i, x in enumerate(plan):
        if x == act:
            seen += 1
            if seen == k:
                return plan[:i] + plan[i + 1 :]
    raise ValueError(f"the plan has no occurrence {k} of {act}")


def gold_response(record: dict) -> str:
    """The record's stored answer written the way the prompts ask for it (its kind's gold writer in
    acptools.kinds: `hard_gold_text`, or acptools.scoring.generated_forms.gold_text)."""
    kind = form_kind(record.get("group")) if isinstance(record, dict) else None
    return implementation(GOLD, kind or task_of(record))(record)


def hard_gold_text(record: dict) -> str:
    """The stored answer of an ACPBench Hard record written the way its prompts ask for it."""
    kind = task_of(record)
    a = record.get("answer")
    where = record_where(record)
    try:
        if kind == "app":
            return _fmt(a)
        if kind == "prog":
            return _fmt(a["pos"]) + " " + _fmt(a["neg"])
        if kind == "reach":
            return f"({a[0]})" if a else "None"
        if kind == "areach":
            return a[0] if a else "None"
        if kind == "val":
            return str(int(a))
        if kind == "just":
            return _fmt(_apply_removal(plan_of_question(record.get("question", "")), a[0]))
        if kind == "land":
            return a["yes"][0] if a["yes"] else "None"
        return a["yes"][0]
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise AcpError(f"the stored answer cannot be written as text ({type(e).__name__}: {e})", where) from None
