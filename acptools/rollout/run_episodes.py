"""Running episodes: up to --jobs in flight at once (anyio tasks), every step graded by the core.

An episode starts in its task's state and asks the policy for one reply per step; each reply is
graded by `acptools.episode.Episode` (applied / inapplicable / unparsed / hallucinated; optimal and
regret against h*). It ends at the goal, at a dead end ('dead-end': no action applies, or the goal is
proven out of reach; graded like any other ending), after `max_steps` steps (default 2*h*+10, or
MAX_STEPS_UNKNOWN when h* of the start is not known, see `defaults`), after `max_invalid` invalid replies in a row,
or when the policy fails ('policy-error') or the task does not load ('error').

Grading runs in a worker thread, so while one step is graded the other episodes' model calls go
on; by default one grading at a time: the searches are mostly Python under the GIL, so two at once
each run about half as fast (benchmarks/rollout_bench.py), while one at a time keeps every step's
grading as fast as alone. Its h* searches have a CPU budget (`budget` CPU seconds per step): CPU
time does not stretch on a busy machine, so the verdicts do not depend on the load or on --jobs.
A step whose grading ran out of budget is `unknown`, never 0 or 1.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import anyio

from ..backends import check_backend, run_sharing_proofs
from ..budget import Budget
from ..dataset import domain_name
from ..episode import APPLIED, INAPPLICABLE, Episode
from ..errors import AcpError
from ..task import task_key
from ..truth import truth_for
from .defaults import BUDGET, MAX_INVALID_REPLIES, default_max_steps
from .inflight import in_flight
from .observations import Observation, Prompts
from .policies import FatalPolicyError, Policy, PolicyError, make_policy
from .start_states import RolloutTask, load_tasks, sample_tasks
from .traces import DEAD_END, EPISODE, ERROR, GOAL, MAX_INVALID, MAX_STEPS, POLICY_ERROR, STEP, TraceFile


@dataclass
class RolloutConfig:
    """How a rollout run is set up (everything but the policy and the tasks)."""

    show_applicable: bool = False  # list the applicable actions in each observation
    max_steps: int | None = None  # per episode; None: default_max_steps(h*)
    max_invalid: int = MAX_INVALID_REPLIES  # invalid replies in a row that end an episode; 0: no limit
    budget: float = BUDGET  # CPU seconds for grading one step (h* searches)
    jobs: int = 1  # episodes in flight
    seed: int = 0  # the random policy's seed
    prompts: Prompts = field(default_factory=Prompts.load)
    grading_threads: int = 1  # gradings at once (see the module docstring)
    backend: str = "local"  # where episodes run: here (anyio tasks) or "ray" (acptools.backends)
    address: str | None = None  # backend "ray": a running cluster (default: a local Ray instance)
    limit: int | None = None  # a sample: this many tasks per task kind (acptools.dataset.sample), seeded
    per_domain: bool = False  # the sample: `limit` per task kind and domain

    def settings(self, policy) -> dict:
        """What makes two runs comparable (a resumed run must match). `policy`: a Policy (its model
        API's endpoint and sampling options count too) or its name."""
        recipe = getattr(policy, "recipe", None) or {}
        sample = {"limit": self.limit, "per_domain": self.per_domain} if self.limit is not None else {}
        return {
            "policy": getattr(policy, "name", policy),
            "base_url": recipe.get("base_url"),
            "max_tokens": recipe.get("max_tokens"),
            "temperature": recipe.get("temperature"),
            "show_applicable": self.show_applicable,
            "max_steps": self.max_steps,
            "max_invalid": self.max_invalid,
            "budget": self.budget,
            "seed": self.seed,
            "prompts": self.prompts.digest,
            **sample,
        }

    def select(self, tasks: list[RolloutTask]) -> list[RolloutTask]:
        """The tasks a run rolls out: all, or with `limit` the seeded sample (the same for the same tasks)."""
        return tasks if self.limit is None else sample_tasks(tasks, self.limit, self.seed, self.per_domain)


@dataclass
class RolloutResult:
    """The trace rows of a rollout run."""

    rows: list[dict]  # every trace row (run, step and episode rows), resumed ones included

    @property
    def episodes(self) -> list[dict]:
        """The episode rows."""
        return [r for r in self.rows if r.get("kind") == EPISODE]

    @property
    def steps(self) -> list[dict]:
        """The step rows."""
        return [r for r in self.rows if r.get("kind") == STEP]


class _Run:
    """One rollout: shared by its episodes (the policy, the settings, the traces, the thread limit)."""

    def __init__(self, policy: Policy, config: RolloutConfig, traces: TraceFile):
        self.policy, self.config, self.traces = policy, config, traces
        self.grading = anyio.CapacityLimiter(config.grading_threads)
        self.cancel = threading.Event()  # set when the run is cancelled: gradings in flight stop at once

    async def graded(self, fn, *args):
        """fn(*args) in a grading thread: (its result, the seconds it ran, not counting the wait)."""

        def timed():
            t0 = time.perf_counter()
            return fn(*args), time.perf_counter() - t0

        return await anyio.to_thread.run_sync(timed, limiter=self.grading, abandon_on_cancel=True)

    async def episode(self, task: RolloutTask) -> dict:
        t0 = time.perf_counter()
        end = {
            **task.info,
            "kind": EPISODE,
            "episode": task.id,
            "domain": domain_name({"PDDL_domain": task.domain_text}),
            "source": task.source,
        }
        ep, stats = None, {"input_tokens": None, "output_tokens": None, "policy_seconds": 0.0, "start_seconds": 0.0}
        try:
            ep, stats["start_seconds"] = await self.graded(self._start, task)
            ended, error = await self.steps(task, ep, end["domain"], stats)
        except FatalPolicyError:
            raise
        except PolicyError as e:
            ended, error = POLICY_ERROR, str(e)
        except Exception as e:  # one broken task or state must not end a long run: report it
            ended, error = ERROR, f"{type(e).__name__}: {e}"
        end.update(ended=ended, error=error, seconds=round(time.perf_counter() - t0, 6), **stats)
        if ep is not None:
            end.update(ep.summary().to_dict(), h_star_how=ep.how, max_steps=self.max_steps(ep))
        return self.traces.write(end)

    def _start(self, task: RolloutTask) -> Episode:
        return Episode(task.load(), task.state, budget=Budget(None, cpu=self.config.budget, cancel=self.cancel))

    def max_steps(self, ep: Episode) -> int:
        """The step limit: given, or from the optimal plan's length (h* counts steps only under "length")."""
        if self.config.max_steps:
            return self.config.max_steps
        return default_max_steps(ep.start_plan_length if ep.task.questions.metric == "cost" else ep.h_star_start)

    async def steps(self, task: RolloutTask, ep: Episode, domain: str, stats: dict) -> tuple[str, str | None]:
        history: list[dict] = []
        invalid_in_a_row, limit, cfg = 0, self.max_steps(ep), self.config
        while True:
            if ep.solved:
                return GOAL, None
            if ep.dead_end:
                return DEAD_END, None
            if len(ep.history) >= limit:
                return MAX_STEPS, None
            if cfg.max_invalid and invalid_in_a_row >= cfg.max_invalid:
                return MAX_INVALID, None
            t0 = time.perf_counter()
            obs = self.observe(task, ep, limit, history)
            t1 = time.perf_counter()
            reply = await self.policy.act(obs)
            t2 = time.perf_counter()
            step, grading = await self.graded(ep.step, reply.text, Budget(None, cpu=cfg.budget, cancel=self.cancel))
            action = step.action if step.verdict in (APPLIED, INAPPLICABLE) else None
            history.append(
                {
                    "step": step.step,
                    "reply": reply.text,
                    "action": action,
                    "verdict": step.verdict,
                    "reason": step.reason,
                }
            )
            invalid_in_a_row = 0 if step.applied else invalid_in_a_row + 1
            _add_usage(stats, reply, t2 - t1)
            self.traces.write(
                {
                    "kind": STEP,
                    "episode": task.id,
                    "domain": domain,
                    "step": step.step,
                    "reply": reply.text,
                    "action": action,
                    "verdict": step.verdict,
                    "optimal": step.optimal,
                    "regret": step.regret,
                    "known": step.known,
                    "reason": step.reason,
                    "h_star_before": step.h_star_before,
                    "h_star_after": step.h_star_after,
                    **step.bounds(),
                    "input_tokens": reply.input_tokens,
                    "output_tokens": reply.output_tokens,
                    "seconds": round(t2 - t1, 6),
                    "grading_seconds": round(grading, 6),
                    "harness_seconds": round(time.perf_counter() - t2 + t1 - t0, 6),
                }
            )

    def observe(self, task: RolloutTask, ep: Episode, limit: int, history: list[dict]) -> Observation:
        applicable = truth_for(ep.task, ep.state).applicable() if self.config.show_applicable else None
        return Observation(
            task.id,
            len(ep.history) + 1,
            limit,
            ep.task,
            ep.state,
            ep.task.names(ep.state),
            applicable,
            history,
            self.config.prompts,
        )


def _add_usage(stats: dict, reply, seconds: float) -> None:
    stats["policy_seconds"] = round(stats["policy_seconds"] + seconds, 6)
    for k in ("input_tokens", "output_tokens"):
        if getattr(reply, k) is not None:
            stats[k] = (stats[k] or 0) + getattr(reply, k)


async def run_async(
    tasks: list[RolloutTask], policy: Policy, config: RolloutConfig, traces: TraceFile, progress=None
) -> RolloutResult:
    """Run every task not finished in `traces` yet, `config.jobs` at a time; closes the policy."""
    todo = [t for t in tasks if t.id not in traces.done]
    run = _Run(policy, config, traces)
    await in_flight(
        policy,
        todo,
        config.jobs,
        run.episode,
        run.cancel,
        progress,
        len(tasks) - len(todo),
        len(tasks),
        _expect(progress, todo),
    )
    return RolloutResult(traces.rows)


def run(
    tasks,
    policy,
    config: RolloutConfig | None = None,
    *,
    out=None,
    resume: bool = False,
    force: bool = False,
    progress=None,
) -> RolloutResult:
    """Roll out `policy` (a Policy or a --policy string) on `tasks` (RolloutTasks or --tasks
    strings; with `config.limit`, a sample of them); traces go to `out` (JSONL) when given, and
    `resume` skips episodes finished there (an existing `out` is overwritten only with `force`). A
    model API is probed first (`Policy.probe`)."""
    config = config or RolloutConfig()
    tasks = config.select(load_tasks(*tasks))
    if isinstance(policy, str):
        policy = make_policy(policy, seed=config.seed, budget=config.budget)
    check_backend(config.backend)
    policy.probe()  # a dead endpoint or a rejected key is one line now, before any output is written
    traces = TraceFile(out, config.settings(policy), resume, force)
    try:
        if config.backend == "local":
            return anyio.run(run_async, tasks, policy, config, traces, progress)
        return run_distributed(tasks, policy, config, traces, progress)
    finally:
        traces.close()


def run_distributed(
    tasks: list[RolloutTask], policy: Policy, config: RolloutConfig, traces: TraceFile, progress=None
) -> RolloutResult:
    """Every episode not finished in `traces` as a unit of work on `config.backend` (acptools.backends),
    largest task first, `config.jobs` at a time, the proof store shared. Each worker makes the policy
    again from its recipe; an episode's rows are written when it comes back."""
    if policy.recipe is None:
        raise AcpError(
            "another backend makes the policy again in each worker, from its --policy string",
            f"--backend {config.backend}",
            "make the policy with make_policy, or pass its --policy string",
        )
    todo = sorted((t for t in tasks if t.id not in traces.done), key=lambda t: -len(t.problem_text))
    total, done = len(tasks), len(tasks) - len(todo)
    cost = _expect(progress, todo)
    if progress:
        progress(done, total)
    units = [(task, policy.recipe, config) for task in todo]
    keys = [[task_key(t.domain_text, t.problem_text)] for t in todo]
    for rows, fatal in run_sharing_proofs(_episode_unit, units, keys, config.jobs, config.backend, config.address):
        if fatal is not None:
            raise FatalPolicyError(*fatal)
        for row in rows:
            traces.write(row)
        done += 1
        if progress:
            end = next((r for r in rows if r.get("kind") == EPISODE), {})
            progress(done, total, **cost(end))
    return RolloutResult(traces.rows)


def _expect(progress, todo: list[RolloutTask]):
    """Tell an acptools.util.progress.Progress the episodes to come (kind: the domain; prior weight: the
    problem's size) and return end row -> the keyword arguments reporting that episode's cost."""
    if not hasattr(progress, "expect"):
        return lambda end: {}
    units = {t.id: (domain_name({"PDDL_domain": t.domain_text}), 1.0 + len(t.problem_text) / 1000) for t in todo}
    progress.expect(units.values())

    def cost(end: dict) -> dict:
        kind, weight = units.get(end.get("episode"), ("?", 1.0))
        return {"cost": (kind, weight, end.get("seconds") or 0.0)}

    return cost


def _episode_unit(args) -> tuple[list[dict], tuple | None]:
    """One episode in a worker: its trace rows, or why the policy cannot work at all."""
    task, recipe, config = args
    policy, traces = make_policy(**recipe), TraceFile()

    async def one():
        async with policy:
            await _Run(policy, config, traces).episode(task)

    try:
        anyio.run(one)
    except FatalPolicyError as e:
        return [], (e.what, e.where, e.suggestion)
    return traces.rows[1:], None  # the first row holds the settings: the driver's file has its own
