#!/usr/bin/env python3
"""Start `acptools-server` on a machine that has only Python 3: the Claude Code plugin's `.mcp.json` and
the Claude Desktop bundle run this file.

A start that finds the private venv ready (private_venv.py: it holds this acptools version) execs its
server at once. The first start builds the venv in a process of its own (it outlives a client that gives
up) and meanwhile answers the client itself (early_start.py): the MCP handshake and the tool list at once,
tool calls as soon as the server is up. Arguments are passed on to `acptools-server` (e.g. `--profile
policy`); a start with arguments other than the recorded handshake's waits for the build instead.
Everything the launcher says goes to stderr: stdout belongs to the MCP stream. Standard library only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from early_start import EarlyServer, snapshot_for  # noqa: E402
from private_venv import build_failure, is_ready, locked_build, plugin_version, start_build, venv_bin, venv_dir  # noqa: E402

BUILD_FLAG = "--build-venv"


def main() -> None:
    version, venv, args = plugin_version(), venv_dir(), sys.argv[1:]
    if args == [BUILD_FLAG]:
        return locked_build(venv, version)
    server = [str(venv_bin(venv, "acptools-server")), *args]
    if not is_ready(venv, version):
        builder = start_build(venv, version, Path(__file__).resolve(), BUILD_FLAG)

        def wait_for_venv() -> str | None:
            code = builder.wait()
            return None if code == 0 and is_ready(venv, version) else build_failure(venv, code)

        snapshot = snapshot_for(args)
        if snapshot is not None:
            raise SystemExit(EarlyServer(snapshot, server).serve(wait_for_venv))
        problem = wait_for_venv()
        if problem is not None:
            raise SystemExit(problem)
    if os.name == "nt":
        raise SystemExit(subprocess.call(server))
    os.execv(server[0], server)


if __name__ == "__main__":
    main()
