"""MCP server for acptools: the MCP layer only (all planning logic lives in ``acptools``).

Modules: :mod:`acptools_server.config` (limits, configuration, path rules, tool profiles), :mod:`acptools_server.http`
(bearer token, transport security), :mod:`acptools_server.app` (build, serve, CLI), :mod:`acptools_server.state` (what the
tools share, through the SDK's lifespan context), :mod:`acptools_server.holdings` (task and episode stores),
:mod:`acptools_server.search_runner` (searches off the event loop, cancellable budgets), :mod:`acptools_server.models` (results),
:mod:`acptools_server.tools` (the tools).

Entry points:

* ``python -m acptools_server [options]`` / console script ``acptools-server`` -> :func:`acptools_server.app.main`
* :func:`acptools_server.app.build_server` -> a configured ``mcp.server.mcpserver.MCPServer``
"""

from __future__ import annotations

from acptools_server.app import build_http_app, build_server, main
from acptools_server.config import (
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
