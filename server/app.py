"""Build the server (tools, resources, instructions, lifespan), serve it, and the command line.

The only module that imports the tool modules. No planning logic lives here.
"""

from __future__ import annotations

import argparse
import difflib
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

from acptools_server.config import (
    DEFAULT_HOST,
    DEFAULT_HTTP_PATH,
    DEFAULT_PORT,
    LOG_LEVEL_ENV_VAR,
    PROFILE_HELP,
    SERVER_NAME,
    TOKEN_ENV_VAR,
    TOOL_NAMES,
    ConfigError,
    Limits,
    ServerConfig,
    package_version,
)
from acptools_server.http import BearerTokenMiddleware, CancelOnDisconnect, RejectOddIds, transport_security
from acptools_server.schema import compact_arguments, compact_result
from acptools_server.state import ServerState, lifespan, shared_lifespan, stop_everything
from acptools_server.stdio import serve_stdio
from acptools_server.tools import episodes, questions, scoring, tasks
from acptools_server.tools.common import ToolSpec, compact, wire_bytes
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from mcp.types import Tool as MCPTool
from pydantic import ValidationError

ALL_TOOLS = (*tasks.TOOLS, *questions.TOOLS, *scoring.TOOLS, *episodes.TOOLS)
RECURSION_LIMIT = 10_000  # PDDL nested MAX_NESTING levels deep reads within it
THREAD_STACK_BYTES = 64 << 20  # stacks for that depth (address space; only what is used is resident)


class PlanningServer(MCPServer):
    """An MCPServer that holds every call to the server's rules: tools/list sends every schema short (see
    server.schema); a call's arguments are checked by name (with a did-you-mean) and its validation errors
    come back as one line; a result is sent as compact JSON, and never larger than --max-response-bytes;
    over stdio, a request the SDK cannot read still gets an error reply."""

    def __init__(self, config: ServerConfig, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.config = config
        self.specs = {fn.spec.name: fn.spec for fn in ALL_TOOLS}

    async def list_tools(self) -> list[MCPTool]:
        """The tools with their argument and result schemas compacted."""
        return [
            tool.model_copy(
                update={
                    "input_schema": compact_arguments(tool.input_schema),
                    "output_schema": compact_result(tool.output_schema),
                }
            )
            for tool in await super().list_tools()
        ]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """Call a tool: unknown argument names and invalid arguments rejected in one line, the result
        compacted and bounded by --max-response-bytes."""
        spec = self.specs.get(name)
        if spec is not None:
            check_argument_names(spec, arguments)
        try:
            result = await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"Error executing tool {name}: {one_line(exc.__cause__)}") from None
            raise
        if spec is None or not isinstance(result, CallToolResult):
            return result
        return bounded(compact(result), spec, self.config.limits.max_response_bytes)

    async def run_stdio_async(self) -> None:
        """Serve over stdio with the server's hardened stdio transport."""
        limits = self.config.limits
        await serve_stdio(
            self._lowlevel_server,
            drain_seconds=limits.max_budget + limits.load_budget,
            max_chars=self.config.max_request_body_bytes(),
        )


def check_argument_names(spec: ToolSpec, arguments: dict[str, Any]) -> None:
    """Refuse an argument the tool does not take, instead of ignoring it."""
    unknown = [key for key in arguments if key not in spec.arguments]
    if unknown:
        close = difflib.get_close_matches(unknown[0], spec.arguments, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        takes = ", ".join(spec.arguments) or "no arguments"
        raise ToolError(
            f"Error executing tool {spec.name}: unknown argument {unknown[0]!r}{hint}; {spec.name} takes {takes}"
        )


def one_line(exc: ValidationError, shown: int = 3) -> str:
    """A pydantic validation error as one line: which argument, what is wrong (no URLs, no input dumps)."""
    parts = []
    for err in exc.errors(include_url=False)[:shown]:
        where = ".".join(str(x) for x in err["loc"]) or "arguments"
        if err["type"] == "missing":
            parts.append(f"missing required argument {where!r}")
        else:
            parts.append(f"{where}: {err['msg'].removeprefix('Value error, ')}")
    more = exc.error_count() - shown
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def bounded(result: CallToolResult, spec: ToolSpec, max_bytes: int) -> CallToolResult:
    """The result, or an error saying what to ask instead when it is larger than ``max_bytes`` on the wire."""
    size = wire_bytes(result)
    if size <= max_bytes:
        return result
    raise ToolError(
        f"Error executing tool {spec.name}: the result would be {size} bytes, more than the server "
        f"sends ({max_bytes} bytes, --max-response-bytes); {spec.too_big}"
    )


def instructions(config: ServerConfig) -> str:
    """The conventions every tool shares, said once (tool descriptions stay short)."""
    limits = config.limits
    text = (
        "Proven answers about PDDL planning tasks. Start with load_task (PDDL text, or example=<name>); it returns "
        "a task_id that the other tools take. Bundled examples need no load_task: pass task_id='example:<name>' "
        "(names from list_examples) or the id list_examples shows.\n"
        "Names: atoms and actions are written '(predicate obj1 obj2)' and '(action obj1 obj2)'; case, commas and extra spaces do "
        "not matter; an unknown name is an error with a did-you-mean. A plan is a list of actions, or one string "
        "'(a x) (b y)' or one action per line. Plan indices are 0-based.\n"
        "States: a list of fluent atoms under the closed-world assumption (atoms left out are false); static "
        "facts come from the problem; omit the state to use the initial state.\n"
        f"Budgets: `budget` is search seconds (default {limits.default_budget:g}, at most {limits.max_budget:g}). "
        "When it runs out the answer is null / known=false with how='unknown': never a guess.\n"
        "How it is known: 'witness-plan' (replay the witness with validate_plan), 'holds-in-state' (empty "
        "witness), proofs: 'static-facts', 'delete-relaxation', 'first-achievers', 'persistent-fact', 'h2-mutex', "
        "'exhaustive-search', 'mutually-reachable' (this state and one whose complete list proves it reach each other); "
        "'trivial' for landmarks. h* comes from an exact search named in `how`. List results "
        "give a `how` per item and complete=true when the list is exact; a partial list also gives the "
        "candidates proven not to belong (`refuted`) and the undecided ones (`unknown`).\n"
        "Errors say what, where (argument, list index, PDDL line and column) and what to do. server_info shows "
        "the limits and the tool profile."
    )
    if config.profile is not None:
        text += f" This server runs with profile {config.profile!r}: tools that would answer for you are hidden."
    return text


def build_server(config: ServerConfig | None = None, state: ServerState | None = None) -> MCPServer:
    """The MCPServer with the tools the configuration makes visible, and the PDDL resources. `state`:
    one that every connection shares (its creator starts and shuts it down); None: each run of the
    server makes its own."""
    config = config or ServerConfig()
    names = {fn.spec.name for fn in ALL_TOOLS}
    if names != set(TOOL_NAMES):  # the profile table must know every tool
        raise RuntimeError(
            f"acptools_server.config.ANSWERS and the tool modules disagree on {sorted(names ^ set(TOOL_NAMES))}"
        )
    mcp = PlanningServer(
        config,
        name=SERVER_NAME,
        title="acptools planning server",
        version=package_version(),
        instructions=instructions(config),
        log_level=config.log_level,
        lifespan=lifespan(config) if state is None else shared_lifespan(state),
    )
    visible = set(config.visible_tools())
    for fn in ALL_TOOLS:
        if fn.spec.name in visible:
            mcp.add_tool(
                fn,
                name=fn.spec.name,
                title=fn.spec.title,
                description=fn.spec.description,
                annotations=fn.spec.annotations,
            )
    _add_resources(mcp)
    return mcp


def _add_resources(mcp: MCPServer) -> None:
    mcp.resource("acptools://examples", name="examples", title="Bundled example tasks", mime_type="application/json")(
        tasks.examples_index
    )
    for resource in tasks.example_resources():
        mcp.add_resource(resource)
    mcp.resource("acptools://tasks/{task_id}/domain.pddl", name="task-domain", mime_type="text/plain")(
        tasks.task_domain
    )
    mcp.resource("acptools://tasks/{task_id}/problem.pddl", name="task-problem", mime_type="text/plain")(
        tasks.task_problem
    )


def build_http_app(config: ServerConfig, server: MCPServer | None = None) -> Any:
    """The streamable-HTTP ASGI app (Starlette from the SDK), wrapped in bearer auth if a token is set."""
    server = server or build_server(config)
    app: Any = server.streamable_http_app(
        streamable_http_path=config.http_path,
        host=config.host,
        transport_security=transport_security(config),
        max_request_body_size=config.max_request_body_bytes(),
    )
    app = CancelOnDisconnect(RejectOddIds(app, config.max_request_body_bytes()))
    token = config.token_value()
    if token is not None:
        app = BearerTokenMiddleware(app, token)
    return app


def prepare_process(config: ServerConfig) -> None:
    """Process-wide settings for a server process: room to read deeply nested PDDL (a larger recursion
    limit, with big thread stacks to match; every thread that reads PDDL starts after this), and, over
    stdio, SIGTERM cancels the searches and kills the planners before the process ends."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    threading.stack_size(THREAD_STACK_BYTES)
    if config.transport == "stdio":
        signal.signal(signal.SIGTERM, _stop_then_die)


def _stop_then_die(signum: int, _frame: Any) -> None:
    """SIGTERM over stdio: stop every search and planner (their threads remove their work folders), then
    die of the signal as before. (The event loop cannot stop on its own: it waits for a blocked stdin read.)"""
    stop_everything()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def serve(config: ServerConfig) -> None:
    """Run the server until interrupted (blocking). Over HTTP, uvicorn turns SIGTERM and SIGINT into a
    shutdown: open calls are cancelled, and the lifespan waits for their threads and planners."""
    prepare_process(config)
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
        timeout_graceful_shutdown=2,
    )
    uvicorn.Server(uv_config).run()


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def _build_parser() -> argparse.ArgumentParser:
    d = Limits()
    p = argparse.ArgumentParser(prog="acptools-server", description="MCP server exposing acptools planning tools.")
    p.add_argument("--version", action="version", version=f"acptools-server {package_version()}")
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
    p.add_argument("--profile", default=None, help=f"hide tools from an agent under test: {PROFILE_HELP}")
    p.add_argument("--tools", default=None, metavar="NAME,...", help="list only these tools (comma-separated)")
    p.add_argument("--max-tasks", type=int, default=d.max_tasks)
    p.add_argument("--max-episodes", type=int, default=d.max_episodes)
    p.add_argument("--max-pddl-bytes", type=int, default=d.max_pddl_bytes)
    p.add_argument("--max-plan-length", type=int, default=d.max_plan_length)
    p.add_argument(
        "--max-state-atoms",
        type=int,
        default=d.max_state_atoms,
        help="atoms a state argument may list (default %(default)s)",
    )
    p.add_argument("--max-ground-actions", type=int, default=d.max_ground_actions)
    p.add_argument("--default-budget", type=float, default=d.default_budget, help="seconds (default %(default)s)")
    p.add_argument("--max-budget", type=float, default=d.max_budget, help="seconds (default %(default)s)")
    p.add_argument("--max-concurrent-searches", type=int, default=d.max_concurrent_searches)
    p.add_argument(
        "--max-memory",
        type=int,
        default=d.max_memory,
        help="bytes of cached tasks and episodes' tasks (estimated; default %(default)s)",
    )
    p.add_argument(
        "--max-response-bytes",
        type=int,
        default=d.max_response_bytes,
        help="largest tool result sent (default %(default)s)",
    )
    p.add_argument(
        "--load-budget",
        type=float,
        default=d.load_budget,
        help="seconds to parse and ground one task (default %(default)s)",
    )
    p.add_argument(
        "--max-concurrent-loads",
        type=int,
        default=d.max_concurrent_loads,
        help="big PDDL texts grounded at once (default %(default)s)",
    )
    p.add_argument(
        "--max-planner-memory",
        type=int,
        default=None,
        metavar="MB",
        help="address space of each planner process (default: the library's, 4-8 GB)",
    )
    p.add_argument(
        "--cache",
        nargs="?",
        const="default",
        default=None,
        metavar="PATH",
        help="share proven truths with other runs in a proof store (acptools.proofs.store); without PATH, "
        "the default file (ACPTOOLS_CACHE or the user cache folder); default: no store",
    )
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
        fields = [str(x) for x in err["loc"] if x != "limits" and not isinstance(x, int)]
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
            profile=ns.profile,
            tools=None if ns.tools is None else tuple(ns.tools.split(",")),
            limits=Limits(
                max_tasks=ns.max_tasks,
                max_episodes=ns.max_episodes,
                max_pddl_bytes=ns.max_pddl_bytes,
                max_plan_length=ns.max_plan_length,
                max_state_atoms=ns.max_state_atoms,
                max_ground_actions=ns.max_ground_actions,
                default_budget=ns.default_budget,
                max_budget=ns.max_budget,
                max_concurrent_searches=ns.max_concurrent_searches,
                max_memory=ns.max_memory,
                max_response_bytes=ns.max_response_bytes,
                load_budget=ns.load_budget,
                max_concurrent_loads=ns.max_concurrent_loads,
                max_planner_memory=ns.max_planner_memory,
            ),
            cache=ns.cache,
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
