"""MCP server for acptools: the MCP layer only (all planning logic lives in ``acptools``).

Modules: :mod:`server.config` (limits, configuration, path rules, tool profiles), :mod:`server.http`
(bearer token, transport security), :mod:`server.app` (build, serve, CLI), :mod:`server.state` (what the
tools share, through the SDK's lifespan context), :mod:`server.stores` (task and episode stores),
:mod:`server.runner` (searches off the event loop, cancellable budgets), :mod:`server.models` (results),
:mod:`server.tools` (the tools).

Entry points:

* ``python -m server [options]`` / console script ``acptools-server`` -> :func:`server.app.main`
* :func:`server.app.build_server` -> a configured ``mcp.server.mcpserver.MCPServer``
"""

from __future__ import annotations

from server.app import build_http_app, build_server, main
from server.config import (
    SERVER_NAME,
    ConfigError,
    PathAccessError,
    ServerConfig,
    package_version,
    resolve_under_root,
)

__version__ = package_version()

__all__ = [
    "SERVER_NAME",
    "__version__",
    "ServerConfig",
    "ConfigError",
    "PathAccessError",
    "build_server",
    "build_http_app",
    "main",
    "resolve_under_root",
]
