"""What the server is told at start: limits, transport, token, the file root and the tool profile.

A leaf module (it imports nothing from the server), so every other server module may import it.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
from pathlib import Path
from typing import Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
)  # mcp 2.0 defines it here; 2.3 re-exports it
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from acptools import __version__, kinds
from acptools.answers import TASKS, canonical_task

SERVER_NAME = "acptools"
TOKEN_ENV_VAR = "ACPTOOLS_TOKEN"
LOG_LEVEL_ENV_VAR = "ACPTOOLS_LOG_LEVEL"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_HTTP_PATH = "/mcp"

Transport = Literal["stdio", "streamable-http"]
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


def package_version() -> str:
    """The installed acptools version (one source: acptools.__version__, which pyproject.toml reads too)."""
    return __version__


class ConfigError(ValueError):
    """Invalid server configuration (reported on stderr by the CLI, exit status 2)."""


class PathAccessError(ToolError, ValueError):
    """A path is outside the configured root, or filesystem access is disabled.

    A ``ToolError``, so raised inside a tool the client gets ``isError`` with this message.
    """


# ---------------------------------------------------------------------------
# Tool profiles: which tools an agent under test may see
# ---------------------------------------------------------------------------

# Every tool, with the ACP question kinds it answers outright or lets a caller work out by probing
# (e.g. `progress` on each action answers app; a one-step `validate_plan` answers prog).
TOOL_NAMES = (
    "server_info",
    "list_examples",
    "load_task",
    "list_applicable",
    "progress",
    "validate_plan",
    "simplify_plan",
    "is_reachable",
    "unreachable_atoms",
    "is_action_reachable",
    "unreachable_actions",
    "is_landmark",
    "landmarks",
    "optimal_next_action",
    "plan",
    "score_answer",
    "start_episode",
    "step_episode",
    "episode_summary",
)
# the kinds each tool answers come from the registry (acptools.kinds: each kind names its tools); the scorer
# grades every kind
ANSWERS: dict[str, frozenset[str]] = {name: kinds.tools_answering().get(name, frozenset()) for name in TOOL_NAMES}
ANSWERS["score_answer"] = frozenset(TASKS)

# A policy under test must find its own plan: hide every tool that returns an optimal action, a plan
# (witnesses are plans: to an atom, to an applicable action, to the goal avoiding an atom), a shorter
# plan, or a grade of an action (episodes and the scorer tell whether a step is optimal).
POLICY_HIDDEN = frozenset(
    {
        "optimal_next_action",
        "plan",
        "is_reachable",
        "is_action_reachable",
        "is_landmark",
        "simplify_plan",
        "score_answer",
        "start_episode",
        "step_episode",
        "episode_summary",
    }
)
PROFILE_HELP = (
    "'policy' hides the tools that give plans or optimal actions away; 'qa' hides every tool that answers an "
    "ACP question; 'qa:KIND[+KIND]' (e.g. qa:reach+land) hides only those that answer these kinds"
)


def hidden_by_profile(profile: str | None) -> frozenset[str]:
    """The tools a profile hides (raises ValueError for an unknown profile)."""
    if profile is None:
        return frozenset()
    if profile == "policy":
        return POLICY_HIDDEN
    if profile == "qa":
        return frozenset(name for name, kinds in ANSWERS.items() if kinds)
    if profile.startswith("qa:"):
        kinds = {canonical_task(k) for k in profile[3:].split("+")}
        return frozenset(name for name, answers in ANSWERS.items() if answers & kinds)
    raise ValueError(f"unknown profile {profile!r}: {PROFILE_HELP}")


# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and loopback IP literals (127.0.0.0/8, ::1)."""
    h = host.strip().lower()
    if h.startswith("[") and h.endswith("]"):
        h = h[1:-1]
    if h == "localhost":
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False  # any other hostname (or "", "0.0.0.0", "::") counts as non-loopback


class Limits(BaseModel):
    """Resource limits enforced by the planning tools."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tasks: int = Field(default=32, ge=1)  # parsed tasks kept in memory
    max_episodes: int = Field(default=64, ge=1)  # live episodes kept in memory
    max_pddl_bytes: int = Field(default=1_000_000, ge=1)  # size of one PDDL text
    max_plan_length: int = Field(default=10_000, ge=1)  # actions in a plan argument
    max_state_atoms: int = Field(default=200_000, ge=1)  # atoms in a state argument
    max_ground_actions: int = Field(default=500_000, ge=1)  # ground actions of a loaded task
    default_budget: float = Field(default=30.0, gt=0)  # search seconds when a call gives none
    max_budget: float = Field(default=600.0, gt=0)  # the largest budget a call may ask for
    max_concurrent_searches: int = Field(default=2, ge=1)  # searches at once (others wait)
    max_memory: int = Field(default=2_000_000_000, ge=1)  # bytes of cached tasks and episodes' tasks
    max_response_bytes: int = Field(default=1_000_000, ge=1000)  # size of one tool result on the wire
    load_budget: float = Field(default=60.0, gt=0)  # seconds to parse and ground one task
    max_concurrent_loads: int = Field(default=1, ge=1)  # loads of big PDDL texts at once
    max_planner_memory: int | None = Field(default=None, ge=1)  # MB of address space per planner process

    @model_validator(mode="after")
    def _default_budget_within_max(self) -> Limits:
        if self.default_budget > self.max_budget:
            raise ValueError(
                f"the default budget ({self.default_budget} s, --default-budget) must not exceed the maximum budget "
                f"({self.max_budget} s, --max-budget)"
            )
        return self


class ServerConfig(BaseModel):
    """Everything the server needs to start; built by the CLI's ``parse_args`` or directly in tests."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    transport: Transport = "stdio"
    host: str = DEFAULT_HOST
    port: int = Field(default=DEFAULT_PORT, ge=0, le=65535)
    http_path: str = DEFAULT_HTTP_PATH
    token: SecretStr | None = None
    root: Path | None = None
    limits: Limits = Field(default_factory=Limits)
    log_level: LogLevel = "INFO"
    profile: str | None = None
    tools: tuple[str, ...] | None = None  # allow-list; None: every tool the profile leaves
    cache: str | None = None  # the proof store file ("default": acptools' default file); None: no store

    @field_validator("host")
    @classmethod
    def _normalize_host(cls, v: str) -> str:
        v = v.strip()
        if v.startswith("[") and v.endswith("]"):  # "[::1]" -> "::1" (what uvicorn expects)
            v = v[1:-1]
        return v

    @field_validator("token", mode="before")
    @classmethod
    def _empty_token_is_none(cls, v: Any) -> Any:
        if isinstance(v, str) and v.strip() == "":
            return None
        return v

    @field_validator("token")
    @classmethod
    def _token_is_header_safe(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None:
            raw = v.get_secret_value()
            if any(c.isspace() for c in raw) or not raw.isprintable() or not raw.isascii():
                raise ValueError("token must be printable ASCII without whitespace")
        return v

    @field_validator("root")
    @classmethod
    def _root_is_directory(cls, v: Path | None) -> Path | None:
        if v is None:
            return None
        resolved = Path(v).expanduser().resolve()
        if not resolved.is_dir():
            raise ValueError(f"root {str(v)!r} is not an existing directory")
        return resolved

    @field_validator("http_path")
    @classmethod
    def _path_starts_with_slash(cls, v: str) -> str:
        if not v.startswith("/"):
            raise ValueError("http_path must start with '/'")
        return v

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, v: str | None) -> str | None:
        if v is not None:
            v = v.strip().lower() or None
            hidden_by_profile(v)
        return v

    @field_validator("tools")
    @classmethod
    def _known_tools(cls, v: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if v is None:
            return None
        names = tuple(dict.fromkeys(n.strip() for n in v if n.strip()))
        unknown = [n for n in names if n not in ANSWERS]
        if unknown:
            close = difflib.get_close_matches(unknown[0], TOOL_NAMES, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"unknown tool(s) {', '.join(map(repr, unknown))}{hint}; tools: {', '.join(TOOL_NAMES)}")
        return names

    @model_validator(mode="after")
    def _refuse_open_bind_without_token(self) -> ServerConfig:
        if self.transport == "streamable-http" and self.token is None and not is_loopback_host(self.host):
            raise ValueError(
                f"refusing to serve streamable-http on non-loopback host {self.host!r} without a bearer token: "
                f"pass --token TOKEN or set {TOKEN_ENV_VAR}, or bind to 127.0.0.1"
            )
        return self

    @property
    def filesystem_access(self) -> bool:
        """Whether tools may read files (a root is set)."""
        return self.root is not None

    def visible_tools(self) -> tuple[str, ...]:
        """The tools this server lists: the allow-list (or all), minus what the profile hides."""
        hidden = hidden_by_profile(self.profile)
        allowed = TOOL_NAMES if self.tools is None else self.tools
        return tuple(n for n in TOOL_NAMES if n in allowed and n not in hidden)

    def resolve_under_root(self, path: str | os.PathLike[str]) -> Path:
        """`path` resolved under the root; PathAccessError when it escapes the root or no root is set."""
        return resolve_under_root(path, self.root)

    def token_value(self) -> str | None:
        """The bearer token as plain text, or None."""
        return None if self.token is None else self.token.get_secret_value()

    def max_request_body_bytes(self) -> int:
        """The largest request either transport reads (an HTTP body, a stdio line): room for a domain +
        problem at the PDDL limit, JSON-escaped."""
        return max(DEFAULT_MAX_REQUEST_BODY_SIZE, 3 * self.limits.max_pddl_bytes + (1 << 20))


def resolve_under_root(path: str | os.PathLike[str], root: Path | None) -> Path:
    """Resolve ``path`` (relative paths are taken relative to ``root``) and require it to stay inside ``root``.

    Symlinks are resolved before the check, so a link pointing outside the root is rejected too.
    Raises :class:`PathAccessError` when ``root`` is None (filesystem access disabled), when the path
    escapes the root, or when it is malformed.
    """
    if root is None:
        raise PathAccessError("filesystem access is disabled: start the server with --root DIR to allow reading files")
    raw = os.fspath(path)
    if not isinstance(raw, str) or raw == "":
        raise PathAccessError("path must be a non-empty string")
    if "\x00" in raw:
        raise PathAccessError("path must not contain NUL characters")
    root_resolved = Path(root).resolve()
    candidate = Path(raw).expanduser() if raw.startswith("~") else Path(raw)
    if not candidate.is_absolute():
        candidate = root_resolved / candidate
    try:
        resolved = candidate.resolve()
    except (OSError, RuntimeError) as exc:  # symlink loops etc.
        raise PathAccessError(f"cannot resolve path {raw!r}: {exc}") from None
    if not resolved.is_relative_to(root_resolved):
        raise PathAccessError(f"path {raw!r} is outside the allowed root directory {str(root_resolved)!r}")
    return resolved
