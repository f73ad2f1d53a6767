"""Policies computed by the library: the ceiling (`optimal`) and the floor (`random`)."""

from __future__ import annotations

import random

import anyio

from ...budget import Budget
from ...truth import truth_for
from .interface import Policy, PolicyError, Reply


class OptimalPolicy(Policy):
    """The first action of an optimal plan from the current state (h* is cached per state, so
    following the plan costs one search per episode)."""

    name = "optimal"

    def __init__(self, cpu_seconds: float):
        self.cpu_seconds = cpu_seconds

    async def act(self, obs) -> Reply:
        """The first action of an optimal plan (computed in a worker thread)."""
        return await anyio.to_thread.run_sync(self.choose, obs)

    def choose(self, obs) -> Reply:
        """The first action of an optimal plan from the observed state; PolicyError when none is found
        within the budget or the goal is unreachable."""
        h = truth_for(obs.task, obs.state).h_star(Budget(None, cpu=self.cpu_seconds))
        if not h.known:
            raise PolicyError(f"no optimal plan found within {self.cpu_seconds:g} CPU seconds (raise --budget)")
        if h.cost is None:
            raise PolicyError(f"the goal is unreachable from this state (proof: {h.how})")
        return Reply(obs.task.action_names[h.plan[0]])


class RandomPolicy(Policy):
    """An action drawn uniformly from the applicable ones. The draw depends only on the seed, the
    episode and the step, so a run is the same whatever --jobs is or whether it was resumed."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.seed = seed

    async def act(self, obs) -> Reply:
        """A random applicable action (computed in a worker thread)."""
        return await anyio.to_thread.run_sync(self.choose, obs)

    def choose(self, obs) -> Reply:
        """An applicable action drawn with a generator seeded by the seed, episode and step."""
        actions = truth_for(obs.task, obs.state).applicable()
        if not actions:
            raise PolicyError("no action is applicable in this state")
        return Reply(random.Random(f"{self.seed}:{obs.episode}:{obs.step}").choice(actions))
