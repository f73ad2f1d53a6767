"""Playing episodes: the model acts one step at a time from a record's initial state, every step graded
against h* (acptools.episode); the score says whether it solved the task and how well."""

from __future__ import annotations

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser
from inspect_ai.scorer import Score, Target, accuracy, mean, scorer
from inspect_ai.solver import Generate, TaskState, solver

from ..dataset import domain_name
from ..episode import APPLIED, Episode
from ..truth import task_for
from .offloop import off_loop

INSTRUCTIONS = (
    "We now act in this task one step at a time, starting in the state described here and aiming "
    "for its goal. Reply with exactly one action per turn, written as (name arg1 arg2 ...). After each "
    "action you will be told whether it was applied and what the state is then."
)


def policy_sample(record: dict, pddl: bool = False) -> Sample:
    """A record's task as an episode to play from its initial state: its description (and PDDL), the
    rules of the game and the starting state as atoms."""
    task = task_for(record["PDDL_domain"], record["PDDL_problem"])
    parts = [record.get("context", "")]
    if pddl:
        parts = [
            f"# PDDL DOMAIN\n\n```\n{record['PDDL_domain']}\n```\n\n# PDDL PROBLEM\n\n```\n"
            f"{record['PDDL_problem']}\n```"
        ] + parts
    parts += [INSTRUCTIONS, f"The state is: {_state_text(task, task.init)}. First action?"]
    return Sample(
        input="\n\n".join(p for p in parts if p),
        id=f"policy-{record['id']}",
        metadata={"record": record, "domain": domain_name(record)},
    )


def _state_text(task, state: int) -> str:
    return ", ".join(task.names(state))


def _feedback(step, episode) -> str:
    if step.verdict == APPLIED:
        if episode.solved:
            return f"{step.action} was applied; the goal now holds."
        return f"{step.action} was applied. The state is now: {_state_text(episode.task, episode.state)}. Next action?"
    return (
        f"Your reply was not applied ({step.verdict}: {step.reason}). The state is unchanged: "
        f"{_state_text(episode.task, episode.state)}. Next action?"
    )


@solver
def play_episode(max_steps: int | None = None, max_invalid: int = 5, budget: float = 60.0):
    """Ask for one action at a time until the goal holds, `max_steps` actions were tried (default
    2 h* + 10) or `max_invalid` replies in a row were not applied. The episode's summary and steps go
    to the state's metadata ('episode')."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        record = state.metadata["record"]
        task = await off_loop(lambda b: task_for(record["PDDL_domain"], record["PDDL_problem"]), None)
        episode = await off_loop(lambda b: Episode(task, None, b), budget)
        limit = max_steps or 2 * (episode.h_star_start or 10) + 10
        invalid = 0
        while len(episode.history) < limit and not episode.solved and invalid < max_invalid:
            state = await generate(state)
            text = state.output.completion
            step = await off_loop(lambda b: episode.step(text, b), budget)
            invalid = 0 if step.verdict == APPLIED else invalid + 1
            if not episode.solved:
                state.messages.append(ChatMessageUser(content=_feedback(step, episode)))
        state.metadata["episode"] = {
            "summary": episode.summary().to_dict(),
            "steps": [s.to_dict() for s in episode.history],
        }
        return state

    return solve


@scorer(
    metrics={
        "solved": [accuracy()],
        "optimal_plan": [accuracy()],
        "optimal_step_rate": [mean()],
        "invalid_steps": [mean()],
    }
)
def episode_scorer():
    """solved (1/0), optimal_plan (solved with h*(start) actions; unscored when h* is unknown),
    optimal_step_rate (over steps whose optimality is known), invalid_steps; the summary and every
    step in the metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        ep = (state.metadata or {}).get("episode")
        if not ep:
            return Score.unscored(reason="scoring_failed", explanation="no episode was played")
        s = ep["summary"]
        optimal = float(s["solved"] and s["plan_length"] == s["h_star_start"]) if s["h_star_known"] else float("nan")
        rate = s["optimal_step_rate"] if s["optimal_step_rate"] is not None else float("nan")
        value = {
            "solved": float(s["solved"]),
            "optimal_plan": optimal,
            "optimal_step_rate": rate,
            "invalid_steps": float(sum(s["invalid"].values())),
        }
        explanation = (
            f"{'solved' if s['solved'] else 'not solved'} in {s['plan_length']} actions "
            f"(h* = {s['h_star_start']}); {s['applied_steps']} applied, {sum(s['invalid'].values())} not "
            f"applied, {s['optimal_steps']} optimal, {s['unknown_steps']} unknown"
        )
        return Score(value=value, answer=" ".join(s["plan"]), explanation=explanation, metadata=ep)

    return score
