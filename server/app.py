"""Server configuration, construction, HTTP auth and the command-line entry point.

No planning logic lives here; tools are registered by :mod:`server.tools`.
"""

from __future__ import annotations

import argparse
import hmac
import ipaddress
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, TransportSecuritySettings
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

TOKEN_ENV_VAR = "ACPTOOLS_TOKEN"
LOG_LEVEL_ENV_VAR = "ACPTOOLS_LOG_LEVEL"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_HTTP_PATH = "/mcp"

Transport = Literal["stdio", "streamable-http"]
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


class ConfigError(ValueError):
    """Invalid server configuration (reported on stderr by :func:`main`, exit status 2)."""


class PathAccessError(ToolError, ValueError):
    """A path is outside the configured root, or filesystem access is disabled.

    A ``ToolError``, so raised inside a tool the client gets ``isError`` with this message.
    """


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

    max_tasks: int = Field(default=32, ge=1, description="Maximum number of parsed tasks kept in memory.")
    max_episodes: int = Field(default=64, ge=1, description="Maximum number of live episodes kept in memory.")
    max_pddl_bytes: int = Field(default=1_000_000, ge=1, description="Maximum size of one PDDL text, in bytes.")
    max_plan_length: int = Field(default=10_000, ge=1, description="Maximum number of actions in a plan.")
    max_ground_actions: int = Field(
        default=500_000, ge=1, description="Maximum number of ground actions a loaded task may have (after grounding)."
    )
    default_budget: float = Field(
        default=30.0, gt=0, description="Search budget in seconds used when a tool call gives no budget."
    )
    max_budget: float = Field(
        default=600.0, gt=0, description="Largest search budget in seconds a tool call may ask for."
    )
    max_concurrent_searches: int = Field(
        default=2, ge=1, description="How many long searches may run at once (others wait their turn)."
    )

    @model_validator(mode="after")
    def _default_budget_within_max(self) -> Limits:
        if self.default_budget > self.max_budget:
            raise ValueError(
                f"the default budget ({self.default_budget} s, --default-budget) must not exceed the maximum budget "
                f"({self.max_budget} s, --max-budget)"
            )
        return self


class ServerConfig(BaseModel):
    """Everything the server needs to start; built by :func:`parse_args` or directly in tests."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    transport: Transport = "stdio"
    host: str = DEFAULT_HOST
    port: int = Field(default=DEFAULT_PORT, ge=0, le=65535)
    http_path: str = DEFAULT_HTTP_PATH
    token: SecretStr | None = None
    root: Path | None = None
    limits: Limits = Field(default_factory=Limits)
    log_level: LogLevel = "INFO"

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
        return self.root is not None

    def resolve_under_root(self, path: str | os.PathLike[str]) -> Path:
        return resolve_under_root(path, self.root)

    def token_value(self) -> str | None:
        return None if self.token is None else self.token.get_secret_value()

    def max_request_body_bytes(self) -> int:
        """HTTP body cap: room for a domain + problem at the PDDL limit, JSON-escaped."""
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


# ---------------------------------------------------------------------------
# Server construction
# ---------------------------------------------------------------------------


def build_server(config: ServerConfig | None = None) -> MCPServer:
    """Create the MCPServer and register all tools/resources (see :mod:`server.tools`)."""
    from server import SERVER_NAME, __version__, tools

    config = config or ServerConfig()
    mcp = MCPServer(
        SERVER_NAME,
        title="acptools planning server",
        version=__version__,
        instructions=(
            "Proven answers about PDDL planning tasks. Start with load_task (PDDL text, or example=<name> from "
            "list_examples); it returns a task_id that every other tool takes. States are lists of ground fluent "
            "atoms like \"(at c1 l0)\" under the closed-world assumption (unlisted atoms are false); omit a state "
            "to use the task's initial state. Every verdict says how it is known (a witness plan you can replay "
            "with validate_plan, or a proof kind) or says 'unknown' when its budget (seconds) ran out. "
            "server_info shows the limits."
        ),
        log_level=config.log_level,
    )
    tools.register(mcp, config)
    return mcp


class BearerTokenMiddleware:
    """Pure ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``.

    Lifespan events pass through untouched.  Comparison is constant-time.
    """

    def __init__(self, app: Any, token: str) -> None:
        if not token:
            raise ValueError("token must be non-empty")
        self.app = app
        self._expected = token.encode("ascii")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        supplied: bytes | None = None
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                supplied = value
                break
        if supplied is not None:
            scheme, _, credentials = supplied.strip().partition(b" ")
            if scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self._expected):
                await self.app(scope, receive, send)
                return
        if scope["type"] == "websocket":  # pragma: no cover - no websocket routes today
            await send({"type": "websocket.close", "code": 1008})
            return
        if supplied is None:
            challenge = b'Bearer realm="acptools"'
            message = "missing bearer token: send 'Authorization: Bearer <token>'"
        else:
            challenge = b'Bearer realm="acptools", error="invalid_token"'
            message = "invalid bearer token"
        body = json.dumps({"error": "unauthorized", "message": message}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", challenge),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _transport_security(config: ServerConfig) -> TransportSecuritySettings | None:
    """DNS-rebinding protection for loopback binds (the SDK only auto-enables it for three exact names)."""
    if not is_loopback_host(config.host):
        return None  # reachable from elsewhere anyway; the bearer token is the protection
    host = config.host.strip("[]")
    host_pattern = f"[{host}]" if ":" in host else host
    hosts = {"127.0.0.1", "localhost", "[::1]", host_pattern}
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=sorted(f"{h}:*" for h in hosts),
        allowed_origins=sorted(f"http://{h}:*" for h in hosts),
    )


def build_http_app(config: ServerConfig, server: MCPServer | None = None) -> Any:
    """The streamable-HTTP ASGI app (Starlette from the SDK), wrapped in bearer auth if a token is set."""
    server = server or build_server(config)
    app: Any = server.streamable_http_app(
        streamable_http_path=config.http_path,
        host=config.host,
        transport_security=_transport_security(config),
        max_request_body_size=config.max_request_body_bytes(),
    )
    token = config.token_value()
    if token is not None:
        app = BearerTokenMiddleware(app, token)
    return app


def serve(config: ServerConfig) -> None:
    """Run the server until interrupted (blocking)."""
    server = build_server(config)
    if config.transport == "stdio":
        server.run("stdio")
        return
    import uvicorn

    app = build_http_app(config, server)
    uv_config = uvicorn.Config(
        app,
        host=config.host,
        port=config.port,
        log_level=config.log_level.lower(),
        lifespan="on",
        timeout_graceful_shutdown=5,
    )
    uvicorn.Server(uv_config).run()


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def _build_parser() -> argparse.ArgumentParser:
    d = Limits()
    p = argparse.ArgumentParser(
        prog="acptools-server",
        description="MCP server exposing acptools planning tools.",
    )
    p.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio", help="default: stdio")
    p.add_argument("--host", default=DEFAULT_HOST, help=f"HTTP bind address (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"HTTP port (default {DEFAULT_PORT})")
    p.add_argument("--http-path", default=DEFAULT_HTTP_PATH, help=f"HTTP endpoint path (default {DEFAULT_HTTP_PATH})")
    p.add_argument(
        "--token",
        default=None,
        help=f"bearer token required on every HTTP request (default: ${TOKEN_ENV_VAR}; prefer the env var, "
        "command lines are visible to other local users)",
    )
    p.add_argument("--root", default=None, help="directory tools may read files from (default: no filesystem access)")
    p.add_argument("--max-tasks", type=int, default=d.max_tasks)
    p.add_argument("--max-episodes", type=int, default=d.max_episodes)
    p.add_argument("--max-pddl-bytes", type=int, default=d.max_pddl_bytes)
    p.add_argument("--max-plan-length", type=int, default=d.max_plan_length)
    p.add_argument("--max-ground-actions", type=int, default=d.max_ground_actions)
    p.add_argument("--default-budget", type=float, default=d.default_budget, help="seconds (default %(default)s)")
    p.add_argument("--max-budget", type=float, default=d.max_budget, help="seconds (default %(default)s)")
    p.add_argument("--max-concurrent-searches", type=int, default=d.max_concurrent_searches)
    p.add_argument(
        "--log-level",
        type=str.upper,
        choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"],
        default=None,
        help=f"server log level, logs go to stderr (default: ${LOG_LEVEL_ENV_VAR} or INFO)",
    )
    return p


def _format_validation_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        fields = [str(x) for x in err["loc"] if x != "limits"]
        flag = "--" + fields[-1].replace("_", "-") if fields else ""
        msg = err["msg"].removeprefix("Value error, ")
        parts.append(f"{flag}: {msg}" if flag else msg)
    return "; ".join(parts)


def parse_args(argv: Sequence[str] | None = None, environ: dict[str, str] | None = None) -> ServerConfig:
    """Parse the command line into a validated :class:`ServerConfig` (raises :class:`ConfigError`)."""
    environ = dict(os.environ) if environ is None else environ
    ns = _build_parser().parse_args(argv)
    token = ns.token if ns.token is not None else environ.get(TOKEN_ENV_VAR)
    log_level = ns.log_level if ns.log_level is not None else environ.get(LOG_LEVEL_ENV_VAR, "INFO").upper()
    try:
        return ServerConfig(
            transport=ns.transport,
            host=ns.host,
            port=ns.port,
            http_path=ns.http_path,
            token=token,
            root=ns.root,
            log_level=log_level,
            limits=Limits(
                max_tasks=ns.max_tasks,
                max_episodes=ns.max_episodes,
                max_pddl_bytes=ns.max_pddl_bytes,
                max_plan_length=ns.max_plan_length,
                max_ground_actions=ns.max_ground_actions,
                default_budget=ns.default_budget,
                max_budget=ns.max_budget,
                max_concurrent_searches=ns.max_concurrent_searches,
            ),
        )
    except ValidationError as exc:
        raise ConfigError(_format_validation_error(exc)) from None


def main(argv: Sequence[str] | None = None) -> int:
    """Console-script entry point (``acptools-server``)."""
    try:
        config = parse_args(argv)
    except ConfigError as exc:
        print(f"acptools-server: error: {exc}", file=sys.stderr)
        return 2
    try:
        serve(config)
    except KeyboardInterrupt:
        pass
    return 0
