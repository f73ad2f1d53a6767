"""Asking a model every question of a record set and grading each reply as it comes.

Up to `jobs` questions are in flight at once (anyio tasks: the model calls overlap); each reply is
graded by the scorer (`acptools.scoring`, exact semantics by default) in a grading thread, one at a
time by default (the searches are mostly Python under the GIL), with a CPU budget per proof, so the
grades do not depend on the load or on --jobs. An item still unknown is graded once more with
RETRY_FACTOR times the effort, as `acptools score` does. Each item is written to the output as soon
as it is graded (`acptools.util.runfile`), so an interrupted run keeps its work and --resume asks only
the rest. A question whose reply could not be had (an API error after the SDK's retries, a
timeout) is an item in error with `reply_error` set; --resume asks it again.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import anyio

from ..budget import DEFAULT_SECONDS, Effort
from ..dataset import domain_name, task_of
from ..errors import AcpError
from ..rollout.inflight import in_flight
from ..rollout.policies import FatalPolicyError, Policy, PolicyError, make_policy
from ..scoring.group import score_group
from ..util.runfile import RunFile
from ..verdict import Grade
from .chat_prompts import question_for

RETRY_FACTOR = 4.0
ASKED = ("question", "context")  # the record's fields each item keeps, so a report can show what was asked


@dataclass
class EvalConfig:
    """How an eval run asks and grades questions (flags other than the policy and the data)."""

    pddl: bool = False  # lm-eval's `_with_pddl` prompts (the PDDL in front of the question)
    semantics: str = "exact"  # how replies are graded (acptools.scoring)
    budget: float | None = None  # CPU seconds per proof (None: the scorer's default)
    jobs: int = 1  # questions in flight at once
    grading_threads: int = 1  # gradings at once
    price: tuple[float, float] | None = None  # what a million input and output tokens cost, for APIs that report none

    def cost(self, reply) -> dict:
        """An item's cost and where it comes from: the API's own figure, else `price` times the tokens
        (when the API reported them), else none."""
        if getattr(reply, "cost", None) is not None:
            return {"cost": reply.cost, "cost_from": "api"}
        if self.price is None or reply.input_tokens is None or reply.output_tokens is None:
            return {"cost": None}
        cost = (self.price[0] * reply.input_tokens + self.price[1] * reply.output_tokens) / 1e6
        return {"cost": round(cost, 9), "cost_from": "--price"}

    def settings(
        self, policy: Policy, data: list[str], limit: int | None, per_domain: bool = False, seed: int = 0
    ) -> dict:
        """What makes two runs comparable (a resumed run must match), by the flag that sets it; the
        sample's split and seed only when there is a sample (--limit)."""
        recipe = policy.recipe or {}
        sampled = limit is not None
        return {
            "--data": list(data),
            "--limit": limit,
            "--per-domain": per_domain if sampled else None,
            "--seed": seed if sampled else None,
            "--policy": policy.name,
            "--base-url": recipe.get("base_url"),
            "--max-tokens": recipe.get("max_tokens"),
            "--temperature": recipe.get("temperature"),
            "--with-pddl": self.pddl,
            "--semantics": self.semantics,
            "--budget": self.budget,
        }


def item_key(row: dict) -> tuple[str, str]:
    """What identifies an item across runs: (task, id)."""
    return row["task"], str(row["id"])


def finished(row: dict) -> bool:
    """Rows a resume keeps: every graded item (a reply that could not be had is asked again)."""
    return not row.get("reply_error")


class _Eval:
    def __init__(self, policy: Policy, config: EvalConfig, out: RunFile):
        self.policy, self.config, self.out = policy, config, out
        self.cancel = threading.Event()  # set when the run is cancelled: gradings in flight stop at once
        self.effort = Effort(DEFAULT_SECONDS if config.budget is None else config.budget, self.cancel)
        self.grading = anyio.CapacityLimiter(config.grading_threads)

    async def item(self, record: dict) -> dict:
        row = {
            "id": record.get("id"),
            "group": record.get("group"),
            "model": self.policy.name,
            **{k: record.get(k) for k in ASKED},
        }
        try:
            question = question_for(record, self.config.pddl)
        except AcpError as e:  # a record that cannot be asked (no question, an unknown group): said, not fatal
            return self.out.write(
                {
                    **row,
                    "task": record_kind(record),
                    "domain": domain_name(record),
                    "score": None,
                    "verdict": Grade.ERROR,
                    "reason": f"cannot ask this record: {e}",
                }
            )
        row["with_pddl"] = bool(question.pddl)
        t0 = time.perf_counter()
        try:
            reply = await self.policy.act(question)
        except FatalPolicyError:
            raise
        except PolicyError as e:
            return self.out.write(_unanswered(record, row, str(e), time.perf_counter() - t0))
        row.update(
            input_tokens=reply.input_tokens,
            output_tokens=reply.output_tokens,
            **self.config.cost(reply),
            reply_seconds=round(time.perf_counter() - t0, 6),
            response=reply.text,
        )
        item = await anyio.to_thread.run_sync(self.grade, record, row, limiter=self.grading, abandon_on_cancel=True)
        return self.out.write(item)

    def grade(self, record: dict, row: dict) -> dict:
        sem = self.config.semantics
        item = score_group(record, [row], sem, self.effort)[0].to_dict()
        if item["verdict"] == Grade.UNKNOWN:
            again = score_group(record, [row], sem, self.effort.scaled(RETRY_FACTOR))[0].to_dict()
            item = {**again, "retried": True} if again["verdict"] != Grade.UNKNOWN else item
        item["response"] = row["response"]
        return item


def record_kind(record: dict) -> str:
    """The record's task ('?' for a group no task has), as the items name it."""
    try:
        return task_of(record)
    except AcpError:
        return "?"


def _unanswered(record: dict, row: dict, why: str, seconds: float) -> dict:
    return {
        **row,
        "task": record_kind(record),
        "domain": domain_name(record),
        "score": None,
        "verdict": Grade.ERROR,
        "reason": f"no reply: {why}",
        "reply_error": why,
        "reply_seconds": round(seconds, 6),
    }


async def run_async(records: list[dict], policy: Policy, config: EvalConfig, out: RunFile, progress=None) -> list[dict]:
    """Ask every record not already graded in `out`, `config.jobs` at a time; returns every item
    (resumed ones included). Closes the policy."""
    have = {item_key(r) for r in out.rows}
    todo = [r for r in records if (record_kind(r), str(r.get("id"))) not in have]
    run = _Eval(policy, config, out)
    await in_flight(policy, todo, config.jobs, run.item, run.cancel, progress, len(records) - len(todo), len(records))
    return out.rows


def evaluate(
    records: list[dict],
    policy,
    config: EvalConfig | None = None,
    *,
    out=None,
    settings: dict | None = None,
    resume: bool = False,
    force: bool = False,
    progress=None,
) -> list[dict]:
    """Ask `policy` (a Policy or a --policy string) every record's question and grade the replies;
    items go to `out` (JSONL, its settings in `<out>.run.json`) as they are graded (an existing `out`
    is continued with `resume`, overwritten with `force`). A model API is probed first (`Policy.probe`).
    Returns the item dicts."""
    config = config or EvalConfig()
    if isinstance(policy, str):
        policy = make_policy(policy)
    policy.probe()  # a dead endpoint or a rejected key is one line now, before any output is written
    file = RunFile(
        out,
        "eval",
        settings if settings is not None else config.settings(policy, [], None),
        resume=resume,
        force=force,
        keep=finished,
    )
    try:
        return anyio.run(run_async, records, policy, config, file, progress)
    finally:
        file.close()
