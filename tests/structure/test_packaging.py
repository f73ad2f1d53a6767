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
    probe = ("import server, acptools_server, acptools;"
             "print(server.MARK); print(acptools_server.__name__, acptools_server.package_version() == acptools.__version__)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["the user’s own server package", "acptools_server True"]
    version = subprocess.run([sys.executable, "-m", "acptools_server", "--version"], capture_output=True, text=True,
                             env=env, cwd=tmp_path, timeout=120)
    assert version.returncode == 0 and version.stdout.strip() == f"acptools-server {acptools.__version__}"
