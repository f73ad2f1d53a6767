"""Build the Claude Desktop bundle `dist/acptools-<version>.mcpb` with the MCPB CLI (`mcpb validate`, `mcpb pack`).

The bundle holds mcpb/manifest.json, the icon, the launcher (plugin/: launch.py and its modules) and the package's own source (acptools/,
server/, pyproject.toml, README.md): Claude Desktop starts `python3 plugin/launch.py`, which builds a
private virtualenv from those files on the first start, as the Claude Code plugin does.

    python scripts/build_mcpb.py                # -> dist/acptools-0.1.0.mcpb
    python scripts/build_mcpb.py --out my.mcpb

The MCPB CLI comes from tools/node (package.json + lock; `npm ci --prefix tools/node` installs it, and
this script runs that when it is missing).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NODE_DIR = REPO / "tools" / "node"
PACKAGE_FILES = [
    "pyproject.toml",
    "README.md",
    "acptools",
    "server",
    "plugin/launch.py",
    "plugin/early_start.py",
    "plugin/private_venv.py",
    "plugin/handshake.json",
]
SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")


def mcpb_command() -> list[str]:
    """The pinned MCPB CLI from tools/node, installed from the lock file when missing."""
    binary = NODE_DIR / "node_modules" / ".bin" / "mcpb"
    if not binary.exists():
        if shutil.which("npm") is None:
            raise SystemExit("build_mcpb: npm (Node.js) is needed for the MCPB CLI; install Node.js, then rerun.")
        subprocess.run(["npm", "ci", "--prefix", str(NODE_DIR), "--no-audit", "--no-fund"], check=True)
    return [str(binary)]


def stage(folder: Path) -> Path:
    """Lay out the bundle's files in `folder`; return the manifest there."""
    for name in ("manifest.json", "icon.png"):
        shutil.copy2(REPO / "mcpb" / name, folder / name)
    for name in PACKAGE_FILES:
        source, target = REPO / name, folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=SKIPPED)
        else:
            shutil.copy2(source, target)
    return folder / "manifest.json"


def build(out: Path) -> Path:
    version = json.loads((REPO / "mcpb" / "manifest.json").read_text())["version"]
    out = out if out.is_absolute() else Path.cwd() / out
    out.parent.mkdir(parents=True, exist_ok=True)
    mcpb = mcpb_command()
    with tempfile.TemporaryDirectory(prefix="acptools-mcpb-") as tmp:
        manifest = stage(Path(tmp))
        subprocess.run([*mcpb, "validate", str(manifest)], check=True)
        subprocess.run([*mcpb, "pack", tmp, str(out)], check=True)
    print(f"built {out} (acptools {version})")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    version = json.loads((REPO / "mcpb" / "manifest.json").read_text())["version"]
    parser.add_argument(
        "--out",
        type=Path,
        default=REPO / "dist" / f"acptools-{version}.mcpb",
        help="where to write the bundle (default: dist/acptools-VERSION.mcpb)",
    )
    args = parser.parse_args(argv)
    try:
        build(args.out)
    except subprocess.CalledProcessError as exc:
        print(f"build_mcpb: `{' '.join(exc.cmd)}` failed with exit code {exc.returncode}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
