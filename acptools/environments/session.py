"""One policy episode at a time, as an environment plays it: a reset picks a start (one of the
environment's starts, or what the reset asks for: see reset_args), each step applies and grades one
action text (acptools.episode) and is rewarded and ended as acptools.environments.step_rewards says; tool
calls, served by whoever serves the tools, are counted against their own limit. Each reset and step
returns a `Report`: the fields a trainer logs. No server and no threads here: the Gymnasium and the
OpenEnv environments both play through a session.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, fields

from ..describe import describe
from ..episode import Episode, Step
from ..errors import AcpError
from ..task import Task
from ..truth import task_for, truth_for
from ..util.lru import LRUCache
from .reset_args import start_for
from .step_rewards import DEAD_END, GOAL, TOOL_LIMIT, Rewards, ending, entered_dead_end
from .task_sources import Start

GOALS = 64  # goal texts kept, by task


@dataclass(frozen=True)
class Settings:
    """How episodes are played: rewards, the attempts and tool calls allowed, whether observations
    list the applicable actions, and the CPU seconds each h* search may take."""

    rewards: Rewards = Rewards()
    max_steps: int = 50
    max_tool_calls: int = 20
    show_actions: bool = True
    budget: float = 10.0

    def __post_init__(self):
        if self.max_steps < 1:
            raise AcpError(f"max_steps must be at least 1, got {self.max_steps}", "max_steps")
        if self.max_tool_calls < 0:
            raise AcpError(f"max_tool_calls must be at least 0, got {self.max_tool_calls}", "max_tool_calls")
        if not self.budget > 0:
            raise AcpError(f"budget must be positive, got {self.budget}", "budget")


@dataclass
class Report:
    """What a reset or a step shows. h_star_before / h_star_after: h* of the state before and after
    the step (a step not applied leaves the state: both are h* of it; a reset has only `after`, None
    meaning the goal is unreachable or, with h_star_known False, undecided within the budget).
    `proof`: how h* of the state now is known and, for an applied step, its effects (and the proven
    bounds when the values are undecided). `reason`: why a step was not applied."""

    start: str
    task_id: str
    state: list[str]
    goal: str
    applicable_actions: list[str] | None
    text: str
    h_star_before: int | None = None
    h_star_after: int | None = None
    h_star_known: bool = True
    proof: dict = field(default_factory=dict)
    verdict: str | None = None
    action: str | None = None
    reason: str = ""
    regret: int | None = None
    optimal: bool | None = None
    reward: float | None = None
    done: bool = False
    done_reason: str | None = None
    dead_end: bool = False
    solved: bool = False
    steps: int = 0
    tool_calls: int = 0
    max_steps: int = 0
    summary: dict | None = None

    def to_dict(self) -> dict:
        """The report as a plain dict (its lists and dicts shared, not copied)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def load_quietly(domain: str, problem: str, budget: float) -> Task:
    """The task of two PDDL texts from acptools' task cache (no limits: for local use)."""
    return task_for(domain, problem)


class PolicySession:
    """Plays one episode at a time over `starts` (the environment's own). `load(domain, problem,
    budget)` gives the task of two PDDL texts: a server passes one that enforces its limits."""

    def __init__(
        self,
        settings: Settings | None = None,
        starts: list[Start] | None = None,
        load: Callable[[str, str, float], Task] = load_quietly,
    ):
        self.settings = settings or Settings()
        self.starts = list(starts or [])
        self.load = load
        self.rng = random.Random()
        self.episode: Episode | None = None
        self.start: Start | None = None
        self.done_reason: str | None = None
        self.tool_calls = 0
        self._last = ""
        self._goals: LRUCache = LRUCache(GOALS, remember_evicted=0, kind="goal")

    def reset(self, seed: int | None = None, **args) -> Report:
        """Start an episode where `args` say (reset_args.ARGS; none: one of the starts, `index` or
        drawn). `seed` reseeds the draws, so the same seed picks the same start."""
        if seed is not None:
            self.rng.seed(seed)
        if not self.starts and not any(k != "index" and v is not None for k, v in args.items()):
            raise AcpError(
                "this environment has no starts of its own",
                "reset",
                "pass domain and problem (PDDL text), example, record, data or family",
            )
        return self.begin(start_for(args, self.starts, self.rng, self.settings.budget, seed))

    def begin(self, start: Start) -> Report:
        """Start an episode at `start`."""
        budget = self.settings.budget
        task = self.load(start.domain, start.problem, budget)
        episode = Episode(task, None if start.state is None else task.questions.state(start.state), budget)
        self.episode, self.start, self.tool_calls, self._last = episode, start, 0, ""
        self.done_reason = (
            GOAL if episode.solved else (DEAD_END if episode.h_star_known and episode.h_star_start is None else None)
        )
        proof = {"h_star_how": episode.how, **episode.start_bounds}
        return self._report(
            h_star_after=episode.h_star_start,
            h_star_known=episode.h_star_known,
            proof=proof,
            dead_end=self.done_reason == DEAD_END,
        )

    def act(self, text) -> Report:
        """Apply and grade one action text; the report holds its verdict, grade, reward and whether
        the episode ended."""
        episode = self._live("step")
        budget = self.settings.budget
        step = episode.step(text if isinstance(text, str) else repr(text), budget)
        dead_end = entered_dead_end(episode, step)
        self.done_reason = ending(episode, step, self.settings.max_steps)
        self._last = f"{step.action} ({step.verdict}{': ' + step.reason if step.reason else ''})"
        if step.applied:
            before, after, known = step.h_star_before, step.h_star_after, step.known
        else:
            before, known = episode.h_star(budget)  # the state stays: h* before and after is its h*
            after = before
        return self._report(
            h_star_before=before,
            h_star_after=after,
            h_star_known=known,
            proof=self._proof(step),
            verdict=step.verdict,
            action=step.action,
            reason=step.reason,
            regret=step.regret,
            optimal=step.optimal,
            dead_end=dead_end,
            reward=self.settings.rewards.of(step, dead_end, episode.solved),
        )

    def now(self) -> Report | None:
        """The live episode as it stands, for a step that changed nothing (None before any reset)."""
        if self.episode is None:
            return None
        h, known = self.episode.h_star(self.settings.budget)
        return self._report(h_star_before=h, h_star_after=h, h_star_known=known, reward=0.0)

    def tool_call(self) -> Report | None:
        """Count a tool call of the live episode (none live: not counted). Beyond max_tool_calls the
        call must not run: the episode ends and the report returned says so; None: go ahead."""
        if self.episode is None or self.done_reason is not None:
            return None
        if self.tool_calls >= self.settings.max_tool_calls:
            self.done_reason = TOOL_LIMIT
            self._last = f"a tool call beyond the limit of {self.settings.max_tool_calls}"
            return self.now()
        self.tool_calls += 1
        return None

    def _live(self, what: str) -> Episode:
        if self.episode is None:
            raise AcpError(f"{what} before reset", what, "call reset first")
        if self.done_reason is not None:
            raise AcpError(f"the episode is over ({self.done_reason})", what, "call reset to start another")
        return self.episode

    def _proof(self, step: Step) -> dict:
        """How h* of the state now is known; an applied step's effects and (undecided) bounds."""
        truth = truth_for(self.episode.task, self.episode.state)
        proof = {"h_star_how": truth.h_star(self.settings.budget).how if truth.h_tried else "unknown"}
        if step.applied:
            proof.update(
                positive_effects=step.positive_effects, negative_effects=step.negative_effects, **step.bounds()
            )
        return proof

    def _report(self, **values) -> Report:
        episode, settings = self.episode, self.settings
        task, state = episode.task, episode.state
        names = task.names(state)
        actions = task.questions.applicable(state) if settings.show_actions else None
        goal = self._goals.get_or_make(task.key, lambda: describe(task).goal_formula)
        done = self.done_reason is not None
        return Report(
            start=self.start.label,
            task_id=task.id,
            state=names,
            goal=goal,
            applicable_actions=actions,
            text=observation_text(names, goal, actions, len(episode.history), settings.max_steps, self._last),
            done=done,
            done_reason=self.done_reason,
            solved=episode.solved,
            steps=len(episode.history),
            tool_calls=self.tool_calls,
            max_steps=settings.max_steps,
            summary=episode.summary().to_dict() if done else None,
            **values,
        )


def observation_text(
    state: list[str], goal: str, actions: list[str] | None, steps: int, max_steps: int, last: str = ""
) -> str:
    """The observation as text: the state, the goal, the applicable actions (None: not shown) and the
    attempts so far (with the last one's verdict)."""
    lines = [f"State: {' '.join(state)}", f"Goal: {goal}"]
    if actions is not None:
        lines.append(f"Applicable actions: {' '.join(actions)}")
    lines.append(f"Steps taken: {steps} of {max_steps}" + (f"; last: {last}" if last else ""))
    return "\n".join(lines)
