"""A policy acting step by step on a task, every step graded against h*.

An `Episode` starts in a state and takes one action text at a time. Each step is read leniently,
classified (applied, inapplicable, unparsed, hallucinated: a name the task does not have) and, when
applied, graded: regret = cost(a) + h*(after) - h*(before), optimal when the regret is 0 (h* and
cost(a) in the task's metric: action costs under "cost", else steps, each costing 1). h* comes from
the per-state truth (`acptools.truth`), so it is computed once per state and a step along a known
optimal plan costs no search. A step whose optimality could not be decided within the budget stays
unknown: summaries count it apart and never fold it into 0 or 1.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from fractions import Fraction

from .answers import parse_answer, vocabulary
from .budget import Budget
from .engine import weighted
from .engine.optimal import HStar
from .errors import AcpError, UnknownNameError
from .task import Task
from .truth import allowance, truth_for

APPLIED, INAPPLICABLE, UNPARSED, HALLUCINATED = "applied", "inapplicable", "unparsed", "hallucinated"
VERDICTS = (APPLIED, INAPPLICABLE, UNPARSED, HALLUCINATED)
GOAL, DEAD_END = "goal", "dead_end"  # why an episode is over: the goal holds, or it is proven out of reach


@dataclass
class Step:
    """One step of an episode. `optimal`/`regret` are None when not applied or not decided; with
    known False, `optimal` is what the proven bounds decide (None: they do not)."""

    step: int  # 1-based, counting every attempt
    action: str  # the canonical action, or the text as given when unreadable
    verdict: str  # applied / inapplicable / unparsed / hallucinated
    reason: str = ""  # why it was not applied ('' when it was)
    optimal: bool | None = None
    regret: int | None = None  # cost(a) + h*(after) - h*(before); None when unknown or unsolvable
    h_star_before: int | None = None
    h_star_after: int | None = None
    known: bool = True  # False: the budget ran out before optimality was decided
    positive_effects: list[str] = field(default_factory=list)
    negative_effects: list[str] = field(default_factory=list)
    # proven bounds (equal to the values when those are known; None upper: no plan known)
    h_star_before_lower: int | None = None
    h_star_before_upper: int | None = None
    h_star_after_lower: int | None = None
    h_star_after_upper: int | None = None
    regret_lower: int | None = None
    regret_upper: int | None = None
    cost: int | Fraction = 1  # an applied action's cost in the task's metric (1 under "length")

    @property
    def applied(self) -> bool:
        """Whether the step's action was applied."""
        return self.verdict == APPLIED

    def to_dict(self) -> dict:
        """The step as a plain dict."""
        return asdict(self)

    def bounds(self) -> dict:
        """The proven intervals of an applied step whose values are unknown (else {})."""
        if self.known or not self.applied:
            return {}
        names = (
            "h_star_before_lower",
            "h_star_before_upper",
            "h_star_after_lower",
            "h_star_after_upper",
            "regret_lower",
            "regret_upper",
        )
        return {n: getattr(self, n) for n in names}


@dataclass
class Summary:
    """What an episode did. Rates exclude steps of unknown optimality (counted in unknown_steps)."""

    steps: int
    applied_steps: int
    invalid: dict[str, int]  # attempts not applied, by verdict
    optimal_steps: int
    unknown_steps: int
    optimal_step_rate: float | None  # optimal / applied steps whose optimality is known
    mean_regret: float | None  # over applied steps with a known regret
    plan: list[str]
    plan_length: int
    h_star_start: int | None
    h_star_known: bool
    solved: bool
    excess_length: int | None  # plan_length - h*(start), once solved
    length_ratio: float | None  # plan_length / h*(start), once solved (h*(start) > 0)
    metric: str = "length"  # what h*, regrets, excess_length and length_ratio measure: "cost" or "length"
    plan_cost: int | None = None  # metric "cost": the plan's cost (excess_length, length_ratio compare it)

    @property
    def invalid_steps(self) -> int:
        """Steps whose action was not applied, of any verdict."""
        return sum(self.invalid.values())

    def to_dict(self) -> dict:
        """The summary as a plain dict."""
        return asdict(self)


class Episode:
    """Start in `state` (None: the problem's init); `step(text)` applies and grades one action."""

    def __init__(self, task: Task, state=None, budget: float | Budget | None = None):
        self.task = task
        self.start = task.questions.state(state)
        self.state = self.start
        self.history: list[Step] = []
        self.plan: list[int] = []
        self._exhausted_at: float | None = None  # the allowance with which an h* search ran out
        h = self._h_star(self.start, budget)
        self.h_star_start = h.cost if h.known else None
        self.start_plan_length = len(h.plan) if h.known and h.plan is not None else None  # an optimal plan's
        self.h_star_known = h.known
        self.how = h.how
        lo, hi = h.bounds
        # h* of the start unknown: what is proven of it (None upper: no plan found)
        self.start_bounds = {} if h.known else {"h_star_lower": _finite(lo), "h_star_upper": _finite(hi)}

    def _h_star(self, state: int, budget):
        """h* of a state, or unknown without a search when a search of this episode already ran
        out with at least this budget (a stuck episode must not pay the same wait on every step)."""
        truth = truth_for(self.task, state)
        if self._exhausted_at is not None and allowance(budget) <= self._exhausted_at and not truth.h_tried:
            return HStar(None, None, "unknown", known=False)
        h = truth.h_star(budget)
        if not h.known:
            self._exhausted_at = max(self._exhausted_at or 0.0, allowance(budget))
        return h

    @property
    def solved(self) -> bool:
        """Whether the goal holds in the current state."""
        return self.task.is_goal(self.state)

    @property
    def dead_end(self) -> bool:
        """Whether the goal is proven out of reach from the current state: no action applies there, or
        its h* is known to be infinite (graded so by the last applied step, or at the start). A state
        whose h* the budget left unknown is not called one."""
        if self.solved:
            return False
        last = next((s for s in reversed(self.history) if s.applied), None)
        if last is not None and last.known and last.h_star_after is None:
            return True
        if last is None and self.h_star_known and self.h_star_start is None:
            return True
        return not truth_for(self.task, self.state).applicable()

    @property
    def over(self) -> str | None:
        """Why no further step can reach the goal (GOAL: it holds, DEAD_END: it is proven out of
        reach), or None."""
        return GOAL if self.solved else DEAD_END if self.dead_end else None

    def h_star(self, budget: float | Budget | None = None) -> tuple[int | None, bool]:
        """(h* of the current state, known); computed once per state."""
        h = truth_for(self.task, self.state).h_star(budget)
        return (h.cost if h.known else None), h.known

    def read(self, text: str) -> tuple[int | None, str, str]:
        """(action id or None, verdict when unreadable, reason): a name the task lacks is
        'hallucinated', text with no action in it 'unparsed'."""
        parsed = parse_answer("nexta", text, known=vocabulary(self.task)) if isinstance(text, str) else None
        if parsed is None or not parsed.ok or not parsed.items:
            return None, UNPARSED, parsed.error if parsed is not None else "the reply is not text"
        try:
            return self.task.parse_action(parsed.items[0].text, "action"), "", ""
        except UnknownNameError as e:
            return None, HALLUCINATED, str(e)

    def step(self, text: str, budget: float | Budget | None = None) -> Step:
        """Read, apply and grade one action (text: a ground action, or a reply that holds one)."""
        if self.solved:
            raise AcpError(
                f"the episode is finished: the goal holds after {len(self.plan)} actions", "step", "start a new episode"
            )
        number = len(self.history) + 1
        action, verdict, reason = self.read(text)
        if action is None:
            return self._record(Step(number, str(text)[:200], verdict, reason))
        name = self.task.action_names[action]
        truth = truth_for(self.task, self.state)
        if self.task.op_for(action, self.state) is None:
            why = ", ".join(self.task.unsatisfied(action, self.state).describe())
            return self._record(
                Step(number, name, INAPPLICABLE, f"not applicable here; unsatisfied preconditions: {why}")
            )
        before = self._h_star(self.state, budget)
        nxt = truth.successor(action)
        cost = weighted.step_cost(self.task, action, self.state)
        after = None
        if before.known and before.cost:
            stuck = self._exhausted_at is not None and allowance(budget) <= self._exhausted_at
            if stuck and not truth_for(self.task, nxt).h_known:
                after = HStar(None, None, "unknown", known=False)
            else:
                after = truth.regret(action, budget)
                if not after.known:
                    self._exhausted_at = max(self._exhausted_at or 0.0, allowance(budget))
        effects = truth.effects(action)
        step = Step(
            number,
            name,
            APPLIED,
            positive_effects=sorted(effects[0]),
            negative_effects=sorted(effects[1]),
            h_star_before=before.cost if before.known else None,
            cost=weighted.exact(cost),
        )
        if not before.known and truth_for(self.task, nxt).h_known:
            after = truth_for(self.task, nxt).h_star(budget)
        _bounds(step, before, after, cost)
        if not before.known or (after is not None and not after.known):
            step.known = False  # the values are open; `optimal` may still be decided by the bounds
        elif before.cost is None:
            step.optimal = False  # the goal was already out of reach
        elif after.cost is None:
            step.optimal = False  # a dead end from a solvable state
            step.h_star_after = None
        else:
            step.h_star_after, step.regret = after.cost, weighted.exact(after.cost + cost - before.cost)
            step.optimal = step.regret == 0
        self.state = nxt
        self.plan.append(action)
        return self._record(step)

    def _record(self, step: Step) -> Step:
        self.history.append(step)
        return step

    def undo(self) -> Step:
        """Take back the last attempt: the state, the plan and the history as they were before it (for
        a caller that cannot deliver the step's result). Returns the step taken back."""
        if not self.history:
            raise AcpError("the episode has no step to take back", "undo")
        step = self.history.pop()
        if step.applied:
            self.plan.pop()
            state = self.start
            for action in self.plan:
                state = self.task.apply_op(self.task.op_for(action, state), state)
            self.state = state
        return step

    def summary(self) -> Summary:
        """The episode so far: step counts by verdict, optimal steps and regret, the plan and how it
        compares with h* of the start."""
        applied = [s for s in self.history if s.applied]
        decided = [s for s in applied if s.known]
        regrets = [s.regret for s in decided if s.regret is not None]
        invalid = {v: 0 for v in VERDICTS if v != APPLIED}
        for s in self.history:
            if not s.applied:
                invalid[s.verdict] += 1
        n, h0 = len(self.plan), self.h_star_start
        metric = weighted.metric_of(self.task)
        cost = weighted.plan_cost(self.task, self.plan, self.start, to_goal=False) if metric == "cost" else None
        measure = n if cost is None else cost
        solved = self.solved
        return Summary(
            steps=len(self.history),
            applied_steps=len(applied),
            invalid=invalid,
            optimal_steps=sum(1 for s in decided if s.optimal),
            unknown_steps=len(applied) - len(decided),
            optimal_step_rate=sum(1 for s in decided if s.optimal) / len(decided) if decided else None,
            mean_regret=sum(regrets) / len(regrets) if regrets else None,
            plan=self.task.action_list(self.plan),
            plan_length=n,
            h_star_start=h0,
            h_star_known=self.h_star_known,
            solved=solved,
            excess_length=weighted.exact(measure - h0) if solved and h0 is not None else None,
            length_ratio=float(measure / h0) if solved and h0 else None,
            metric=metric,
            plan_cost=weighted.exact(cost),
        )


def _bounds(step: Step, before: HStar, after: HStar | None, cost=1) -> None:
    """The step's proven intervals on h* before and after and on its regret; when h* before or
    after is unknown, optimality decided from them where they suffice (optimal when
    cost + upper(after) <= lower(before), not when cost + lower(after) > upper(before))."""
    inf = float("inf")
    lo_b, hi_b = before.bounds
    lo_a, hi_a = after.bounds if after is not None else (0, inf)
    lo_a = max(lo_a, lo_b - cost)  # one step gains at most its cost
    step.h_star_before_lower, step.h_star_before_upper = _finite(lo_b), _finite(hi_b)
    step.h_star_after_lower, step.h_star_after_upper = _finite(lo_a), _finite(hi_a)
    if lo_b == inf or lo_a == inf:
        return
    step.regret_lower = 0 if hi_b == inf else max(0, _finite(lo_a + cost - hi_b))
    step.regret_upper = _finite(hi_a + cost - lo_b)
    if before.known and after is not None and after.known:
        return  # graded exactly by the caller
    if step.regret_upper == 0:
        step.optimal = True
    elif step.regret_lower > 0:
        step.optimal = False


def _finite(x: float) -> int | None:
    """A bound as an int (a Fraction for a cost that is not whole), None for infinity (no plan
    known, or no finite bound)."""
    return weighted.exact(x)
