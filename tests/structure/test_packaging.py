"""The MCP server installs as `acptools_server`, so a user's own top-level package named `server`
neither hides it nor is hidden by it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import acptools


def test_a_package_named_server_beside_the_project_collides_with_nothing(tmp_path: Path) -> None:
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "__init__.py").write_text("MARK = 'the user’s own server package'\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    probe = (
        "import server, acptools_server, acptools;"
        "print(server.MARK); print(acptools_server.__name__, acptools_server.package_version() == acptools.__version__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["the user’s own server package", "acptools_server True"]
    version = subprocess.run(
        [sys.executable, "-m", "acptools_server", "--version"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert version.returncode == 0 and version.stdout.strip() == f"acptools-server {acptools.__version__}"


def test_acptools_serve_is_the_mcp_server_the_registry_entry_starts() -> None:
    """server.json starts `acptools serve` (registry clients run the package's main command): that
    command is the MCP server itself, answering over stdio with the server's version."""
    import json

    root = Path(__file__).resolve().parents[2]
    entry = json.loads((root / "server.json").read_text())["packages"][0]["packageArguments"][0]
    assert entry["type"] == "positional" and entry["value"] == "serve"
    cli = [sys.executable, "-m", "acptools.cli", "serve"]
    version = subprocess.run([*cli, "--version"], capture_output=True, text=True, timeout=120)
    assert version.returncode == 0 and version.stdout.strip() == f"acptools-server {acptools.__version__}"
    ping = '{"jsonrpc":"2.0","id":7,"method":"ping"}\n'
    out = subprocess.run([*cli, "--log-level", "WARNING"], input=ping, capture_output=True, text=True, timeout=120)
    assert json.loads(out.stdout.splitlines()[0]) == {"jsonrpc": "2.0", "id": 7, "result": {}}
