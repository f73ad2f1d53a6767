"""The exact grader as a verifiable reward for RL trainers: TRL's GRPOTrainer and verl.

    # TRL: a reward function gets the prompts, the completions and every other dataset column
    from acptools.rewards import acp_reward, AcpReward
    GRPOTrainer(model, reward_funcs=[acp_reward], train_dataset=ds)        # exact 0/1
    GRPOTrainer(model, reward_funcs=[AcpReward(credit="partial")], ...)     # IoU / regret-shaped credit

    # verl: custom_reward_function.path=<this file> custom_reward_function.name=compute_score
    compute_score(data_source, solution_str, ground_truth, extra_info)     # -> {"score": ..., ...}

What a completion is graded against (TRL: dataset columns; verl: `ground_truth`, else `extra_info`):
  * `record`: an ACPBench Hard record, as a dict or a JSON string (exact 64-bit ids either way);
  * the record's own fields as columns (`group`, `PDDL_domain`, `PDDL_problem`, `question`,
    `answer`, ...): the Hugging Face dataset as it comes, plus a prompt column;
  * a task and a state: `task` (app, prog, reach, areach, val, just, land, nexta), `domain` and
    `problem` (PDDL text), optional `state` (atoms; none: the problem's init), `action` (prog),
    `plan` (val, just).

Rewards: credit="exact" (the default) gives 1.0 for a correct answer and 0.0 otherwise;
credit="partial" keeps 1.0 for a correct answer and otherwise gives app and prog the IoU of the
answered set with the true one, nexta 1 / (1 + regret) for an applicable action whose regret is
known (an action that makes the goal unreachable, or is inapplicable, gets 0), every other task 0.
An answer whose verdict the budget could not prove is `unknown`: it gets the `unknown` value,
None by default for TRL (which turns it into NaN and leaves it out of the advantage) and 0.0 for
verl (whose reward is a tensor); each such completion is counted in `stats["unknown"]`, and a
warning says how many were given a number.

Cost: each distinct question is built once (parse, ground, its per-state truth cached by
acptools.truth), so the completions of one prompt share one truth computation and a repeated
completion text is graded once per call. A budget is CPU seconds per completion, so verdicts do not
depend on how busy the machine is.
"""

from __future__ import annotations

import json
import warnings
from collections import Counter

from .answers import parse_answer, vocabulary
from .budget import Budget
from .dataset import FIELDS, hub_record, task_of
from .errors import AcpError
from .kinds import GRADER, implementation
from .proofs import store
from .scoring.api import grade
from .scoring.items import Outcome
from .scoring.question import Question, question_of_record
from .task import task_key
from .truth import task_for
from .util.lru import CacheMiss, LRUCache

__all__ = [
    "AcpReward",
    "acp_reward",
    "partial_reward",
    "compute_score",
    "compute_score_batch",
    "reward_value",
    "completion_text",
    "CREDITS",
]

CREDITS = ("exact", "partial")
OUTCOMES = 65536  # decided outcomes remembered per reward function
RECORD_FIELDS = ("group", "PDDL_domain", "PDDL_problem")
STATE_FIELDS = ("task", "domain", "problem")
_QUESTIONS: LRUCache = LRUCache(2048, remember_evicted=0, kind="question")


# ---- what to grade against -----------------------------------------------------------------------


def _plain(value):
    """Columns that went through Arrow/pandas (numpy arrays, numpy scalars) as plain Python values."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _as_record(row: dict) -> dict:
    """A Hub row (answer as JSON text, None lists) shaped as the bundled records; other dicts as they are."""
    if all(k in row for k in FIELDS):
        return hub_record(row, task_of(row))
    return row


def _record_question(record, where: str) -> Question:
    if isinstance(record, str):
        key = ("json", record)
        load = lambda: json.loads(record)  # noqa: E731 - Python's json keeps 64-bit ids exact
    elif isinstance(record, dict):
        key = (
            "record",
            str(record.get("group")),
            str(record.get("id")),
            str(record.get("question")),
            task_key(str(record.get("PDDL_domain")), str(record.get("PDDL_problem"))),
        )
        load = lambda: _as_record(_plain(record))  # noqa: E731
    else:
        raise AcpError(f"a record must be a dict or a JSON string, got {type(record).__name__}", where)

    def make() -> Question:
        try:
            rec = load()
        except json.JSONDecodeError as e:
            raise AcpError(f"the record is not valid JSON ({e.msg})", where) from None
        return question_of_record(rec)

    return _QUESTIONS.get_or_make(key, make)


def _state_question(cols: dict, where: str) -> Question:
    state, plan, action, effects = (_plain(cols.get(k)) for k in ("state", "plan", "action", "effects"))
    key = (
        "state",
        str(cols["task"]),
        task_key(cols["domain"], cols["problem"]),
        json.dumps(state),
        json.dumps(plan),
        str(action),
        json.dumps(effects, sort_keys=True),
    )

    def make() -> Question:
        task = task_for(cols["domain"], cols["problem"])
        return Question.build(cols["task"], task, state, action=action, plan=plan, effects=effects)

    try:
        return _QUESTIONS.get_or_make(key, make)
    except AcpError as e:
        raise AcpError(str(e), where) from None


def question_for(cols: dict, where: str = "reward") -> Question:
    """The question a completion answers, from its row's columns (see the module docstring)."""
    if cols.get("record") is not None:
        return _record_question(cols["record"], where)
    if all(cols.get(k) is not None for k in RECORD_FIELDS):
        return _record_question({k: v for k, v in cols.items() if k not in ("prompt", "completion")}, where)
    if all(cols.get(k) is not None for k in STATE_FIELDS):
        return _state_question(cols, where)
    raise AcpError(
        "nothing to grade against: no 'record' column, no record fields (group, PDDL_domain, "
        "PDDL_problem) and no task/domain/problem columns",
        where,
        "add a 'record' column holding the ACPBench Hard record (or its JSON)",
    )


# ---- rewards -------------------------------------------------------------------------------------


def completion_text(completion) -> str:
    """The text of a completion: a string, or chat messages (the last assistant turn's content)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if isinstance(completion, list) and completion:
        turns = [m for m in completion if isinstance(m, dict) and m.get("role", "assistant") == "assistant"]
        content = (turns or completion)[-1].get("content", "") if isinstance((turns or completion)[-1], dict) else ""
        if isinstance(content, list):  # content parts: keep the text ones
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return content if isinstance(content, str) else str(content)
    return "" if completion is None else str(completion)


def reward_value(outcome: Outcome, kind: str, credit: str = "exact") -> float | None:
    """The reward of a graded answer (None when unknown); see the module docstring for `credit`."""
    if outcome.score is None:
        return None
    if outcome.score == 1 or credit == "exact":
        return float(outcome.score)
    m = outcome.metrics or {}
    if kind in ("app", "prog") and isinstance(m.get("iou"), (int, float)):
        return float(m["iou"])
    regret = m.get("regret")
    if kind == "nexta" and isinstance(regret, int) and not isinstance(regret, bool) and regret >= 0:
        return 1.0 / (1.0 + regret)
    return 0.0


class AcpReward:
    """A reward function in TRL's convention: `reward(prompts, completions, **columns) -> list`.

    credit: 'exact' (0/1) or 'partial'. unknown: the reward of a completion whose verdict could not
    be proven within `budget` CPU seconds (None: no reward, for trainers that accept it).
    semantics: 'exact' (from the PDDL) or 'reference' (the published lm-eval scorer's rules).
    cache: a proof store file (acptools.proofs.store; 'default': the user's cache directory) that keeps the
    proven truths for later runs and for the other reward workers sharing the file; None (the
    default) leaves the process's store as it is (off unless something opened one).
    `stats` counts graded, correct and unknown completions over the function's life."""

    def __init__(
        self,
        credit: str = "exact",
        unknown: float | None = None,
        budget: float = 30.0,
        semantics: str = "exact",
        name: str | None = None,
        cache: str | None = None,
    ):
        if credit not in CREDITS:
            raise AcpError(f"unknown credit {credit!r}", "AcpReward", "use 'exact' or 'partial'")
        if semantics not in ("exact", "reference"):
            raise AcpError(f"unknown semantics {semantics!r}", "AcpReward", "use 'exact' or 'reference'")
        self.credit, self.unknown, self.budget, self.semantics = credit, unknown, budget, semantics
        self.__name__ = name or f"acptools_{credit}"  # trainers log rewards under the function's name
        if cache is not None:
            store.use(cache)
        self.stats: Counter = Counter()
        self._outcomes: LRUCache = LRUCache(OUTCOMES, remember_evicted=0, kind="outcome")

    def __call__(self, prompts=None, completions=None, **columns) -> list[float | None]:
        if completions is None:
            raise AcpError("no completions", self.__name__, "call it as reward(prompts=..., completions=..., ...)")
        n = len(completions)
        cols = {k: v for k, v in columns.items() if isinstance(v, (list, tuple)) and len(v) == n}
        graded: dict[tuple, tuple[Outcome, str]] = {}  # (question, text) -> outcome: duplicates once
        out, unknown = [], 0
        for i, completion in enumerate(completions):
            q = question_for({k: v[i] for k, v in cols.items()}, f"{self.__name__}: completion {i}")
            text = completion_text(completion)
            key = (id(q), text)
            if key not in graded:
                graded[key] = (self.grade(q, text), q.kind)
            outcome, kind = graded[key]
            value = reward_value(outcome, kind, self.credit)
            self.stats["graded"] += 1
            self.stats["correct"] += outcome.score == 1
            if value is None:
                unknown += 1
                value = self.unknown
            out.append(value)
        self._count_unknown(unknown)
        return out

    def grade(self, q: Question, text: str) -> Outcome:
        """One completion's outcome (CPU-budgeted; an internal budget overrun is 'unknown'). A decided
        outcome is remembered per question and answer as read, so another wording of the same answer
        (a later epoch, another sample of the group) costs only the reading."""
        budget = Budget(None, cpu=self.budget) if self.budget is not None else None
        if self.semantics != "exact":
            return grade(q, text, self.semantics, budget)[0]
        parsed = parse_answer(q.kind, text, known=vocabulary(q.task))
        key = (q, parsed)  # q itself (identity): the key keeps it alive, so it is never confused
        try:
            return self._outcomes.get(key)
        except CacheMiss:
            pass
        if q.kind == "nexta" and self.credit == "partial":  # 1 / (1 + regret) needs the exact regret
            outcome = implementation(GRADER, q.kind)(q, parsed, budget, exact_regret=True)
        else:
            outcome = implementation(GRADER, q.kind)(q, parsed, budget)
        if outcome.score is not None:
            self._outcomes.put(key, outcome)
        return outcome

    def _count_unknown(self, unknown: int) -> None:
        self.stats["unknown"] += unknown
        if unknown and self.unknown is not None:
            self.stats["unknown_as_number"] += unknown
            warnings.warn(
                f"{self.__name__}: {unknown} completion(s) could not be graded within {self.budget} CPU "
                f"seconds (unknown) and were rewarded {self.unknown}",
                RuntimeWarning,
                stacklevel=3,
            )


acp_reward = AcpReward(name="acp_reward")
partial_reward = AcpReward(credit="partial", name="acp_partial_reward")


# ---- verl ----------------------------------------------------------------------------------------

_VERL: dict[tuple, AcpReward] = {}


def _verl_reward(credit: str, unknown: float, budget: float, semantics: str, cache: str | None) -> AcpReward:
    key = (credit, unknown, budget, semantics, cache)
    if key not in _VERL:
        _VERL[key] = AcpReward(credit, unknown, budget, semantics, name="acp_verl", cache=cache)
    return _VERL[key]


def _verl_columns(ground_truth, extra_info) -> dict:
    """The columns to grade against from verl's ground_truth (a record, its JSON, or task/state
    columns as a dict or JSON object) or, failing that, extra_info."""
    for source in (ground_truth, extra_info):
        value = _plain(source)
        if isinstance(value, str) and value.lstrip().startswith("{"):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                continue
        if isinstance(value, dict):
            if "record" in value or all(k in value for k in STATE_FIELDS):
                return value
            if all(k in value for k in RECORD_FIELDS):
                return {"record": value}
    raise AcpError(
        "ground_truth is neither an ACPBench Hard record (or its JSON) nor task/domain/problem "
        "columns, and extra_info holds none either",
        "compute_score",
        "put json.dumps(record) in reward_model.ground_truth",
    )


def compute_score(
    data_source=None,
    solution_str="",
    ground_truth=None,
    extra_info=None,
    *,
    credit: str = "exact",
    unknown: float = 0.0,
    budget: float = 30.0,
    semantics: str = "exact",
    cache: str | None = None,
    **kwargs,
) -> dict:
    """verl's reward function: {"score": reward, "correct": 1.0 or 0.0, "unknown": 1.0 or 0.0}.
    verl needs a number, so an unknown verdict scores `unknown` (0.0) and is counted (see module doc).
    Extra keyword arguments (verl's custom_reward_function.reward_kwargs) set credit, unknown, budget
    and cache (a proof store file, see AcpReward)."""
    reward = _verl_reward(credit, unknown, budget, semantics, cache)
    cols = _verl_columns(ground_truth, extra_info)
    q = question_for(cols, f"compute_score ({data_source})")
    outcome = reward.grade(q, solution_str if isinstance(solution_str, str) else completion_text(solution_str))
    value = reward_value(outcome, q.kind, credit)
    reward.stats["graded"] += 1
    reward.stats["correct"] += outcome.score == 1
    reward._count_unknown(1 if value is None else 0)
    return {
        "score": unknown if value is None else value,
        "correct": float(outcome.score == 1),
        "unknown": float(value is None),
    }


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos, **kwargs) -> list[dict]:
    """verl's batched reward manager convention: lists in, one result per item out."""
    extra_infos = extra_infos if extra_infos is not None else [None] * len(solution_strs)
    return [
        compute_score(d, s, g, e, **kwargs)
        for d, s, g, e in zip(data_sources, solution_strs, ground_truths, extra_infos)
    ]
