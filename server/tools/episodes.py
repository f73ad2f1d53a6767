"""Policy episodes over MCP: the library's ``acptools.episode.Episode`` (step, regret, summary) held in
the server's episode store, one step at a time per episode.

An episode is over once the goal holds or is proven out of reach (a dead end): its results say so
(``done``, ``done_reason``) and it takes no more steps. Results list the first ``limit`` applicable
actions (``list_applicable`` pages the rest). A start or a step whose result would be larger than the
server sends does not happen: the episode is not kept, or the step is taken back, so an episode never
moves without its caller being told.
"""

from __future__ import annotations

from acptools_server.models import EpisodeStep, EpisodeSummaryResult, StartEpisodeResult, StepEpisodeResult
from acptools_server.state import ServerState, state_of
from acptools_server.tools.common import (
    DEFAULT_LIST_LIMIT,
    MUTATES,
    ActionArg,
    BudgetArg,
    EpisodeId,
    LimitArg,
    StateArg,
    TaskId,
    read_state,
    sent_bytes,
    tool,
)
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

from acptools import Task
from acptools.episode import DEAD_END, Episode, Step

TOO_BIG = "pass a smaller limit (list_applicable pages the actions)"
UNSENT_ID = "ep-" + "0" * 16  # as long as an episode id: a start's result is sized before the episode is kept


def _applicable(task: Task, state: int, limit: int | None) -> tuple[list[str], int]:
    """The first `limit` (default 200) actions applicable in the state, and how many there are."""
    actions = task.questions.applicable(state)
    return actions[: limit or DEFAULT_LIST_LIMIT], len(actions)


def _unsendable(app: ServerState, result: BaseModel, undone: str) -> ToolError | None:
    """The error to raise instead of a result too large to send (None when it fits); `undone` says
    what did not happen because of it."""
    size, max_bytes = sent_bytes(result), app.config.limits.max_response_bytes
    if size <= max_bytes:
        return None
    return ToolError(
        f"the result would be {size} bytes, more than the server sends ({max_bytes} bytes, "
        f"--max-response-bytes), so {undone}; {TOO_BIG}"
    )


@tool("Start an episode", MUTATES, too_big=TOO_BIG)
async def start_episode(
    ctx: Context, task_id: TaskId, state: StateArg = None, budget: BudgetArg = None, limit: LimitArg = None
) -> StartEpisodeResult:
    """Start an episode (step_episode grades each action against h*): its episode_id, h*, applicable actions
    (the first limit), done. Inputs: task_id, state, budget, limit."""
    app = state_of(ctx)
    task = app.tasks.get(task_id)
    start = read_state(task, state, app.config.limits)

    def work(b):
        episode = Episode(task, start, b)
        return episode, episode.over

    episode, over = await app.run(work, app.seconds(budget))
    actions, total = _applicable(task, start, limit)
    result = StartEpisodeResult(
        episode_id=UNSENT_ID,
        task_id=task.id,
        state=task.names(start),
        goal_reached=episode.solved,
        h_star=episode.h_star_start,
        h_star_known=episode.h_star_known,
        how=episode.how,
        applicable_actions=actions,
        applicable_total=total,
        done=over is not None,
        done_reason=over,
        bounds=episode.start_bounds,
        metric=task.questions.metric,
    )
    error = _unsendable(app, result, "no episode was started")
    if error is not None:
        raise error
    live, evicted = app.episodes.add(episode)
    return result.model_copy(update={"episode_id": live.episode_id, "evicted_episode_ids": evicted})


def _history_entry(step: Step) -> EpisodeStep:
    return EpisodeStep(
        step=step.step,
        action=step.action,
        verdict=step.verdict,
        applied=step.applied,
        optimal=step.optimal,
        regret=step.regret,
        reason=step.reason,
    )


@tool("Step an episode", MUTATES, too_big=TOO_BIG)
async def step_episode(
    ctx: Context, episode_id: EpisodeId, action: ActionArg, budget: BudgetArg = None, limit: LimitArg = None
) -> StepEpisodeResult:
    """Take one action in an episode: the new state, optimal or not and its regret, or applied=false and why;
    done at the goal or a dead end. Inputs: episode_id, action, budget, limit."""
    app = state_of(ctx)
    live = app.episodes.get(episode_id)
    async with live.lock:
        episode = live.episode
        if episode.over == DEAD_END:
            raise ToolError(
                f"the episode is over: the goal is out of reach after its {len(episode.plan)} actions "
                "(a dead end); start a new episode"
            )

        def work(b):
            step = episode.step(action, budget=b)
            if step.applied:
                return step, step.h_star_before, step.h_star_after, step.known, episode.over
            h, known = episode.h_star(b)  # the state stays: h* before and after is the current one
            return step, h, h, known, episode.over

        step, before, after, known, over = await app.run(work, app.seconds(budget))
        task = episode.task
        actions, total = _applicable(task, episode.state, limit)
        result = StepEpisodeResult(
            episode_id=episode_id,
            step=step.step,
            action=step.action,
            verdict=step.verdict,
            applied=step.applied,
            reason=step.reason,
            state=task.names(episode.state),
            positive_effects=step.positive_effects,
            negative_effects=step.negative_effects,
            optimal=step.optimal,
            regret=step.regret,
            h_star_before=before,
            h_star_after=after,
            h_star_known=known,
            bounds=step.bounds(),
            goal_reached=episode.solved,
            applicable_actions=actions,
            applicable_total=total,
            done=over is not None,
            done_reason=over,
        )
        error = _unsendable(app, result, "the step was taken back")
        if error is not None:
            episode.undo()
            raise error
        return result


@tool("Summarize an episode")
async def episode_summary(ctx: Context, episode_id: EpisodeId) -> EpisodeSummaryResult:
    """Summarize an episode: steps, invalid actions, optimal-step rate (unknown steps apart), plan length
    or cost against h*, solved or dead end. Input: episode_id."""
    live = state_of(ctx).episodes.get(episode_id)
    async with live.lock:
        episode = live.episode
        s = episode.summary()
        task = episode.task
        return EpisodeSummaryResult(
            episode_id=episode_id,
            task_id=task.id,
            steps=s.steps,
            applied_steps=s.applied_steps,
            invalid_actions=s.invalid_steps,
            invalid=s.invalid,
            optimal_steps=s.optimal_steps,
            unknown_optimality_steps=s.unknown_steps,
            optimal_step_rate=s.optimal_step_rate,
            mean_regret=None if s.mean_regret is None else float(s.mean_regret),
            plan=s.plan,
            plan_length=s.plan_length,
            h_star_start=s.h_star_start,
            excess_length=s.excess_length,
            plan_cost=s.plan_cost,
            metric=s.metric,
            length_ratio=s.length_ratio,
            solved=s.solved,
            dead_end=episode.over == DEAD_END,
            start_state=task.names(episode.start),
            state=task.names(episode.state),
            history=[_history_entry(step) for step in episode.history],
        )


TOOLS = (start_episode, step_episode, episode_summary)
