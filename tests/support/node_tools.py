"""The MCP clients' own tools for the tests, from the project's tools/node/package.json and its lock:
Claude Code (`claude`), the MCPB CLI (`mcpb`) and the MCP Inspector (`mcp-inspector`).

`node_bin(name)` installs them once (`npm ci --prefix tools/node`, which needs the npm registry the first
time) and returns the binary's path. Tests skip only when node/npm are absent (`NO_NODE` says why); a
failing `npm ci` fails the test, since it is the project's own install step.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NODE_DIR = REPO / "tools" / "node"
NODE_MISSING = shutil.which("node") is None or shutil.which("npm") is None
NO_NODE = "node/npm (Node.js) is not installed: the MCP clients' own tools (tools/node/package.json) cannot run"


@cache
def installed() -> Path:
    """tools/node/node_modules/.bin, installed from the lock file when it is missing or stale."""
    bin_dir = NODE_DIR / "node_modules" / ".bin"
    stamp = NODE_DIR / "node_modules" / ".package-lock.json"  # npm writes it on every install
    with open(NODE_DIR / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # pytest-xdist workers or two sessions: one installs
        lock_file = NODE_DIR / "package-lock.json"
        if not stamp.exists() or stamp.stat().st_mtime < lock_file.stat().st_mtime:
            done = subprocess.run(
                ["npm", "ci", "--prefix", str(NODE_DIR), "--no-audit", "--no-fund"],
                capture_output=True,
                text=True,
                timeout=900,
                stdin=subprocess.DEVNULL,
            )
            assert done.returncode == 0, f"npm ci --prefix {NODE_DIR} failed:\n{done.stdout}\n{done.stderr}"
    return bin_dir


def node_bin(name: str) -> str:
    path = installed() / name
    assert path.exists(), f"{path} is missing after npm ci: is {name} in tools/node/package.json?"
    return str(path)
