"""Policy episodes over MCP: the library's ``acptools.episode.Episode`` (step, regret, summary) held in
the server's episode store, one step at a time per episode."""

from __future__ import annotations

from acptools_server.models import (
    EpisodeStep,
    EpisodeSummaryResult,
    StartEpisodeResult,
    StepEpisodeResult,
)
from acptools_server.state import state_of
from acptools_server.tools.common import (
    MUTATES,
    ActionArg,
    BudgetArg,
    EpisodeId,
    StateArg,
    TaskId,
    read_state,
    tool,
)
from mcp.server.mcpserver import Context

from acptools.episode import Episode, Step


@tool("Start an episode", MUTATES)
async def start_episode(ctx: Context, task_id: TaskId, state: StateArg = None,
                        budget: BudgetArg = None) -> StartEpisodeResult:
    """Start an episode in which step_episode grades each action against h*: its episode_id, h* and the
    applicable actions. Inputs: task_id, state, budget."""
    app = state_of(ctx)
    task = app.tasks.get(task_id)
    start = read_state(task, state, app.config.limits)
    episode = await app.run(lambda b: Episode(task, start, b), app.seconds(budget))
    live, evicted = app.episodes.add(episode)
    return StartEpisodeResult(
        episode_id=live.episode_id, task_id=task.id, state=task.names(start), goal_reached=episode.solved,
        h_star=episode.h_star_start, h_star_known=episode.h_star_known, how=episode.how,
        applicable_actions=task.questions.applicable(start), bounds=episode.start_bounds, evicted_episode_ids=evicted,
    )


def _history_entry(step: Step) -> EpisodeStep:
    return EpisodeStep(step=step.step, action=step.action, verdict=step.verdict, applied=step.applied,
                       optimal=step.optimal, regret=step.regret, reason=step.reason)


@tool("Step an episode", MUTATES)
async def step_episode(ctx: Context, episode_id: EpisodeId, action: ActionArg,
                       budget: BudgetArg = None) -> StepEpisodeResult:
    """Take one action in an episode: the new state, whether it was optimal and its regret, or applied=false and
    why. Inputs: episode_id, action, budget."""
    app = state_of(ctx)
    live = app.episodes.get(episode_id)
    async with live.lock:
        episode = live.episode

        def work(b):
            step = episode.step(action, budget=b)
            if step.applied:
                return step, step.h_star_before, step.h_star_after, step.known
            h, known = episode.h_star(b)  # the state stays: h* before and after is the current one
            return step, h, h, known

        step, before, after, known = await app.run(work, app.seconds(budget))
        task = episode.task
        return StepEpisodeResult(
            episode_id=episode_id, step=step.step, action=step.action, verdict=step.verdict, applied=step.applied,
            reason=step.reason, state=task.names(episode.state), positive_effects=step.positive_effects,
            negative_effects=step.negative_effects, optimal=step.optimal, regret=step.regret,
            h_star_before=before, h_star_after=after, h_star_known=known, bounds=step.bounds(),
            goal_reached=episode.solved,
            applicable_actions=task.questions.applicable(episode.state),
        )


@tool("Summarize an episode")
async def episode_summary(ctx: Context, episode_id: EpisodeId) -> EpisodeSummaryResult:
    """Summarize an episode: steps, invalid actions, optimal-step rate (unknown steps apart), plan length
    against h*, solved. Input: episode_id."""
    live = state_of(ctx).episodes.get(episode_id)
    async with live.lock:
        episode = live.episode
        s = episode.summary()
        task = episode.task
        return EpisodeSummaryResult(
            episode_id=episode_id, task_id=task.id, steps=s.steps, applied_steps=s.applied_steps,
            invalid_actions=s.invalid_steps, invalid=s.invalid, optimal_steps=s.optimal_steps,
            unknown_optimality_steps=s.unknown_steps, optimal_step_rate=s.optimal_step_rate,
            mean_regret=s.mean_regret, plan=s.plan, plan_length=s.plan_length, h_star_start=s.h_star_start,
            excess_length=s.excess_length, length_ratio=s.length_ratio, solved=s.solved,
            start_state=task.names(episode.start), state=task.names(episode.state),
            history=[_history_entry(step) for step in episode.history],
        )


TOOLS = (start_episode, step_episode, episode_summary)
