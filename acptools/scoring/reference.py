"""Reference semantics: the published ACPBench Hard scorer's grading (lm-eval's `acp_utils.py`), reimplemented.

The answer is read by :func:`acptools.answers.lm_eval_extract.extract` (stop strings, the group's clean step,
the reference grammar); each function here then scores what was read against the stored answer like
the task's evaluator does (docs/reference-scorer.md). Where the reference runs a planner (reach/areach
answers that are not stored, nexta answers stored as 'maybe') we ask our exact engines the same
question with the planner's time limit (3 s, 5 s); running out of time counts as 0, as a planner
time-out does there. Nothing from lm-eval is imported.
"""

from __future__ import annotations

from ..answers.lm_eval_extract import cleanup_answer, fix_action_name
from ..budget import Budget, Effort
from ..errors import UnknownNameError
from ..verdict import Grade
from .items import Outcome, set_metrics
from .question import Question

REACH_SECONDS = 3.0  # is_unsolvable: K* timeout=3
NEXTA_SECONDS = 5.0  # is_on_optimal_plan: K* timeout=5


# ---- the evaluators' helpers ---------------------------------------------------------------------


def _name_and_args(text: str) -> tuple[str, tuple[str, ...]]:
    """'(at t1 l2)' -> ('at', ('t1', 'l2'))."""
    inner = text[1:-1] if text.startswith("(") and text.endswith(")") else text
    w = inner.split()
    return (w[0], tuple(w[1:])) if w else ("", ())


def _fix_name(s: str) -> str:
    """STRIPS.fix_name: an action text without its parentheses, commas read as spaces."""
    if s[0] == "(" and s[-1] == ")":
        return s[1:-1]
    s = s.replace(", ", " ").replace(",", " ")
    if "(" in s:
        s = s.replace("(", " ").replace(")", "")
    return s


def _grounded_op(q: Question, action_text: str):
    """STRIPS.get_action_or_none(action[1:-1]): the operator tarski's relaxed-reachability grounding
    (LPGroundingStrategy) produces for this lower-case action text, or None (unknown name, wrong
    types, statically impossible, or not relaxed-reachable)."""
    name = action_text[1:-1]
    if not name or ("(" in name and name[-1] != ")"):
        return None
    aid = q.task.action_index.get("(" + _fix_name(name).lower() + ")")
    if aid is None:
        return None
    reached = q.truth.relaxed_reachable()
    for op in q.task.ops_of_action[aid]:
        if op.pre & reached == op.pre:
            return op
    return None


def _budget(budget, cap: float):
    """The reference planner's time limit, within the caller's budget (seconds or a core Budget)."""
    if isinstance(budget, Budget):
        return budget.child(cap, None)
    if isinstance(budget, Effort):
        return Effort(min(budget.seconds, cap))
    return cap if budget is None else min(budget, cap)


def _planner_unsolvable_atom(q: Question, atom: str, budget) -> tuple[bool, str]:
    """is_unsolvable_new_goal(d, p, atom): K* on the problem with `atom` as its only goal, emulated."""
    task = q.task
    if not (atom.startswith("(") and atom.endswith(")")):
        return False, f"the planner rejects the goal {atom!r} (not an atom): 0"
    name, args = _name_and_args(atom)
    pred = task.domain.predicates.get(name)
    if pred is None:
        if name in task.domain.supertypes or name == "object":  # the translator's type predicates
            if len(args) != 1:
                return False, f"the planner reports a wrong arity for the type predicate {name}: 0"
            obj = args[0]
            if obj in task.types.objects and name in task.types.ancestors(task.types.objects[obj]):
                return False, f"{atom} holds by typing (a static fact): solvable: 0"
            return True, f"{atom} is false by typing (a static fact): unsolvable: 1"
        return False, f"the planner reports 'Undeclared predicate {name}': 0"
    if len(pred.params) != len(args):
        return False, f"the planner reports a wrong arity for {name}: 0"
    unknown = [o for o in args if o not in task.types.objects]
    if unknown:
        return True, (
            f"{atom} names objects that do not exist ({', '.join(unknown)}); the planner's translator "
            "accepts them and finds the goal unsolvable: 1"
        )
    if name not in task.fluents:
        if (name, args) in task.static_true:
            return False, f"{atom} is a static fact that holds: solvable: 0"
        return True, f"{atom} is a static fact that is false: unsolvable: 1"
    try:
        aid = task.parse_atom(atom)
    except UnknownNameError:
        return True, f"{atom} is ill-typed, so no action can add it: unsolvable: 1"
    v = q.truth.atom_reach(aid, _budget(budget, REACH_SECONDS))
    if v.answer is False:
        return True, f"{atom} is unreachable (proven by {v.how}): 1"
    if v.answer is None:
        return False, f"undecided within the planner's {REACH_SECONDS:g} s: 0"
    return False, f"{atom} is reachable (a plan exists): 0"


# ---- per task --------------------------------------------------------------------------------------


def _nothing_read(what: str) -> Outcome:
    """The score of an answer the reference grammar could not read."""
    return Outcome(0, Grade.UNPARSED, f"the reference grammar read no {what} from the response: 0")


def app(q: Question, parsed, budget) -> Outcome:
    """app (every action applicable in the state), as the published lm-eval scorer grades it."""
    if parsed is None:
        return _nothing_read("action list")
    real = [a.lower() for a in q.stored]
    ans = cleanup_answer([fix_action_name(a) for a in parsed])
    m = set_metrics(set(ans), set(real))
    if set(real) == set(ans):
        return Outcome(1, Grade.CORRECT, "the set of actions equals the stored list: 1", metrics=m)
    return Outcome(
        0,
        Grade.INCORRECT,
        f"the set differs from the stored list (missing {m['missing']}, extra {m['extra']}): 0",
        metrics=m,
    )


def prog(q: Question, parsed, budget) -> Outcome:
    """prog (the positive and negative effects of an action), as the published lm-eval scorer grades it."""
    if parsed is None or len(parsed) > 2 or len(parsed) < 1:
        return _nothing_read("pair of lists")
    real_pos = [a.lower() for a in q.stored["pos"]]
    real_neg = [a.lower() for a in q.stored["neg"]]
    p = cleanup_answer(parsed[0])
    n = cleanup_answer(parsed[1]) if len(parsed) == 2 else []
    m = {}
    m.update(set_metrics(set(p), set(real_pos), prefix="pos_"))
    m.update(set_metrics(set(n), set(real_neg), prefix="neg_"))
    m.update(
        set_metrics(
            {("+", a) for a in p} | {("-", a) for a in n}, {("+", a) for a in real_pos} | {("-", a) for a in real_neg}
        )
    )
    if set(real_pos) == set(p) and set(real_neg) == set(n):
        return Outcome(1, Grade.CORRECT, "both lists equal the stored effects: 1", metrics=m)
    return Outcome(0, Grade.INCORRECT, "the lists differ from the stored positive/negative effects: 0", metrics=m)


def _empty_list_or_unparsed(real: list, parsed, expected: str) -> Outcome | None:
    """reach/areach: with an empty stored list only 'None' scores; an unparsed answer scores 0."""
    if not real:
        if parsed is not None and parsed.strip().lower() == "none":
            return Outcome(1, Grade.CORRECT, "the stored list is empty and the answer is None: 1")
        if parsed is None:
            return _nothing_read(expected)
        return Outcome(0, Grade.INCORRECT, "the stored list is empty, so only 'None' scores: 0")
    if parsed is None:
        return _nothing_read(expected)
    return None


def reach(q: Question, parsed, budget) -> Outcome:
    """reach (a proposition that can never hold), as the published lm-eval scorer grades it."""
    real = [f"({x.strip().lower()})" for x in q.stored]
    early = _empty_list_or_unparsed(real, parsed, "atom or None")
    if early:
        return early
    x = parsed.strip().lower()
    if x in real:
        return Outcome(1, Grade.CORRECT, f"{x} is in the stored list: 1")
    ok, why = _planner_unsolvable_atom(q, x, budget)
    return Outcome(int(ok), Grade.CORRECT if ok else Grade.INCORRECT, f"{x} is not stored; planner: {why}")


def areach(q: Question, parsed, budget) -> Outcome:
    """areach (an action that can never become applicable), as the published lm-eval scorer grades it."""
    real = q.stored
    early = _empty_list_or_unparsed(real, parsed, "action or None")
    if early:
        return early
    action = parsed.strip().lower()
    if action in real:
        return Outcome(1, Grade.CORRECT, f"{action} is in the stored list: 1")
    op = _grounded_op(q, action)
    if op is None:
        return Outcome(
            0,
            Grade.INCORRECT,
            f"{action} is not stored and not a relaxed-reachable grounding (the "
            "reference cannot find its preconditions): 0",
        )
    if not op.pre:
        return Outcome(
            0, Grade.INCORRECT, f"{action} has no fluent precondition: the goal '(and )' is never unsolvable: 0"
        )
    v = q.truth.action_reach(op.action, _budget(budget, REACH_SECONDS))
    if v.answer is False:
        return Outcome(
            1,
            Grade.CORRECT,
            f"{action} is not stored; planner: its preconditions are unreachable (proven by {v.how}): 1",
        )
    if v.answer is None:
        return Outcome(0, Grade.INCORRECT, f"{action} is not stored; planner: undecided within {REACH_SECONDS:g} s: 0")
    return Outcome(0, Grade.INCORRECT, f"{action} is not stored; planner: its preconditions are reachable: 0")


def val(q: Question, parsed, budget) -> Outcome:
    """val (the first inapplicable action of a sequence), as the published lm-eval scorer grades it."""
    if parsed is None:
        return _nothing_read("index")
    real = str(q.stored)
    m = {"answered": parsed, "expected": q.stored}
    try:
        m["index_error"] = int(parsed) - int(q.stored)
    except (TypeError, ValueError):
        pass
    if real.lower() == parsed.strip().lower():
        return Outcome(1, Grade.CORRECT, f"the index equals the stored {real}: 1", metrics=m)
    return Outcome(0, Grade.INCORRECT, f"{parsed!r} is not the stored index {real!r}: 0", metrics=m)


def just(q: Question, parsed, budget) -> Outcome:
    """just (a plan with one or two consecutive actions removed), as the published lm-eval scorer grades it."""
    if parsed is None:
        return _nothing_read("action list")
    seq = (q.question_text or "")[19:-147].replace(") (", ")######(").split("######")
    x = [fix_action_name(a) for a in parsed]
    m = {"removed": len(seq) - len(x)}
    if not x:
        return Outcome(0, Grade.NOT_SUBSEQUENCE, "an empty answer always scores 0", metrics=m)
    if len(seq) <= len(x):
        return Outcome(0, Grade.NOT_SUBSEQUENCE, "the answer is not shorter than the question's plan: 0", metrics=m)
    i = 0
    sub = False
    for a in seq:
        if a == x[i]:
            i += 1
            if i == len(x):
                sub = True
                break
    if not sub:
        return Outcome(
            0,
            Grade.NOT_SUBSEQUENCE,
            "not a subsequence of the question's plan (compared case-sensitively): 0",
            metrics=m,
        )
    state = q.state
    task = q.task
    for k, a in enumerate(x):
        op = None
        try:
            aid = task.parse_action(a.lower())
            op = task.op_for(aid, state)
        except UnknownNameError:
            pass
        if op is None:
            return Outcome(0, Grade.NOT_PLAN, f"action {k} {a} is not applicable: 0", metrics=m)
        state = task.apply_op(op, state)
    if task.is_goal(state):
        return Outcome(1, Grade.CORRECT, "a proper subsequence that is a plan: 1", metrics=m)
    return Outcome(0, Grade.NOT_PLAN, "the goal does not hold at the end: 0", metrics=m)


def land(q: Question, parsed, budget) -> Outcome:
    """land (a non-trivial fact landmark), as the published lm-eval scorer grades it."""
    yes = [a.lower() for a in q.stored["yes"]]
    if parsed is None:
        return _nothing_read("atom or None")
    x = parsed.strip().lower()
    if x in yes:
        return Outcome(1, Grade.CORRECT, f"{x} is a stored landmark: 1")
    if x == "none":
        if not yes:
            return Outcome(1, Grade.CORRECT, "no landmark is stored and the answer is None: 1")
        return Outcome(0, Grade.INCORRECT, "landmarks are stored, so None scores 0")
    return Outcome(0, Grade.INCORRECT, f"{x} is not in the stored 'yes' list: 0")


def nexta(q: Question, parsed, budget) -> Outcome:
    """nexta (an action that brings the goal one step closer), as the published lm-eval scorer grades it."""
    if parsed is None:
        return _nothing_read("action")
    st = q.stored
    yes, no, maybe = ([a.lower() for a in st.get(k, [])] for k in ("yes", "no", "maybe"))
    action = parsed.strip().lower()
    if action in yes:
        return Outcome(1, Grade.CORRECT, f"{action} is stored as a 'yes' action: 1")
    if action in no:
        return Outcome(0, Grade.SUBOPTIMAL, f"{action} is stored as a 'no' action: 0")
    if action not in maybe:
        return Outcome(0, Grade.INCORRECT, f"{action} is in none of the stored lists: 0")
    op = _grounded_op(q, action)
    if op is None or q.task.op_for(op.action, q.state) is None:
        return Outcome(0, Grade.INCORRECT, f"{action} ('maybe') cannot be applied: 0")
    opt = st.get("opt")
    if opt is None:
        root = q.truth.h_star(_budget(budget, NEXTA_SECONDS))
        if not root.known or root.cost is None:
            return Outcome(0, Grade.INCORRECT, "no optimal plan found for the state: 0")
        opt = root.cost
    after = q.truth.h_after(op.action, _budget(budget, NEXTA_SECONDS))
    if not after.known:
        return Outcome(0, Grade.INCORRECT, f"{action} ('maybe'): planner undecided within {NEXTA_SECONDS:g} s: 0")
    if after.cost is None:
        return Outcome(0, Grade.SUBOPTIMAL, f"{action} ('maybe'): no plan after it: 0")
    ok = after.cost + 1 == int(opt)
    return Outcome(
        int(ok),
        Grade.CORRECT if ok else Grade.SUBOPTIMAL,
        f"{action} ('maybe'): h* after it is {after.cost}, stored opt {opt}: {int(ok)}",
        metrics={"h_star_after": after.cost, "opt": int(opt)},
    )
