"""A Gymnasium environment: a policy acts in a PDDL task one text action at a time, every step graded
against h* (acptools.episode). Importing this module registers it as `acptools/Planning-v0`.

    import gymnasium, acptools.environments.gymnasium_env
    env = gymnasium.make("acptools/Planning-v0", source=None, reward="progress", max_steps=50)  # None: the bundled examples
    obs, info = env.reset(seed=0)           # obs: the state, the goal (and the applicable actions)
    obs, r, terminated, truncated, info = env.step("(action obj1 obj2)")
    info["verdict"], info["regret"], info["h_star"]

Rewards (`reward=`: "progress", "regret" or "cost", with invalid_penalty, dead_end_penalty and
goal_bonus) are acptools.environments.step_rewards's: an optimal episode returns h*(start) under
"progress", 0 under "regret" and -h*(start) under "cost". Reaching the goal or entering a dead end
terminates; max_steps attempts (applied or not) truncate. A step whose regret the budget could not
decide gets 0 and info["known"] = False: an unknown is never scored as right or wrong. The episode is
played by acptools.environments.session, as the OpenEnv environment plays it.
"""

from __future__ import annotations

import string

import gymnasium
from gymnasium import spaces

from ..describe import describe
from ..errors import AcpError
from ..truth import task_for
from .session import PolicySession, Report, Settings
from .step_rewards import DEAD_END, GOAL, REWARDS, STEP_LIMIT, Rewards  # noqa: F401 - REWARDS: the reward kinds
from .task_sources import Start, starts

ENV_ID = "acptools/Planning-v0"
HEADER = 512  # room for the fixed text around the atoms in an observation


class PlanningEnv(gymnasium.Env):
    """Text observation (state, goal, optionally the applicable actions), text action. `source`: see
    acptools.environments.task_sources.starts; reset picks a start with the seeded generator (or
    options={"index": k})."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        source=None,
        reward: str = "progress",
        max_steps: int = 50,
        show_actions: bool = True,
        invalid_penalty: float = 1.0,
        dead_end_penalty: float = 1.0,
        goal_bonus: float = 0.0,
        budget: float = 10.0,
        render_mode: str | None = None,
    ):
        if render_mode not in (None, "ansi"):
            raise AcpError(f"unknown render_mode {render_mode!r}", "render_mode", "use 'ansi' or None")
        settings = Settings(
            Rewards(reward, invalid_penalty, dead_end_penalty, goal_bonus),
            max_steps,
            show_actions=show_actions,
            budget=budget,
        )
        self.starts: list[Start] = starts(source)
        self.session = PolicySession(settings, self.starts)
        self.max_steps, self.budget, self.render_mode = max_steps, budget, render_mode
        self.observation_space, self.action_space = _spaces(self.starts)
        self.index = 0
        self._report: Report | None = None

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
        report = self._report = self.session.begin(self.starts[self.index])
        info = {
            "start": report.start,
            "index": self.index,
            "h_star": report.h_star_after,
            "known": report.h_star_known,
            "how": report.proof["h_star_how"],
            "solved": report.solved,
        }
        return report.text, info

    def step(self, action):
        """Apply the action text; returns observation, reward, terminated (goal reached or dead end),
        truncated (max_steps) and an info dict with the step's verdict and h*."""
        if self.session.episode is None:
            raise AcpError("step() before reset()", "PlanningEnv", "call env.reset() first")
        if self.session.done_reason is not None:
            raise AcpError(f"the episode is over ({self.session.done_reason})", "PlanningEnv.step", "call env.reset()")
        report = self._report = self.session.act(action)
        info = {
            "verdict": report.verdict,
            "reason": report.reason,
            "action": report.action,
            "regret": report.regret,
            "optimal": report.optimal,
            "h_star": report.h_star_after,
            "h_star_before": report.h_star_before if report.verdict == "applied" else None,
            "known": report.h_star_known,
            "dead_end": report.dead_end,
            "solved": report.solved,
            "step": report.steps,
        }
        terminated = report.done_reason in (GOAL, DEAD_END)
        return report.text, float(report.reward), terminated, report.done_reason == STEP_LIMIT, info

    def render(self):
        """The text observation in render_mode "ansi" (None otherwise or before reset)."""
        return self._report.text if self.render_mode == "ansi" and self._report is not None else None


def _spaces(found: list[Start]) -> tuple[spaces.Text, spaces.Text]:
    """Text spaces long enough for every start's observations and actions, over their characters."""
    chars, obs_len, act_len = set(string.printable), HEADER, 64
    for s in found:
        task = task_for(s.domain, s.problem)
        chars |= set(s.domain) | set(s.problem)
        goal = len(describe(task).goal_formula)
        actions = task.possible_actions()
        obs_len = max(
            obs_len, HEADER + sum(len(n) + 1 for n in _all_atoms(task)) + goal + sum(len(a) + 1 for a in actions) + 100
        )
        act_len = max([act_len] + [2 * len(a) for a in actions])
    charset = frozenset(chars)
    return spaces.Text(max_length=obs_len, charset=charset), spaces.Text(max_length=act_len, charset=charset)


def _all_atoms(task) -> list[str]:
    """Every fluent atom's name (bounds the observation's length)."""
    return task.names((1 << len(task.atoms)) - 1)


gymnasium.register(id=ENV_ID, entry_point=PlanningEnv)
