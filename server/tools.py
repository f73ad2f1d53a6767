"""Tool registration.  ``register(mcp, config)`` is called once by :func:`server.app.build_server`.

Add planning tools here (or in modules called from here).  Conventions, see docs/mcp-notes.md:

* pydantic models for inputs/outputs -> ``inputSchema``/``outputSchema`` + ``structuredContent``;
* ``ToolAnnotations(read_only_hint=..., idempotent_hint=...)`` on every tool;
* raise ``ToolError`` (or ``PathAccessError`` / ``CacheKeyError``, both ToolErrors) for expected
  failures -- any other exception reaches the client only as "Error executing tool <name>";
* CPU-heavy work in ``await anyio.to_thread.run_sync(fn, abandon_on_cancel=True)`` from an async tool.
"""

from __future__ import annotations

import importlib.metadata

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from server.app import Limits, ServerConfig

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


class ServerInfo(BaseModel):
    name: str = Field(description="Server name.")
    version: str = Field(description="acptools version.")
    mcp_sdk_version: str = Field(description="Version of the MCP Python SDK in use.")
    transport: str = Field(description="Transport this server was started with.")
    filesystem_access: bool = Field(description="Whether tools accept file paths (server started with --root).")
    root: str | None = Field(description="Directory file paths are resolved against, if filesystem access is on.")
    limits: Limits


def register(mcp: MCPServer, config: ServerConfig) -> None:
    from server import SERVER_NAME, __version__

    @mcp.tool(
        name="server_info",
        title="Server information",
        description=(
            "Return the server version, the transport in use, whether file paths are accepted, and the "
            "configured limits (max_tasks, max_episodes, max_pddl_bytes, max_plan_length). Takes no arguments."
        ),
        annotations=READ_ONLY,
    )
    def server_info() -> ServerInfo:
        return ServerInfo(
            name=SERVER_NAME,
            version=__version__,
            mcp_sdk_version=importlib.metadata.version("mcp"),
            transport=config.transport,
            filesystem_access=config.filesystem_access,
            root=str(config.root) if config.root is not None else None,
            limits=config.limits,
        )
