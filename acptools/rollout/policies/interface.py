"""What every policy is: given an observation, a reply (free text holding an action)."""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import AcpError, RunStopped


class PolicyError(Exception):
    """No reply could be had for this step (an API error after retries, a timeout, a crashed
    command): the episode ends as 'policy-error' and the run goes on."""


class FatalPolicyError(AcpError):
    """The policy cannot work at all (a rejected API key, an unknown model): the run stops."""


class EndpointDown(FatalPolicyError, RunStopped):
    """Requests stopped reaching the model part way through a run (MAX_ERRORS in a row could not
    connect or timed out): the run stops, what finished is kept, --resume goes on."""


@dataclass
class Reply:
    """A policy's reply; tokens (and cost) when the policy reports them."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None


def as_reply(value) -> Reply:
    """A Reply from what a user's function returned: a string, a Reply, or a dict with 'reply'
    (or 'text') and optional 'input_tokens' / 'output_tokens'."""
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return Reply(value)
    if isinstance(value, dict) and isinstance(value.get("reply", value.get("text")), str):
        return Reply(
            value.get("reply", value.get("text")),
            value.get("input_tokens"),
            value.get("output_tokens"),
            value.get("cost"),
        )
    raise PolicyError(f"the policy returned {type(value).__name__}, not a string, a Reply or a dict with 'reply'")


class Policy:
    """Base class: `act` is called once per step, for up to --jobs episodes at once;
    `async with policy:` closes its clients or processes at the end."""

    name = "policy"
    recipe: dict | None = None  # make_policy's arguments, when it made this policy (Ray workers make it again)

    async def __aenter__(self) -> Policy:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Release clients and processes (called once, at the end of a run)."""

    def probe(self) -> None:
        """Check, before a run, that the policy can answer at all (a model API: one small request);
        raises FatalPolicyError naming what is wrong. Policies with nothing to check do nothing."""

    async def act(self, obs) -> Reply:
        """The policy's reply to one observation (subclasses implement it)."""
        raise NotImplementedError
