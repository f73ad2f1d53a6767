"""What one graded step of a policy episode is worth and whether it ends the episode: the rewards and
endings every policy environment shares (the Gymnasium and OpenEnv environments; the verifiers
policy environment ends its episodes the same way).

Rewards (`Rewards.kind`), for an applied step of known regret (cost(a) + h*(after) - h*(before), where
cost(a) is the action's cost under a task's action costs and 1 otherwise):
  * "progress" (default): h*(before) - h*(after) = cost(a) - regret; an optimal episode returns h*(start);
  * "regret": -regret; an optimal episode returns 0;
  * "cost": -cost(a) for an applied step, -1 for an attempt not applied; an optimal episode returns
    -h*(start).
An attempt that is not applied (inapplicable / unparsed / hallucinated) gets -invalid_penalty
("cost": -1). A step into a dead end (the goal unreachable afterwards) gets -dead_end_penalty and
ends the episode. A step whose regret the budget could not decide gets 0: an unknown is never scored
as right or wrong. Reaching the goal adds goal_bonus and ends the episode.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..episode import APPLIED, DEAD_END, GOAL, Episode, Step
from ..errors import AcpError

REWARDS = ("progress", "regret", "cost")
# why an episode ended: the goal holds (GOAL), a dead end was entered (DEAD_END), the attempts or the tool
# calls ran out
STEP_LIMIT, TOOL_LIMIT = "step_limit", "tool_limit"


@dataclass(frozen=True)
class Rewards:
    """How steps are rewarded (see the module docstring)."""

    kind: str = "progress"
    invalid_penalty: float = 1.0
    dead_end_penalty: float = 1.0
    goal_bonus: float = 0.0

    def __post_init__(self):
        if self.kind not in REWARDS:
            raise AcpError(f"unknown reward {self.kind!r}", "reward", f"rewards: {', '.join(REWARDS)}")

    def of(self, step: Step, dead_end: bool, solved: bool) -> float:
        """The reward of one step (its verdict and grade; whether it entered a dead end or the goal)."""
        return self._base(step, dead_end) + (self.goal_bonus if solved else 0.0)

    def _base(self, step: Step, dead_end: bool) -> float:
        if dead_end:
            return -self.dead_end_penalty
        if self.kind == "cost":
            return -float(step.cost) if step.verdict == APPLIED else -1.0
        if step.verdict != APPLIED:
            return -self.invalid_penalty
        if step.regret is None:
            return 0.0  # unknown (the budget ran out): neither right nor wrong
        return float(step.cost - step.regret) if self.kind == "progress" else float(-step.regret)


def entered_dead_end(episode: Episode, step: Step) -> bool:
    """Whether `step` left the episode in a state from which the goal is proven unreachable."""
    return step.applied and step.known and step.h_star_after is None and not episode.solved


def ending(episode: Episode, step: Step, max_steps: int) -> str | None:
    """Why the episode ends after `step` (GOAL, DEAD_END, STEP_LIMIT), or None when it goes on."""
    if episode.solved:
        return GOAL
    if entered_dead_end(episode, step):
        return DEAD_END
    if len(episode.history) >= max_steps:
        return STEP_LIMIT
    return None
