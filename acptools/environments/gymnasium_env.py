"""A Gymnasium environment: a policy acts in a PDDL task one text action at a time, every step graded
against h* (acptools.episode). Importing this module registers it as `acptools/Planning-v0`.

    import gymnasium, acptools.environments.gymnasium_env
    env = gymnasium.make("acptools/Planning-v0", source=None, reward="progress", max_steps=50)  # None: the bundled examples
    obs, info = env.reset(seed=0)           # obs: the state, the goal (and the applicable actions)
    obs, r, terminated, truncated, info = env.step("(action obj1 obj2)")
    info["verdict"], info["regret"], info["h_star"]

Rewards (`reward=`), for an applied step of known regret (h*(after) + 1 - h*(before)):
  * "progress" (default): h*(before) - h*(after) = 1 - regret; an optimal episode returns h*(start);
  * "regret": -regret; an optimal episode returns 0;
  * "cost": -1 for every attempt; an optimal episode returns -h*(start).
An attempt that is not applied (inapplicable / unparsed / hallucinated) gets -invalid_penalty
("cost": -1). A step into a dead end (the goal unreachable afterwards) gets -dead_end_penalty and
terminates. A step whose regret the budget could not decide gets 0 and info["known"] = False: an
unknown is never scored as right or wrong. Reaching the goal adds goal_bonus and terminates;
max_steps attempts (applied or not) truncate.
"""

from __future__ import annotations

import string

import gymnasium
from gymnasium import spaces

from ..describe import describe
from ..episode import APPLIED, Episode
from ..errors import AcpError
from ..truth import task_for
from .sources import Start, starts

ENV_ID = "acptools/Planning-v0"
REWARDS = ("progress", "regret", "cost")
HEADER = 512  # room for the fixed text around the atoms in an observation


class PlanningEnv(gymnasium.Env):
    """Text observation (state, goal, optionally the applicable actions), text action. `source`: see
    acptools.environments.sources.starts; reset picks a start with the seeded generator (or
    options={"index": k})."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, source=None, reward: str = "progress", max_steps: int = 50, show_actions: bool = True,
                 invalid_penalty: float = 1.0, dead_end_penalty: float = 1.0, goal_bonus: float = 0.0,
                 budget: float = 10.0, render_mode: str | None = None):
        if reward not in REWARDS:
            raise AcpError(f"unknown reward {reward!r}", "reward", f"rewards: {', '.join(REWARDS)}")
        if max_steps < 1:
            raise AcpError(f"max_steps must be at least 1, got {max_steps}", "max_steps")
        if render_mode not in (None, "ansi"):
            raise AcpError(f"unknown render_mode {render_mode!r}", "render_mode", "use 'ansi' or None")
        self.starts: list[Start] = starts(source)
        self.reward_kind, self.max_steps, self.show_actions = reward, max_steps, show_actions
        self.invalid_penalty, self.dead_end_penalty, self.goal_bonus = invalid_penalty, dead_end_penalty, goal_bonus
        self.budget, self.render_mode = budget, render_mode
        self._goals: dict[int, str] = {}
        chars, obs_len, act_len = set(string.printable), HEADER, 64
        for k, s in enumerate(self.starts):
            task = self._task(k)
            chars |= set(s.domain) | set(s.problem)
            names = _all_atoms(task)
            actions = task.possible_actions(budget)
            obs_len = max(obs_len, HEADER + sum(len(n) + 1 for n in names) + len(self._goals[k])
                          + sum(len(a) + 1 for a in actions) + 100)
            act_len = max([act_len] + [2 * len(a) for a in actions])
        charset = frozenset(chars)
        self.observation_space = spaces.Text(max_length=obs_len, charset=charset)
        self.action_space = spaces.Text(max_length=act_len, charset=charset)
        self.episode: Episode | None = None
        self.index = 0
        self._last = ""

    def _task(self, k: int):
        s = self.starts[k]
        task = task_for(s.domain, s.problem)
        if k not in self._goals:
            self._goals[k] = describe(task).goal_formula
        return task

    def _observation(self) -> str:
        ep = self.episode
        task = ep.task
        lines = [f"State: {' '.join(task.names(ep.state))}", f"Goal: {self._goals[self.index]}"]
        if self.show_actions:
            lines.append(f"Applicable actions: {' '.join(task.questions.applicable(ep.state))}")
        lines.append(f"Steps taken: {len(ep.history)} of {self.max_steps}" + (f"; last: {self._last}" if self._last else ""))
        return "\n".join(lines)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode from the start options['index'] (else one drawn by the seeded generator);
        returns the observation and an info dict (start, h*)."""
        super().reset(seed=seed)
        if options and "index" in options:
            k = options["index"]
            if not isinstance(k, int) or not 0 <= k < len(self.starts):
                raise AcpError(f"no start {k!r}", "options['index']", f"use 0..{len(self.starts) - 1}")
            self.index = k
        else:
            self.index = int(self.np_random.integers(len(self.starts)))
        self.episode = Episode(self._task(self.index), None, self.budget)
        self._last = ""
        ep = self.episode
        info = {"start": self.starts[self.index].label, "index": self.index, "h_star": ep.h_star_start,
                "known": ep.h_star_known, "how": ep.how, "solved": ep.solved}
        return self._observation(), info

    def step(self, action):
        """Apply the action text; returns observation, reward, terminated (goal reached or dead end),
        truncated (max_steps) and an info dict with the step's verdict and h*."""
        if self.episode is None:
            raise AcpError("step() before reset()", "PlanningEnv", "call env.reset() first")
        if self.episode.solved:
            raise AcpError("the episode is over: the goal holds", "PlanningEnv.step", "call env.reset()")
        text = action if isinstance(action, str) else repr(action)
        step = self.episode.step(text, self.budget)
        dead_end = step.applied and step.known and step.h_star_after is None and not self.episode.solved
        reward = self._reward(step, dead_end)
        terminated = self.episode.solved or dead_end
        if self.episode.solved:
            reward += self.goal_bonus
        truncated = not terminated and len(self.episode.history) >= self.max_steps
        self._last = f"{step.action} ({step.verdict}{': ' + step.reason if step.reason else ''})"
        h, known = (step.h_star_after, step.known) if step.applied else self.episode.h_star(self.budget)
        info = {"verdict": step.verdict, "reason": step.reason, "action": step.action, "regret": step.regret,
                "optimal": step.optimal, "h_star": h, "h_star_before": step.h_star_before, "known": known,
                "dead_end": dead_end, "solved": self.episode.solved, "step": step.step}
        return self._observation(), float(reward), terminated, truncated, info

    def _reward(self, step, dead_end: bool) -> float:
        if dead_end:
            return -self.dead_end_penalty
        if self.reward_kind == "cost":
            return -1.0
        if step.verdict != APPLIED:
            return -self.invalid_penalty
        if step.regret is None:
            return 0.0  # unknown (the budget ran out): neither right nor wrong
        return float(1 - step.regret) if self.reward_kind == "progress" else float(-step.regret)

    def render(self):
        """The text observation in render_mode "ansi" (None otherwise or before reset)."""
        return self._observation() if self.render_mode == "ansi" and self.episode is not None else None


def _all_atoms(task) -> list[str]:
    """Every fluent atom's name (bounds the observation's length)."""
    return task.names((1 << len(task.atoms)) - 1)


gymnasium.register(id=ENV_ID, entry_point=PlanningEnv)
