"""Policies: what chooses each step's action. `make_policy(spec)` reads the --policy forms:

optimal                   the first action of an optimal plan (the ceiling)
random                    uniform over the applicable actions, seeded (the floor)
openai:MODEL              an OpenAI-compatible chat-completions endpoint (--base-url), SDK extra [openai]
anthropic:MODEL           the Anthropic Messages API, SDK extra [anthropic]
cmd:COMMAND               a subprocess: one JSON observation per line in, one reply per line out
python:MODULE:FUNCTION    a Python function (MODULE may be a path to a .py file)
"""

from __future__ import annotations

from ...errors import AcpError
from ..defaults import BUDGET, MAX_ERRORS, TIMEOUT
from ..defaults import POLICY_FORMS as FORMS
from .command import CommandPolicy
from .interface import EndpointDown, FatalPolicyError, Policy, PolicyError, Reply, as_reply
from .library import OptimalPolicy, RandomPolicy
from .model_apis import AnthropicPolicy, OpenAIPolicy
from .python import PythonPolicy

__all__ = [
    "Policy",
    "Reply",
    "PolicyError",
    "FatalPolicyError",
    "EndpointDown",
    "as_reply",
    "make_policy",
    "OptimalPolicy",
    "RandomPolicy",
    "OpenAIPolicy",
    "AnthropicPolicy",
    "CommandPolicy",
    "PythonPolicy",
    "FORMS",
]


def make_policy(
    spec: str,
    *,
    base_url: str | None = None,
    seed: int = 0,
    budget: float = BUDGET,
    max_tokens: int | None = None,
    temperature: float | None = None,
    timeout: float = TIMEOUT,
    max_errors: int = MAX_ERRORS,
) -> Policy:
    """The policy a --policy string names. `budget`: CPU seconds for the optimal policy's h* search;
    `timeout`: seconds a model API or command may take per reply; `max_errors`: requests in a row
    that cannot reach a model API before the run stops (0: never)."""
    policy = _make(
        spec,
        base_url=base_url,
        seed=seed,
        budget=budget,
        max_tokens=max_tokens,
        temperature=temperature,
        timeout=timeout,
        max_errors=max_errors,
    )
    policy.recipe = {
        "spec": spec,
        "base_url": base_url,
        "seed": seed,
        "budget": budget,
        "max_tokens": max_tokens,
        "temperature": temperature,
        "timeout": timeout,
        "max_errors": max_errors,
    }
    return policy


def _make(spec: str, *, base_url, seed, budget, max_tokens, temperature, timeout, max_errors) -> Policy:
    kind, _, rest = spec.partition(":")
    if base_url is not None and kind not in ("openai", "anthropic"):
        raise AcpError("--base-url is for openai:MODEL and anthropic:MODEL policies", f"--policy {spec}")
    if kind in ("openai", "anthropic"):
        if not rest:
            raise AcpError("no model name", f"--policy {spec}", f"e.g. --policy {kind}:MODEL")
        cls = OpenAIPolicy if kind == "openai" else AnthropicPolicy
        return cls(
            rest, base_url, max_tokens=max_tokens, temperature=temperature, timeout=timeout, max_errors=max_errors
        )
    if spec == "optimal":
        return OptimalPolicy(budget)
    if spec == "random":
        return RandomPolicy(seed)
    if kind == "cmd":
        return CommandPolicy(rest, timeout)
    if kind == "python":
        return PythonPolicy(rest)
    raise AcpError(f"unknown policy {spec!r}", "--policy", f"policies: {FORMS}")
