"""Exact semantics: what the ACPBench Hard validators intend, computed from the PDDL.

One function per task kind: (Question, ParsedAnswer, budget) -> Outcome. The stored answer of a
record is used only as a hint (which atoms to try first when an answer says 'None') and, for prog,
as the target once it is verified to be the effects of an applicable action.
"""

from __future__ import annotations

from typing import Any

from ..errors import UnknownNameError
from ..verdict import Grade
from .items import Outcome, nh_jaccard, plan_text, set_metrics, show
from .question import Question

# ---- names -------------------------------------------------------------------------------------


def _resolve(task, parsed_items, kind: str):
    """(canonical names of the valid items, [(text, why)] for hallucinated ones)."""
    good, bad = [], []
    parse = task.parse_action if kind == "action" else task.parse_atom
    table = task.action_names if kind == "action" else task.atom_names
    for pn in parsed_items:
        try:
            good.append(table[parse(pn.text)])
        except UnknownNameError as e:
            bad.append((pn.text, str(e)))
    return good, bad


def _hallucinated(bad, kind: str) -> str:
    what = "ground action" if kind == "action" else "proposition"
    text, why = bad[0]
    more = f" (and {len(bad) - 1} more: {show([b[0] for b in bad[1:]], 4)})" if len(bad) > 1 else ""
    return f"{text} is not a {what} of the task: {why}{more}"


def _unparsed(parsed) -> Outcome:
    return Outcome(0, Grade.UNPARSED, f"no answer could be read: {parsed.error or 'nothing usable in the response'}")


def _why_inapplicable(q: Question, action: str) -> str:
    aid = q.task.action_index[action]
    return ", ".join(q.task.unsatisfied(aid, q.state).describe()) or "?"


# ---- app ---------------------------------------------------------------------------------------


def app(q: Question, parsed, budget) -> Outcome:
    """app (every action applicable in the state), exact semantics: the answer against what the PDDL proves."""
    if not parsed.ok:
        return _unparsed(parsed)
    good, bad = _resolve(q.task, parsed.items, "action")
    truth = set(q.truth.applicable())
    answer = set(good) | {b[0] for b in bad}
    m = set_metrics(answer, truth, len({b[0] for b in bad}))
    m["nh_jaccard"] = nh_jaccard(answer, truth)
    if bad:
        return Outcome(0, Grade.HALLUCINATED, _hallucinated(bad, "action"), metrics=m)
    missing, extra = sorted(truth - answer), sorted(answer - truth)
    if not missing and not extra:
        return Outcome(1, Grade.CORRECT, f"exactly the {len(truth)} applicable action(s)", metrics=m)
    parts = []
    if missing:
        parts.append(f"missing {len(missing)} applicable: {show(missing)}")
    if extra:
        parts.append(f"{len(extra)} not applicable: {show(extra)} ({extra[0]} needs {_why_inapplicable(q, extra[0])})")
    return Outcome(0, Grade.INCORRECT, "; ".join(parts), metrics=m)


# ---- prog --------------------------------------------------------------------------------------


def _prog_target(q: Question):
    """(pos, neg, how, error): the expected effects. From the action when the question names one;
    else the stored effects, verified to be the effects of some applicable action."""
    if q.action is not None:
        effects = q.truth.effects(q.task.action_index[q.action])
        assert effects is not None, "a prog question's action applies in its state"
        pos, neg = effects
        return pos, neg, f"the effects of {q.action}", ""
    stored = q.stored if isinstance(q.stored, dict) else {}
    try:
        pos = frozenset(q.task.atom_names[q.task.parse_atom(a)] for a in stored.get("pos", []))
        neg = frozenset(q.task.atom_names[q.task.parse_atom(a)] for a in stored.get("neg", []))
    except (UnknownNameError, TypeError) as e:
        return None, None, "", f"the stored effects name something the PDDL does not define ({e})"
    hits = q.truth.actions_with_effects(pos, neg)
    if not hits:
        return (
            None,
            None,
            "",
            (
                "the stored effects are not the effects of any applicable action "
                "(a data error): the expected answer cannot be established"
            ),
        )
    return pos, neg, f"the effects of {show(hits, 3)}", ""


def prog(q: Question, parsed, budget) -> Outcome:
    """prog (the positive and negative effects of an action), exact semantics: the answer against what
    the PDDL proves."""
    if not parsed.ok:
        return _unparsed(parsed)
    pos_t, neg_t, how, err = _prog_target(q)
    if err:
        return Outcome(None, Grade.UNKNOWN, err)
    gp, bp = _resolve(q.task, parsed.items, "atom")
    gn, bn = _resolve(q.task, parsed.negative, "atom")
    bad = bp + bn
    pos = set(gp) | {b[0] for b in bp}
    neg = set(gn) | {b[0] for b in bn}
    m = {}
    m.update(set_metrics(pos, set(pos_t), len({b[0] for b in bp}), "pos_"))
    m.update(set_metrics(neg, set(neg_t), len({b[0] for b in bn}), "neg_"))
    both = {("+", x) for x in pos} | {("-", x) for x in neg}
    both_t = {("+", x) for x in pos_t} | {("-", x) for x in neg_t}
    m.update(set_metrics(both, both_t, len({("+", b[0]) for b in bp} | {("-", b[0]) for b in bn})))
    if bad:
        return Outcome(0, Grade.HALLUCINATED, _hallucinated(bad, "atom"), metrics=m)
    if pos == pos_t and neg == neg_t:
        return Outcome(1, Grade.CORRECT, f"both lists equal {how}", metrics=m)
    parts = []
    for label, got, want in (("positive", pos, pos_t), ("negative", neg, neg_t)):
        if want - got:
            parts.append(f"missing {label}: {show(sorted(want - got))}")
        if got - want:
            other = neg_t if label == "positive" else pos_t
            wrong = sorted(got - want)
            note = (
                " (it is a " + ("negative" if label == "positive" else "positive") + " effect)"
                if wrong[0] in other
                else ""
            )
            parts.append(f"extra {label}: {show(wrong)}{note}")
    return Outcome(
        0,
        Grade.INCORRECT,
        "; ".join(parts) + f" (expected {how}: + {show(sorted(pos_t))} / - {show(sorted(neg_t))})",
        metrics=m,
    )


# ---- reach -------------------------------------------------------------------------------------


def _single(q: Question, parsed, kind: str):
    """(canonical name, None) or (None, Outcome) for single-item tasks."""
    if not parsed.ok:
        return None, _unparsed(parsed)
    good, bad = _resolve(q.task, parsed.items[:1], kind)
    if bad:
        return None, Outcome(0, Grade.HALLUCINATED, _hallucinated(bad, kind), metrics={"category": Grade.HALLUCINATED})
    return good[0], None


def _with_category(out: Outcome, how: str = "") -> Outcome:
    """`out` with its verdict as metrics["category"] and, when given, the proof method as metrics["how"]."""
    out.metrics.setdefault("category", out.verdict)
    if how:
        out.metrics.setdefault("how", how)
    return out


def _hint_names(stored, key=None) -> list[str]:
    if key is not None:
        stored = stored.get(key) if isinstance(stored, dict) else None
    return [x for x in stored if isinstance(x, str)] if isinstance(stored, list) else []


def reach(q: Question, parsed, budget) -> Outcome:
    """reach (a proposition that can never hold), exact semantics: the answer against what the PDDL proves."""
    if parsed.ok and parsed.none:
        return _with_category(_reach_none(q, budget))
    atom, bad = _single(q, parsed, "atom")
    if bad:
        return _with_category(bad)
    v = q.truth.atom_reach(q.task.atom_name_index[atom], budget)
    if v.answer is None:
        return _with_category(
            Outcome(
                None,
                Grade.UNKNOWN,
                f"could not decide whether {atom} is reachable within the budget ({v.detail or 'search ran out'})",
            ),
            v.how,
        )
    if v.answer is False:
        return _with_category(Outcome(1, Grade.CORRECT, f"{atom} can never hold: proven by {v.how}"), v.how)
    if not v.witness:
        return _with_category(Outcome(0, Grade.REACHABLE, f"{atom} already holds in the state", witness=[]), v.how)
    return _with_category(
        Outcome(
            0,
            Grade.REACHABLE,
            f"{atom} is reachable: the plan {plan_text(v.witness)} makes it true",
            witness=list(v.witness),
        ),
        v.how,
    )


def _reach_none(q: Question, budget) -> Outcome:
    task = q.task
    for name in _hint_names(q.stored):  # stored atoms first: one proof refutes 'None'
        try:
            atom = task.parse_atom(name)
        except UnknownNameError:
            continue
        v = q.truth.atom_reach(atom, budget)
        if v.answer is False:
            return Outcome(
                0,
                Grade.MISSED,
                f"some propositions can never hold, e.g. {task.atom_names[atom]} (proven by {v.how})",
                metrics={"how": v.how},
            )
    res = q.truth.unreachable_atoms(budget)
    if res.items:
        first = res.items[0]
        return Outcome(
            0,
            Grade.MISSED,
            f"{res.total} proposition(s) can never hold, e.g. {first.name} (proven by {first.how}): {show(res.names)}",
            metrics={"how": first.how, "count": res.total},
        )
    if not res.complete:
        return Outcome(
            None,
            Grade.UNKNOWN,
            f"could not decide {len(res.unknown)} proposition(s) within the budget: {show(res.unknown)}",
        )
    return Outcome(
        1,
        Grade.CORRECT,
        f"every one of the {len(task.atoms)} propositions can hold in some reachable "
        "state (each one shown by a plan or visited state)",
    )


# ---- areach ------------------------------------------------------------------------------------


def areach(q: Question, parsed, budget) -> Outcome:
    """areach (an action that can never become applicable), exact semantics: the answer against what the PDDL proves."""
    if parsed.ok and parsed.none:
        return _with_category(_areach_none(q, budget))
    action, bad = _single(q, parsed, "action")
    if bad:
        return _with_category(bad)
    v = q.truth.action_reach(q.task.action_index[action], budget)
    if v.answer is None:
        return _with_category(
            Outcome(
                None,
                Grade.UNKNOWN,
                f"could not decide whether {action} can become applicable "
                f"within the budget ({v.detail or 'search ran out'})",
            ),
            v.how,
        )
    if v.answer is False:
        why = v.detail or f"proven by {v.how}"
        return _with_category(Outcome(1, Grade.CORRECT, f"{action} can never be applied: {why}"), v.how)
    if not v.witness:
        return _with_category(
            Outcome(0, Grade.REACHABLE, f"{action} is applicable in the state itself", witness=[]), v.how
        )
    return _with_category(
        Outcome(
            0,
            Grade.REACHABLE,
            f"{action} becomes applicable after the plan {plan_text(v.witness)}",
            witness=list(v.witness),
        ),
        v.how,
    )


def _areach_none(q: Question, budget) -> Outcome:
    task = q.task
    static = q.truth.static_impossible_action()
    if static:
        return Outcome(
            0,
            Grade.MISSED,
            f"some ground actions can never be applied, e.g. {static} (its static "
            "preconditions are false in this problem)",
            metrics={"how": "static-facts"},
        )
    for name in _hint_names(q.stored):
        try:
            action = task.parse_action(name)
        except UnknownNameError:
            continue
        v = q.truth.action_reach(action, budget)
        if v.answer is False:
            return Outcome(
                0,
                Grade.MISSED,
                f"some ground actions can never be applied, e.g. {task.action_names[action]} (proven by {v.how})",
                metrics={"how": v.how},
            )
    res = q.truth.unreachable_actions(budget)
    if res.items:
        first = res.items[0]
        return Outcome(
            0,
            Grade.MISSED,
            f"{res.total} ground action(s) can never be applied, e.g. {first.name} (proven by {first.how})",
            metrics={"how": first.how, "count": res.total},
        )
    if not res.complete:
        return Outcome(
            None, Grade.UNKNOWN, f"could not decide {len(res.unknown)} action(s) within the budget: {show(res.unknown)}"
        )
    return Outcome(1, Grade.CORRECT, f"every one of the {task.num_actions} ground actions can become applicable")


# ---- land --------------------------------------------------------------------------------------


def land(q: Question, parsed, budget) -> Outcome:
    """land (a non-trivial fact landmark), exact semantics: the answer against what the PDDL proves."""
    if parsed.ok and parsed.none:
        return _with_category(_land_none(q, budget))
    atom, bad = _single(q, parsed, "atom")
    if bad:
        return _with_category(bad)
    v = q.truth.landmark(q.task.atom_name_index[atom], budget)
    if v.how == "trivial" or v.extra.get("trivial"):
        return _with_category(Outcome(0, Grade.TRIVIAL, f"{atom} is a trivial landmark: {v.detail}"), v.how)
    if v.answer is None:
        return _with_category(
            Outcome(None, Grade.UNKNOWN, f"could not decide whether {atom} is a landmark within the budget"), v.how
        )
    if v.answer:
        return _with_category(Outcome(1, Grade.CORRECT, f"{atom} is a landmark: {v.detail} (proven by {v.how})"), v.how)
    return _with_category(
        Outcome(
            0,
            Grade.NOT_LANDMARK,
            f"{atom} is not a landmark: the plan {plan_text(v.witness)} reaches the goal without ever making it true",
            witness=list(v.witness or []),
        ),
        v.how,
    )


def _land_none(q: Question, budget) -> Outcome:
    task = q.task
    for name in _hint_names(q.stored, "yes"):
        try:
            atom = task.parse_atom(name)
        except UnknownNameError:
            continue
        v = q.truth.landmark(atom, budget)
        if v.answer and v.how != "trivial":
            return Outcome(
                0,
                Grade.MISSED,
                f"the state has non-trivial landmarks, e.g. {task.atom_names[atom]} ({v.detail}; proven by {v.how})",
                metrics={"how": v.how},
            )
    res = q.truth.landmarks(budget)
    if res.items:
        first = res.items[0]
        return Outcome(
            0,
            Grade.MISSED,
            f"the state has {res.total} non-trivial landmark(s), e.g. {first.name} (the "
            f"goal cannot be reached without it; proven by {first.how}): {show(res.names)}",
            metrics={"how": first.how, "count": res.total},
        )
    if not res.complete:
        return Outcome(
            None,
            Grade.UNKNOWN,
            f"could not decide {len(res.unknown)} candidate(s) within the budget: {show(res.unknown)}",
        )
    return Outcome(
        1,
        Grade.CORRECT,
        "no non-trivial fact landmark: every atom that does not hold now and is not a goal is avoided by some plan",
    )


# ---- val ---------------------------------------------------------------------------------------


def _asked_plan(q: Question) -> list[str]:
    """The plan a val or just question asks about (such a question always carries one)."""
    assert q.plan is not None, f"a {q.kind} question without its plan"
    return q.plan


def val(q: Question, parsed, budget) -> Outcome:
    """val (the first inapplicable action of a sequence), exact semantics: the answer against what the PDDL proves."""
    if not parsed.ok or parsed.index is None:
        return _unparsed(parsed)
    plan = _asked_plan(q)
    v = q.truth.validate(tuple(plan))
    truth, got, n = v.first_inapplicable, parsed.index, len(plan)
    m = {"answered": got, "expected": truth}
    if truth is None:
        m["index_error"] = None
        return Outcome(
            0,
            Grade.INCORRECT,
            f"every action of the {n}-step plan is applicable in turn, so no index is right",
            metrics=m,
        )
    m["index_error"] = got - truth
    what = (
        f"action {truth} {q.task.action_names[q.task.parse_action(plan[truth])]} is the first inapplicable "
        f"one (it needs {', '.join(v.unsatisfied_preconditions)})"
    )
    if got == truth:
        return Outcome(1, Grade.CORRECT, what, metrics=m)
    if got >= n:
        return Outcome(
            0, Grade.INCORRECT, f"index {got} is out of range: the plan has {n} actions (0-based); {what}", metrics=m
        )
    if got < truth:
        return Outcome(
            0, Grade.INCORRECT, f"action {got} {plan[got].lower()} is applicable at that point; {what}", metrics=m
        )
    return Outcome(0, Grade.INCORRECT, f"an earlier action already fails: {what}", metrics=m)


# ---- just --------------------------------------------------------------------------------------


def _is_subsequence(plan: list[str], sub: list[str]) -> bool:
    it = iter(plan)
    return all(any(a == b for b in it) for a in sub)


def just(q: Question, parsed, budget) -> Outcome:
    """just (a plan with one or two consecutive actions removed), exact semantics: the answer against
    what the PDDL proves."""
    if not parsed.ok:
        return _unparsed(parsed)
    good, bad = _resolve(q.task, parsed.items, "action")
    plan = [q.task.action_names[q.task.parse_action(a)] for a in _asked_plan(q)]
    m = {"removed": len(plan) - len(parsed.items), "plan_length": len(plan)}
    if bad:
        m.update(is_plan=False, proper_subsequence=False)
        return Outcome(0, Grade.HALLUCINATED, _hallucinated(bad, "action"), metrics=m)
    v = q.truth.validate(tuple(good))
    m["is_plan"] = v.goal_reached and v.first_inapplicable is None
    proper = len(good) < len(plan) and _is_subsequence(plan, good)
    m["proper_subsequence"] = proper
    if not proper:
        if good == plan:
            why = "nothing was removed: the answer is the question's plan itself"
        elif len(good) >= len(plan):
            why = f"the answer has {len(good)} actions, the plan only {len(plan)}"
        else:
            why = "the answer is not the question's plan with some actions removed (order and names must match)"
        return Outcome(0, Grade.NOT_SUBSEQUENCE, why, metrics=m)
    if m["is_plan"]:
        return Outcome(1, Grade.CORRECT, f"removing {m['removed']} action(s) leaves a valid plan", metrics=m)
    if v.first_inapplicable is not None:
        i = v.first_inapplicable
        why = (
            f"after the removal, action {i} {good[i]} is not applicable (needs "
            f"{', '.join(v.unsatisfied_preconditions)})"
        )
    else:
        why = f"after the removal the goal is not reached (unmet: {show(v.unmet_goals)})"
    return Outcome(0, Grade.NOT_PLAN, why, metrics=m)


# ---- nexta -------------------------------------------------------------------------------------


def nexta(q: Question, parsed, budget, exact_regret: bool = False) -> Outcome:
    """nexta (an action that brings the goal one step closer), exact semantics: the answer against what the PDDL proves.
    A wrong answer's regret may come only as a lower bound, unless `exact_regret` is asked (a search more)."""
    action, bad = _single(q, parsed, "action")
    if bad:
        return bad
    task = q.task
    aid = task.action_index[action]
    if task.op_for(aid, q.state) is None:
        return Outcome(
            0,
            Grade.INAPPLICABLE,
            f"{action} is not applicable in the state (needs {_why_inapplicable(q, action)})",
            metrics={"regret": "inapplicable"},
        )
    root = q.truth.h_star(budget)
    if not root.known:
        return _nexta_from_bounds(q, aid, action, root, budget)
    names = lambda plan: [task.action_names[a] for a in plan]  # noqa: E731
    if root.cost is None:
        return Outcome(
            0,
            Grade.SUBOPTIMAL,
            "the goal is unreachable from this state, so no action takes us closer",
            metrics={"h_star": None, "regret": None},
        )
    if root.cost == 0:
        return Outcome(
            0,
            Grade.SUBOPTIMAL,
            "the goal already holds: no action takes us closer",
            metrics={"h_star": 0, "regret": None},
        )
    after = q.truth.regret(aid, budget, exact=exact_regret)
    assert after is not None, "the action applies in the state (checked above)"
    m: dict[str, Any] = {"h_star": root.cost}
    if not after.known and root.first_actions is not None and after.lower >= root.cost:
        m.update(h_star_after_lower=root.cost, h_star_after_upper=None, regret_lower=1, regret_upper=None, regret=None)
        return Outcome(
            0,
            Grade.SUBOPTIMAL,
            f"{action} does not bring the goal closer: it is not among the optimal first "
            f"actions, all of which one A* search found "
            f"({show(sorted(task.action_names[a] for a in root.first_actions))}), so h* after it is at "
            f"least h*(s) = {root.cost}; an optimal plan: {plan_text(names(root.plan))}",
            witness=names(root.plan),
            metrics=m,
        )
    if not after.known:
        return _nexta_from_bounds(q, aid, action, root, budget, after)
    if after.cost is None:
        m.update(h_star_after=None, regret="dead-end")
        return Outcome(
            0,
            Grade.SUBOPTIMAL,
            f"after {action} the goal can no longer be reached (h*(s) = {root.cost}); "
            f"an optimal plan: {plan_text(names(root.plan))}",
            witness=names(root.plan),
            metrics=m,
        )
    regret = after.cost + _step_cost(q, aid) - root.cost
    m.update(h_star_after=after.cost, regret=regret)
    if regret == 0:
        if after.plan is None:  # known from the set of all optimal first actions (one A* search)
            return Outcome(
                1,
                Grade.CORRECT,
                f"{action} starts an optimal plan: h* drops from {root.cost} to "
                f"{after.cost} (it is one of the optimal first actions: "
                f"{show(sorted(task.action_names[a] for a in root.first_actions or ()))})",
                metrics=m,
            )
        return Outcome(
            1,
            Grade.CORRECT,
            f"{action} starts an optimal plan: h* drops from {root.cost} to {after.cost} "
            f"(plan after it: {plan_text(names(after.plan))})",
            witness=[action] + names(after.plan),
            metrics=m,
        )
    return Outcome(
        0,
        Grade.SUBOPTIMAL,
        f"{action} does not bring the goal closer: h*(s) = {root.cost} but h* after it "
        f"is {after.cost} (regret {regret}); an optimal plan starts with {names(root.plan)[0]}: "
        f"{plan_text(names(root.plan))}",
        witness=names(root.plan),
        metrics=m,
    )


def _step_cost(q: Question, aid: int):
    """What the applicable action adds to a plan's measure in the state: 1, or its cost when the task
    measures plans by their actions' costs."""
    return q.task.questions.optimizer.step_cost(aid, q.state)


def _nexta_from_bounds(q: Question, aid: int, action: str, root, budget, after=None) -> Outcome:
    """nexta when h*(s) or h*(s[a]) is only known as a proven interval: with c the action's cost (1
    when plans are measured by length), a is optimal when c + upper(s[a]) <= lower(s) (a plan through
    a of at most h*(s)), and not optimal when c + lower(s[a]) > upper(s) (a plan from s cheaper than
    any through a); else undecided."""
    task = q.task
    lo_s, hi_s = root.bounds
    if after is None:
        after = q.truth.regret(aid, budget, exact=False)
    lo_a, hi_a = after.bounds
    c = _step_cost(q, aid)
    lo_a = max(lo_a, lo_s - c)  # one step gains at most its cost
    m = {
        "h_star": root.cost,
        "h_star_lower": _finite(lo_s),
        "h_star_upper": _finite(hi_s),
        "h_star_after_lower": _finite(lo_a),
        "h_star_after_upper": _finite(hi_a),
        "regret_lower": 0 if hi_s == float("inf") else _finite(max(0, lo_a + c - hi_s)),
        "regret_upper": _finite(hi_a + c - lo_s),
    }
    shown = f"h*(s) in [{_finite(lo_s)}, {_finite(hi_s)}], h* after {action} in [{_finite(lo_a)}, {_finite(hi_a)}]"
    if hi_a + c <= lo_s:
        plan = after.plan if after.known else after.upper_plan
        witness = [action] + [task.action_names[a] for a in plan or ()]
        m["regret"] = 0
        return Outcome(
            1,
            Grade.CORRECT,
            f"{action} starts an optimal plan, proven from bounds: {shown} (plan through it: {plan_text(witness)})",
            witness=witness,
            metrics=m,
        )
    if lo_a + c > hi_s:
        best = root.plan if root.known else root.upper_plan
        witness = [task.action_names[a] for a in best or ()]
        m["regret"] = "dead-end" if lo_a == float("inf") else None
        return Outcome(
            0,
            Grade.SUBOPTIMAL,
            f"{action} does not bring the goal closer, proven from bounds: {shown}; "
            f"a shorter plan: {plan_text(witness)}",
            witness=witness,
            metrics=m,
        )
    m["regret"] = None
    return Outcome(None, Grade.UNKNOWN, f"not decided within the budget: {shown}", metrics=m)


def _finite(x: float) -> int | None:
    return None if x == float("inf") else int(x)
