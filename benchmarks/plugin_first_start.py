"""The Claude Code plugin's first start, timed in a fresh HOME: the launcher that answers the handshake
from plugin/handshake.json while its venv builds, beside the same launcher without that file (it then
waits for the build before the server answers, as it did before the file existed).

    python benchmarks/plugin_first_start.py [--variants early waiting]

For each variant: `claude plugin marketplace add` + `install` from a copy of this tree, then the first
`claude mcp list` with Claude Code's default wait (30 s), what it says and how long it took; the seconds
until the venv is built; and a second `claude mcp list`. Each variant builds a venv from the package
index (about 600 MB, a minute or two of both cores), so run it on a machine you may load.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.plugin.test_plugin_clients import install_plugin, timed_mcp_list  # noqa: E402


def status(line: str) -> str:
    return next((s for s in ("✔ Connected", "! Connected", "✘ Failed to connect") if s in line), line)


def first_start(variant: str, folder: Path) -> dict[str, object]:
    """Install, time the first and second `claude mcp list` and the build in between."""
    user, work = install_plugin(folder)
    if variant == "waiting":  # Claude Code runs a local marketplace's plugin from its folder
        (folder / "acptools" / "plugin" / "handshake.json").unlink()
    started = time.monotonic()
    first, first_seconds = timed_mcp_list(user, work)
    markers = folder / "home" / ".claude" / "plugins" / "data"
    while not any('"ready": true' in m.read_text() for m in markers.glob("*/venv/acptools-plugin.json")):
        if time.monotonic() - started > 1800:
            raise SystemExit(f"{variant}: the venv was not built within 30 minutes; see {markers}")
        time.sleep(1)
    built = time.monotonic() - started
    second, second_seconds = timed_mcp_list(user, work)
    return {
        "variant": variant,
        "first": status(first),
        "first_s": first_seconds,
        "built_s": built,
        "second": status(second),
        "second_s": second_seconds,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="+", choices=["early", "waiting"], default=["early", "waiting"])
    args = parser.parse_args(argv)
    print(
        f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; no uv on PATH: {not any(Path(p, 'uv').exists() for p in os.environ['PATH'].split(os.pathsep))}"
    )
    print(f"{'variant':<9} {'first claude mcp list':<28} {'venv built after':>16} {'second claude mcp list':<28}")
    for variant in args.variants:
        with tempfile.TemporaryDirectory(prefix=f"acptools-first-start-{variant}-") as tmp:
            r = first_start(variant, Path(tmp))
        print(
            f"{r['variant']:<9} {r['first']:<20} {r['first_s']:>6.1f} s {r['built_s']:>14.0f} s "
            f"{r['second']:<20} {r['second_s']:>6.1f} s"
        )
    print(f"load {os.getloadavg()[0]:.1f} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())
