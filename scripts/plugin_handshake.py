"""Record what the MCP server answers a connecting client into plugin/handshake.json, the answers the
plugin's launcher gives at once on a first start while its venv builds (plugin/early_start.py).

    python scripts/plugin_handshake.py            # rewrite plugin/handshake.json from the server
    python scripts/plugin_handshake.py --check    # exit 1 when the file differs from the server's answers

The server runs as the launcher starts it (no arguments) in a process of its own, spoken to over stdio
as a client would: `initialize`, then the lists of tools, prompts, resources and resource templates.
Rerun it after changing a tool's name, description or schema, the instructions or the resources (the
tests run --check).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HANDSHAKE = REPO / "plugin" / "handshake.json"
LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")


def handshake_versions() -> list[str]:
    """The protocol versions the installed MCP SDK's server accepts in `initialize`."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    return list(HANDSHAKE_PROTOCOL_VERSIONS)


def record(args: list[str] | None = None) -> dict:
    """The server's answers to a client's handshake and list requests, as the launcher replays them."""
    versions = handshake_versions()
    server = subprocess.Popen(
        [sys.executable, "-m", "acptools_server", *(args or [])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )

    def ask(request_id: int, method: str, params: dict) -> dict:
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}) + "\n")
        server.stdin.flush()
        answer = json.loads(server.stdout.readline())
        if "result" not in answer:
            raise SystemExit(f"plugin_handshake: the server answered {method} with {answer}")
        return answer["result"]

    try:
        init = ask(
            0,
            "initialize",
            {
                "protocolVersion": versions[-1],
                "capabilities": {},
                "clientInfo": {"name": "plugin_handshake", "version": "1"},
            },
        )
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        lists = {method: ask(n, method, {}) for n, method in enumerate(LISTS, start=1)}
    finally:
        server.stdin.close()
        server.wait(timeout=60)
    init.pop("protocolVersion")
    return {"args": args or [], "protocolVersions": versions, "initialize": init, "lists": lists}


def differences(recorded: dict, live: dict) -> list[str]:
    """Which parts of the recorded file differ from the server's answers."""
    parts = [key for key in ("args", "protocolVersions", "initialize") if recorded.get(key) != live[key]]
    return parts + [m for m in LISTS if recorded.get("lists", {}).get(m) != live["lists"][m]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 when the file is stale")
    check = parser.parse_args(argv).check
    live = record()
    if check:
        recorded = json.loads(HANDSHAKE.read_text(encoding="utf-8")) if HANDSHAKE.exists() else {}
        stale = differences(recorded, live)
        if stale:
            print(
                f"{HANDSHAKE.relative_to(REPO)} differs from the server in {', '.join(stale)}: "
                f"run python scripts/plugin_handshake.py",
                file=sys.stderr,
            )
            return 1
        print(f"{HANDSHAKE.relative_to(REPO)} matches the server")
        return 0
    HANDSHAKE.write_text(json.dumps(live, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {HANDSHAKE.relative_to(REPO)} ({len(live['lists']['tools/list']['tools'])} tools)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
