"""A multi-turn verifiers environment (`acptools-policy`): the model acts in a PDDL task one ground
action per turn; each step is applied and graded against h* (acptools.episode) and the next state is
its next user turn. The episode ends when the goal holds, on a dead end, or after `max_steps`
attempts (applied or not).

    vf-eval acptools-policy --env.taskset.source EXAMPLE -n 1 --model M --client.base-url URL

Rewards (verifiers sums them with their weights; `--env.taskset.task.rewards.NAME.weight W` changes one):
  * solved (weight 1): 1 when the goal holds at the end, else 0;
  * regret (weight -0.5): the summed regret of the applied steps over max(h*(start), 1); a step whose
    regret the budget could not decide adds nothing (an unknown is never scored as wrong);
  * invalid (weight -0.5): the attempts not applied (inapplicable / unparsed / hallucinated) over max_steps.
An optimal policy's return is 1. The rewards replay the trace's replies through a fresh Episode, so
they depend on the transcript alone.
"""

from __future__ import annotations

import asyncio

from pydantic import Field

from ..dataset import load_records
from ..describe import describe
from ..episode import Episode
from ..errors import AcpError
from ..truth import task_for
from .step_rewards import entered_dead_end
from .task_sources import starts
from .verifiers_chat import ChatHarness, ChatHarnessConfig, LocalEnvConfig, vf

INTRO = (
    "You act in a planning task. Each turn, reply with exactly one ground action in PDDL syntax, "
    "e.g. (action obj1 obj2); it is applied if its preconditions hold. Reach the goal in as few actions "
    "as you can."
)


class PolicyData(vf.TaskData):
    """One start: the PDDL texts (the problem's init is the start state) and where they came from."""

    domain: str = ""
    problem: str = ""
    label: str = ""


class PolicyTaskConfig(vf.TaskConfig):
    """max_steps: attempts before the episode is cut; budget: CPU seconds per h* search; show_actions:
    list the applicable actions in each observation; pddl: the PDDL in the first turn."""

    max_steps: int = Field(30, ge=1)
    budget: float = Field(10.0, gt=0)
    show_actions: bool = True
    pddl: bool = True


def observation(task, state, show_actions: bool) -> str:
    """The state, the goal and (optionally) the applicable actions, as text."""
    lines = [f"State: {' '.join(task.names(state))}", f"Goal: {describe(task).goal_formula}"]
    if show_actions:
        lines.append(f"Applicable actions: {' '.join(task.questions.applicable(state))}")
    return "\n".join(lines)


def first_turn(domain: str, problem: str, config: PolicyTaskConfig) -> str:
    """The opening user turn: the PDDL (with config.pddl) and the start's observation."""
    task = task_for(domain, problem)
    text = observation(task, task.questions.state(None), config.show_actions)
    return f"PDDL domain:\n{domain}\nPDDL problem:\n{problem}\n\n{text}" if config.pddl else text


def step_report(step, episode: Episode, show_actions: bool) -> str:
    """What the environment says after a step: the verdict, then the new observation."""
    head = f"{step.action}: {step.verdict}" + (f" ({step.reason})" if step.reason else "")
    return f"{head}\n{observation(episode.task, episode.state, show_actions)}"


def replay(data: PolicyData, replies: list[str], config: PolicyTaskConfig) -> Episode:
    """The episode the replies make: each reply one step, until the goal holds, a dead end or max_steps."""
    episode = Episode(task_for(data.domain, data.problem), None, config.budget)
    for text in replies[: config.max_steps]:
        if finished(episode, episode.step(text, config.budget)):
            break
    return episode


def finished(episode: Episode, step) -> bool:
    """Whether the episode ends after `step`: the goal holds, or a known dead end was entered."""
    return episode.solved or entered_dead_end(episode, step)


class PolicyTask(vf.Task[PolicyData, vf.State, PolicyTaskConfig]):
    """Rewards from the replayed episode (see the module docstring)."""

    async def _episode(self, trace: vf.Trace) -> Episode:
        replies = [m.content or "" for m in trace.assistant_messages]
        return await asyncio.to_thread(replay, self.data, replies, self.config)

    @vf.reward(weight=1.0)
    async def solved(self, trace: vf.Trace) -> float:
        return float((await self._episode(trace)).solved)

    @vf.reward(weight=-0.5)
    async def regret(self, trace: vf.Trace) -> float:
        episode = await self._episode(trace)
        total = sum(s.regret for s in episode.history if s.regret is not None)
        return total / max(episode.h_star_start or 0, 1)

    @vf.reward(weight=-0.5)
    async def invalid(self, trace: vf.Trace) -> float:
        return (await self._episode(trace)).summary().invalid_steps / self.config.max_steps

    @vf.metric
    async def steps(self, trace: vf.Trace) -> float:
        return float(len((await self._episode(trace)).history))


class PolicyConfig(vf.TasksetConfig):
    """The starts: `source` (a bundled example's name or a folder of PDDL; empty: every bundled
    example) or `data` (a record source: each record's problem init is a start); num_tasks: the first N."""

    source: str = ""
    data: str = ""
    num_tasks: int = Field(0, ge=0)
    task: PolicyTaskConfig = PolicyTaskConfig()


class PolicyTaskset(vf.Taskset[PolicyTask, PolicyConfig]):
    """One task per start."""

    def load(self):
        c = self.config
        if c.source and c.data:
            raise AcpError("pass either source or data, not both", "--env.taskset")
        found = starts(load_records(c.data) if c.data else (c.source or None))
        for s in found[: c.num_tasks] if c.num_tasks else found:
            yield PolicyTask(
                PolicyData(
                    name=s.label,
                    domain=s.domain,
                    problem=s.problem,
                    label=s.label,
                    system_prompt=INTRO,
                    prompt=first_turn(s.domain, s.problem, c.task),
                ),
                c.task,
            )


class PolicyHarness(ChatHarness):
    """The in-process chat loop (acptools-policy's default harness)."""


class PolicyEnvConfig(LocalEnvConfig):
    """The one seat: the policy under evaluation or training (run on this machine)."""


class PolicyEnv(vf.Env[PolicyEnvConfig]):
    """The turn loop: the model acts, the step is applied and graded, the next state is its next turn."""

    async def run(self, task: PolicyTask, agents) -> None:
        c = task.config
        episode = await asyncio.to_thread(Episode, task_for(task.data.domain, task.data.problem), None, c.budget)
        async with agents.agent.interaction(task) as chat:
            segment = await chat.turn()
            while not segment.terminated and len(episode.history) < c.max_steps:
                step = await asyncio.to_thread(episode.step, segment.last_reply, c.budget)
                if finished(episode, step) or len(episode.history) >= c.max_steps:
                    break
                segment = await chat.turn(step_report(step, episode, c.show_actions))


__all__ = [
    "PolicyTaskset",
    "PolicyHarness",
    "PolicyEnv",
    "PolicyTask",
    "PolicyData",
    "PolicyConfig",
    "PolicyTaskConfig",
    "PolicyEnvConfig",
    "ChatHarnessConfig",
]
