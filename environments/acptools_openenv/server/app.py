"""FastAPI application for the acptools environment (OpenEnv's HTTP and WebSocket endpoints: /reset,
/step, /state, /schema, /metadata, /health, /mcp and the /ws session that EnvClient speaks).

    acptools-openenv --port 8000 --source ferry            # one command (pip install 'acptools[openenv]')
    python -m acptools_openenv.server.app --port 8000        # the same
    ACPTOOLS_OPENENV_ARGS="--tool-profile policy" uvicorn acptools_openenv.server.app:app --port 8000

Each WebSocket session holds its own episode; at most --max-sessions at once. Over plain HTTP,
OpenEnv makes a fresh environment per request (a reset works, a step has no episode): play over the
WebSocket (EnvClient, GenericEnvClient).
"""

from __future__ import annotations

import argparse
import functools
import os
import shlex
import sys
import threading
from collections.abc import Sequence
from typing import Any

from acptools_server.app import RECURSION_LIMIT, THREAD_STACK_BYTES
from acptools_server.config import Limits
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.types import ConcurrencyConfig

from acptools import AcpError
from acptools.dataset import load_records
from acptools.environments.session import Settings
from acptools.environments.step_rewards import REWARDS, Rewards
from acptools.environments.task_sources import starts

try:
    from ..models import AcptoolsAction, AcptoolsObservation
    from .acptools_environment import AcptoolsEnvironment
    from .backend import PROFILE_HELP, Backend
except ImportError:  # run from the environment's folder (uvicorn server.app:app), as OpenEnv's layout allows
    from models import AcptoolsAction, AcptoolsObservation
    from server.acptools_environment import AcptoolsEnvironment
    from server.backend import PROFILE_HELP, Backend

ARGS_ENV_VAR = "ACPTOOLS_OPENENV_ARGS"  # the command-line options of the module-level `app`
PROG = "acptools-openenv"


def parser() -> argparse.ArgumentParser:
    d, s = Settings(), Settings().rewards
    p = argparse.ArgumentParser(prog=PROG, description="Serve the acptools OpenEnv environment (HTTP and WebSocket).")
    p.add_argument("--host", default="127.0.0.1", help="bind address (default %(default)s)")
    p.add_argument("--port", type=int, default=8000, help="default %(default)s")
    p.add_argument(
        "--source",
        default=None,
        help="the environment's own starts: a bundled example's name or a "
        "folder with domain.pddl and problems (default: every bundled example)",
    )
    p.add_argument(
        "--data",
        default=None,
        help="or a record source (acpbench-hard[:SPLIT][:TASK], a JSONL file or "
        "folder): each record's problem init is a start",
    )
    p.add_argument("--reward", choices=REWARDS, default=s.kind, help="default %(default)s (docs/training.md)")
    p.add_argument("--invalid-penalty", type=float, default=s.invalid_penalty)
    p.add_argument("--dead-end-penalty", type=float, default=s.dead_end_penalty)
    p.add_argument("--goal-bonus", type=float, default=s.goal_bonus)
    p.add_argument("--max-steps", type=int, default=d.max_steps, help="attempts per episode (default %(default)s)")
    p.add_argument(
        "--max-tool-calls",
        type=int,
        default=d.max_tool_calls,
        help="tool calls per episode; one more ends it (default %(default)s)",
    )
    p.add_argument("--hide-actions", action="store_true", help="leave the applicable actions out of observations")
    p.add_argument("--budget", type=float, default=d.budget, help="seconds per h* search (default %(default)s)")
    p.add_argument("--tool-profile", default="none", help=PROFILE_HELP)
    p.add_argument(
        "--max-sessions",
        type=int,
        default=Limits().max_episodes,
        help="WebSocket sessions (episodes) at once (default %(default)s, the MCP server's --max-episodes)",
    )
    p.add_argument(
        "--session-timeout", type=float, default=None, help="close a session idle this many seconds (default: never)"
    )
    p.add_argument(
        "--cache",
        nargs="?",
        const="default",
        default=None,
        metavar="PATH",
        help="share proven truths with other runs in a proof store (acptools.proofs.store); default: none",
    )
    p.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error", "critical"])
    return p


def build_app(options: argparse.Namespace) -> Any:
    """The FastAPI app for parsed command-line options (raises AcpError / ValueError on bad ones)."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))  # deeply nested PDDL, as the MCP server
    threading.stack_size(THREAD_STACK_BYTES)
    rewards = Rewards(options.reward, options.invalid_penalty, options.dead_end_penalty, options.goal_bonus)
    settings = Settings(rewards, options.max_steps, options.max_tool_calls, not options.hide_actions, options.budget)
    if options.source and options.data:
        raise AcpError("pass either --source or --data, not both", "--data")
    found = starts(load_records(options.data) if options.data else options.source)
    backend = Backend.create(settings, found, options.tool_profile, options.cache)
    sessions = ConcurrencyConfig(max_concurrent_envs=options.max_sessions, session_timeout=options.session_timeout)
    app = create_app(
        functools.partial(AcptoolsEnvironment, backend),
        AcptoolsAction,
        AcptoolsObservation,
        env_name="acptools",
        concurrency_config=sessions,
    )
    app.router.on_shutdown.append(backend.shutdown)
    return app


@functools.cache
def _default_app() -> Any:
    return build_app(parser().parse_args(shlex.split(os.environ.get(ARGS_ENV_VAR, ""))))


def __getattr__(name: str) -> Any:
    """`app`, built on first use from $ACPTOOLS_OPENENV_ARGS (so importing this module builds nothing)."""
    if name == "app":
        return _default_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: Sequence[str] | None = None) -> int:
    """`acptools-openenv`: serve until interrupted."""
    options = parser().parse_args(argv)
    try:
        app = build_app(options)
    except (AcpError, ValueError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    import uvicorn

    uvicorn.run(app, host=options.host, port=options.port, log_level=options.log_level)
    return 0


if __name__ == "__main__":
    sys.exit(main())
