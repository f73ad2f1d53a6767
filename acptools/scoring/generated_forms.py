"""Grading answers to the generated forms (acptools.kinds): ACPBench yes/no and 4-choice questions,
ActionReasoningBench questions and model-written plans. `score_response` sends records of these
groups here.

Exact semantics decides the record's claim(s) or query again from its PDDL (`acptools.claims`):
the stored answer is not trusted. Reference semantics compares with the stored answer. Per answer
type (the record's `spec.answer_type`):

* bool: yes/no/true/false read leniently; correct when it equals the claim's truth.
* choice: a letter or the option's text; correct when the chosen option's claim is true.
* set (ARB fluent/state/object tracking, executable actions): the listed atoms or actions against the true
  set; metrics iou, precision, recall (state comprehension: the whole answer against the whole
  truth) and tracking_iou, tracking_precision, tracking_recall (state tracking: restricted to the
  facts the actions changed, so repeating the initial state scores 0 there). Correct: the same set.
* effects: positive and negative effects, as prog.
* count: exact, with abs_error. index (first inexecutable step, 1-based, or None): exact, with the
  signed index_error. name (hallucination): the one name not in the task, or None.
* value (a numeric fluent's value): exact, as a fraction ("5/4", "1.25" and "1.250" are one value;
  "1.2500001" is another), with abs_error.
* plan: valid (every action applies), reaches the goal; metrics length, h_star, length_ratio
  (length / h*), optimal, and the partial credit of `plan_credit` (valid_prefix, h_star_after_prefix,
  goal_distance_closed, action_distance). Correct: a valid plan that reaches the goal.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, cast

from ..answers import parse_answer, vocabulary
from ..answers.form_readers import read_bool, read_choice, read_count, read_step, read_value
from ..claims import atom_ids, atoms_of, decide, evaluate, state_of
from ..dataset import domain_name
from ..errors import AcpError, UnknownNameError
from ..kinds import form_kind
from ..verdict import Grade
from .items import ItemScore, Outcome, set_metrics, show
from .plan_credit import plan_credit
from .question import Question, question_of_record, record_where

YES = ("yes", "true")


def handles(record) -> bool:
    """Is this a record of a generated form (not one of ACPBench Hard's eight tasks)?"""
    return isinstance(record, dict) and form_kind(record.get("group")) is not None


def _spec(record: dict) -> dict:
    spec = record.get("spec")
    if not isinstance(spec, dict) or "answer_type" not in spec:
        raise AcpError(
            "the record has no 'spec' saying what it asks",
            record_where(record),
            "records of the generated forms carry spec.answer_type (see docs/generating.md)",
        )
    return spec


def _stored_bool(record: dict) -> bool:
    return str(record.get("answer", "")).strip().lower() in YES


def _unparsed(error: str) -> Outcome:
    return Outcome(0, Grade.UNPARSED, f"no answer could be read: {error}")


# ---- yes/no and choices --------------------------------------------------------------------------


def _bool(q: Question, record: dict, spec: dict, response, semantics: str, budget):
    r = read_bool(response)
    if not r.ok:
        return _unparsed(r.error), {"ok": False, "error": r.error}
    parsed = {"ok": True, "answer": r.value}
    if semantics == "reference":
        truth, how = _stored_bool(record), "the stored answer"
    else:
        v = decide(q.task, q.state, spec["claim"], budget)
        if v.answer is None:
            return Outcome(None, Grade.UNKNOWN, "could not decide the claim within the budget"), parsed
        truth, how = v.answer, f"proven by {v.how}"
    m = {"answered": r.value, "expected": truth}
    word = "true" if truth else "false"
    if r.value == truth:
        return Outcome(1, Grade.CORRECT, f"the claim is {word} ({how})", metrics=m), parsed
    return Outcome(0, Grade.INCORRECT, f"the claim is {word} ({how})", metrics=m), parsed


def _choice(q: Question, record: dict, spec: dict, response, semantics: str, budget):
    choices = record.get("choices") or {}
    texts, labels = choices.get("text", []), choices.get("label", ["A", "B", "C", "D"])
    r = read_choice(response, texts, labels)
    if not r.ok:
        return _unparsed(r.error), {"ok": False, "error": r.error}
    label = labels[r.value]
    parsed = {"ok": True, "answer": label}
    m = {"answered": label, "expected": record.get("answer")}
    if semantics == "reference":
        ok = label == str(record.get("answer", "")).strip().upper()
        return Outcome(
            int(ok),
            Grade.CORRECT if ok else Grade.INCORRECT,
            f"option {label} is {'' if ok else 'not '}the stored answer",
            metrics=m,
        ), parsed
    v = decide(q.task, q.state, spec["claims"][r.value], budget)
    if v.answer is None:
        return Outcome(None, Grade.UNKNOWN, f"could not decide option {label} within the budget", metrics=m), parsed
    if v.answer:
        return Outcome(
            1, Grade.CORRECT, f"option {label} ({texts[r.value]}) is true (proven by {v.how})", metrics=m
        ), parsed
    return Outcome(
        0, Grade.INCORRECT, f"option {label} ({texts[r.value]}) is false (proven by {v.how})", metrics=m
    ), parsed


# ---- free answers ---------------------------------------------------------------------------------


def _names(task, items, kind: str):
    """(canonical names, hallucinated texts) of parsed items, as atoms or actions."""
    good, bad = [], []
    parse, table = (task.parse_action, task.action_names) if kind == "action" else (task.parse_atom, task.atom_names)
    for pn in items:
        try:
            good.append(table[parse(pn.text)])
        except UnknownNameError:
            bad.append(pn.text)
    return good, bad


def _truth(q: Question, record: dict, spec: dict, semantics: str):
    return record.get("answer") if semantics == "reference" else evaluate(q.task, q.state, spec["query"])


def _tracking(q: Question, query: dict, answer: set, truth: set) -> dict:
    """State tracking: the answer and the truth restricted to the facts the actions changed."""
    if query.get("query") != "atoms" or not (query.get("after") or query.get("before_failure")):
        return {}
    sign, obj = query.get("sign", "true"), query.get("object")
    end = state_of(q.task, q.state, query)
    changed = set(atoms_of(q.task, q.state, sign, obj)) ^ set(atoms_of(q.task, end, sign, obj))
    if query.get("among") is not None:
        changed &= {q.task.atom_names[i] for i in atom_ids(q.task, query["among"], "among")}
    return set_metrics(answer & changed, truth & changed, prefix="tracking_")


def _set(q: Question, record: dict, spec: dict, response, semantics: str, budget):
    p = parse_answer("app", response, known=vocabulary(q.task))
    if not p.ok:
        return _unparsed(p.error), {"ok": False, "error": p.error}
    query = spec["query"]
    kind = "action" if query.get("query") == "applicable" else "atom"
    good, bad = _names(q.task, p.items, kind)
    answer = set(good) | set(bad)
    truth = set(_truth(q, record, spec, semantics) or [])
    m = set_metrics(answer, truth, len(set(bad)))
    m.update(_tracking(q, query, answer, truth))
    parsed = {"ok": True, "items": sorted(answer)}
    if bad:
        return Outcome(
            0,
            Grade.HALLUCINATED,
            f"{bad[0]} is not a {'ground action' if kind == 'action' else 'proposition'} of the task",
            metrics=m,
        ), parsed
    if answer == truth:
        return Outcome(1, Grade.CORRECT, f"exactly the {len(truth)} expected item(s)", metrics=m), parsed
    missing, extra = sorted(truth - answer), sorted(answer - truth)
    why = "; ".join(
        x
        for x in (
            f"missing {len(missing)}: {show(missing)}" if missing else "",
            f"{len(extra)} wrong: {show(extra)}" if extra else "",
        )
        if x
    )
    return Outcome(0, Grade.INCORRECT, why, metrics=m), parsed


def _effects(q: Question, record: dict, spec: dict, response, semantics: str, budget):
    p = parse_answer("prog", response, known=vocabulary(q.task))
    if not p.ok:
        return _unparsed(p.error), {"ok": False, "error": p.error}
    truth = _truth(q, record, spec, semantics) or {}
    gp, bp = _names(q.task, p.items, "atom")
    gn, bn = _names(q.task, p.negative, "atom")
    pos, neg = set(gp) | set(bp), set(gn) | set(bn)
    tp, tn = set(truth.get("pos", [])), set(truth.get("neg", []))
    signed = lambda p, n: {("+", x) for x in p} | {("-", x) for x in n}  # noqa: E731
    m = {
        **set_metrics(pos, tp, len(set(bp)), "pos_"),
        **set_metrics(neg, tn, len(set(bn)), "neg_"),
        **set_metrics(signed(pos, neg), signed(tp, tn), len(set(bp)) + len(set(bn))),
    }
    parsed = {"ok": True, "pos": sorted(pos), "neg": sorted(neg)}
    if bp or bn:
        return Outcome(0, Grade.HALLUCINATED, f"{(bp + bn)[0]} is not a proposition of the task", metrics=m), parsed
    if (pos, neg) == (tp, tn):
        return Outcome(1, Grade.CORRECT, "both lists equal the action's effects", metrics=m), parsed
    return Outcome(0, Grade.INCORRECT, f"expected + {show(sorted(tp))} / - {show(sorted(tn))}", metrics=m), parsed


def _number(q: Question, record: dict, spec: dict, response, semantics: str, budget):
    """count (exact, abs_error) and index (a 1-based step or None, signed index_error)."""
    is_count = spec["answer_type"] == "count"
    r = read_count(response) if is_count else read_step(response)
    if not r.ok:
        return _unparsed(r.error), {"ok": False, "error": r.error}
    truth = _truth(q, record, spec, semantics)
    m = {"answered": r.value, "expected": truth}
    both = isinstance(r.value, int) and isinstance(truth, int)
    if is_count:
        m["abs_error"] = abs(r.value - truth) if both else None
    else:
        m["index_error"] = r.value - truth if both else None
    what = "count" if is_count else "first inexecutable step"
    ok = r.value == truth
    return Outcome(int(ok), Grade.CORRECT if ok else Grade.INCORRECT, f"the {what} is {truth}", metrics=m), {
        "ok": True,
        "answer": r.value,
    }


def _exact(text, record: dict) -> Fraction:
    """A value answer ('3', '2.5', '1/3') as an exact number; AcpError when it is none."""
    try:
        return Fraction(str(text).strip())
    except (ValueError, ZeroDivisionError):
        raise AcpError(
            f"the record's value answer {text!r} is no number", record_where(record), "write it as 3, 2.5 or 1/3"
        ) from None


def _value(q: Question, record: dict, spec: dict, response, semantics: str, budget):
    """value: the exact number (no float round-off), with abs_error."""
    r = read_value(response)
    if not r.ok:
        return _unparsed(r.error), {"ok": False, "error": r.error}
    answered = cast(Fraction, r.value)
    truth = _truth(q, record, spec, semantics)
    exact = None if truth is None else _exact(truth, record)
    m = {"answered": str(answered), "expected": truth}
    m["abs_error"] = None if exact is None else float(abs(answered - exact))
    ok = exact is not None and answered == exact
    said = f"the value is {truth}" if truth is not None else "the fluent has no value"
    return Outcome(int(ok), Grade.CORRECT if ok else Grade.INCORRECT, said, metrics=m), {
        "ok": True,
        "answer": str(answered),
    }


def _name(q: Question, record: dict, spec: dict, response, semantics: str, budget):
    p = parse_answer("reach", response, known=vocabulary(q.task))
    if not p.ok:
        return _unparsed(p.error), {"ok": False, "error": p.error}
    got = None if p.none else p.items[0].text
    truth = _truth(q, record, spec, semantics)
    want = None if truth is None else parse_answer("reach", truth, known=vocabulary(q.task)).items[0].text
    ok = got == want
    why = "every name is defined" if want is None else f"{want} is not defined in the task"
    return Outcome(
        int(ok), Grade.CORRECT if ok else Grade.INCORRECT, why, metrics={"answered": got, "expected": want}
    ), {"ok": True, "answer": got}


def _action_id(task, text: str) -> int | None:
    """The ground action's id, or None when the text names no ground action of the task."""
    try:
        return task.parse_action(text)
    except UnknownNameError:
        return None


def _plan(q: Question, record: dict, spec: dict, response, semantics: str, budget):
    p = parse_answer("just", response, known=vocabulary(q.task))
    if not p.ok:
        return _unparsed(p.error), {"ok": False, "error": p.error}
    steps = [_action_id(q.task, pn.text) for pn in p.items]
    texts = [pn.text if a is None else q.task.action_names[a] for pn, a in zip(p.items, steps, strict=True)]
    good = [t for t, a in zip(texts, steps, strict=True) if a is not None]
    bad = [t for t, a in zip(texts, steps, strict=True) if a is None]
    parsed = {"ok": True, "items": good + bad}
    h = q.truth.h_star(budget)
    m = {
        "length": len(p.items),
        "valid": False,
        "goal_reached": False,
        "h_star": h.cost if h.known else None,
        **plan_credit(q, record, texts, steps, h, budget),
    }
    if bad:
        return Outcome(0, Grade.HALLUCINATED, f"{bad[0]} is not a ground action of the task", metrics=m), parsed
    v = q.truth.validate(tuple(good))
    m.update(valid=v.first_inapplicable is None, goal_reached=v.goal_reached, first_inapplicable=v.first_inapplicable)
    m["length_ratio"] = round(len(good) / h.cost, 6) if h.known and h.cost else None
    m["optimal"] = (len(good) == h.cost) if h.known and v.goal_reached else None
    if v.first_inapplicable is not None:
        return Outcome(
            0,
            Grade.NOT_PLAN,
            f"step {v.first_inapplicable} {good[v.first_inapplicable]} cannot be applied "
            f"(needs {', '.join(v.unsatisfied_preconditions)})",
            metrics=m,
        ), parsed
    if not v.goal_reached:
        return Outcome(
            0,
            Grade.NOT_PLAN,
            f"every action applies, but the goal is not reached (unmet: {show(v.unmet_goals)})",
            metrics=m,
        ), parsed
    return Outcome(1, Grade.CORRECT, f"a plan of {len(good)} actions (h* = {m['h_star']})", metrics=m), parsed


GRADERS = {
    "bool": _bool,
    "choice": _choice,
    "set": _set,
    "effects": _effects,
    "count": _number,
    "index": _number,
    "value": _value,
    "name": _name,
    "plan": _plan,
}


# ---- records -------------------------------------------------------------------------------------


def grade(q: Question, record: dict, response, semantics: str = "exact", budget=None) -> tuple[Outcome, dict]:
    """Grade a response to the record's question with the grader of its answer type: the Outcome
    and details."""
    spec = _spec(record)
    grader = GRADERS.get(spec["answer_type"])
    if grader is None:
        raise AcpError(
            f"unknown answer type {spec['answer_type']!r}", record_where(record), f"answer types: {', '.join(GRADERS)}"
        )
    return grader(q, record, spec, "" if response is None else response, semantics, budget)


def score_record(record: dict, response, semantics: str = "exact", budget=None, model=None) -> ItemScore:
    """Grade a response to a record of a generated form (see the module docstring)."""
    t0 = time.perf_counter()
    q = question_of_record(record, lazy=semantics == "reference")
    out, parsed = grade(q, record, response, semantics, budget)
    return ItemScore(
        id=record.get("id"),
        group=record.get("group"),
        task=q.kind,
        domain=domain_name(record),
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


def gold_text(record: dict) -> str:
    """The record's stored answer written as a model would write it (what --gold scores)."""
    a: Any = record.get("answer")
    kind = _spec(record)["answer_type"]
    if kind == "set":
        return "[" + " ".join(a) + "]" if a else "None"
    if kind == "effects":
        return "[" + " ".join(a["pos"]) + "] [" + " ".join(a["neg"]) + "]"
    if kind == "plan":
        return "[" + " ".join(a["plan"]) + "]"
    return "None" if a is None else str(a)
