"""A real `acptools-openenv` server process on a free loopback port, for the OpenEnv tests and the
benchmark: started with its command line, ready once GET /health answers, stopped (and waited for)
on exit. Every wait is bounded; the bounds grow with the machine's load."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests.support.load import slack
from tests.support.server_procs import REPO, free_port, server_env


class OpenEnvServer:
    """`python -m acptools_openenv.server.app --port P ARGS...` with its log in `tmp`."""

    def __init__(self, tmp: Path, *args: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = tmp / f"openenv-{self.port}.log"
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "acptools_openenv.server.app", "--port", str(self.port), *args],
            cwd=REPO,
            env=server_env(tmp / "tmp"),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        self._wait_ready(slack(60))

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log_text()
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=2) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        self.close()
        raise AssertionError(f"the OpenEnv server did not answer /health within {timeout:.0f} s: {self.log_text()}")

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=slack(30))
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        self._log.close()

    def __enter__(self) -> OpenEnvServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
