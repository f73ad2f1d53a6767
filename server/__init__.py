"""MCP server for acptools: the MCP layer only (all planning logic lives in ``acptools``).

Modules: :mod:`server.app` (config, CLI, transports, bearer auth, path guard), :mod:`server.tools` (the tools
and resources), :mod:`server.models` (pydantic results), :mod:`server.registry` (task cache, episodes, input
checks), :mod:`server.runner` (searches off the event loop, budgets, cancellation), :mod:`server.cache`.

Entry points:

* ``python -m server [options]`` / console script ``acptools-server`` -> :func:`server.app.main`
* :func:`server.app.build_server` -> a configured ``mcp.server.mcpserver.MCPServer``
"""

from __future__ import annotations

from importlib import metadata as _metadata

SERVER_NAME = "acptools"


def _package_version() -> str:
    # Do not import the planning library here: the server package must stay
    # importable (and cheap to import) on its own.
    try:
        return _metadata.version("acptools")
    except _metadata.PackageNotFoundError:
        return "0.0.0+unknown"


__version__ = _package_version()

from server.app import (  # noqa: E402
    ServerConfig,
    ConfigError,
    PathAccessError,
    build_server,
    build_http_app,
    main,
    resolve_under_root,
)
from server.cache import BoundedCache, CacheKeyError  # noqa: E402

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
    "BoundedCache",
    "CacheKeyError",
]
