"""`acptools serve [SERVER OPTIONS]`: the MCP server, for launchers that start a package's main command
(`uvx acptools serve`, the MCP registry's entry in server.json). The same as `acptools-server`: this
process becomes the server (`python -m acptools_server`), so stdio passes straight through."""

from __future__ import annotations

import argparse
import os
import sys


def add_parser(sub):
    """Register `acptools serve` (its options are the server's: `acptools serve --help`)."""
    s = sub.add_parser(
        "serve", help="run the MCP server (the same as acptools-server; options go to the server)", add_help=False
    )
    s.add_argument("server_args", nargs=argparse.REMAINDER, help="the options of acptools-server")
    return s


def start(server_args: list[str]) -> int:
    """Become the MCP server with these options (does not return unless exec fails)."""
    os.execv(sys.executable, [sys.executable, "-m", "acptools_server", *server_args])
    return 2  # pragma: no cover - execv returns only by raising


def run(args) -> int:
    """Run the server with the options after `serve`."""
    return start(args.server_args)
