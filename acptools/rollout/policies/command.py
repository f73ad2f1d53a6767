"""`cmd:COMMAND`: a policy in any language, as a subprocess that reads one JSON observation per line
on stdin and writes one reply per line on stdout (its stderr passes through).

The command is split like a shell would (shlex) but run without a shell. Processes are started as
episodes need them (at most --jobs) and reused; every observation is self-contained (it carries
the episode id and the history), so any process can serve any episode. A process that dies, or
does not answer within the timeout, is stopped and replaced: that step's episode ends as
'policy-error'.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import subprocess

import anyio
from anyio.streams.buffered import BufferedByteReceiveStream

from ...errors import AcpError
from ..defaults import TIMEOUT
from .interface import FatalPolicyError, Policy, PolicyError, Reply

MAX_REPLY_BYTES = 1 << 20
STOP_SECONDS = 5  # a command gets this long to exit after its stdin closes


class _Worker:
    def __init__(self, process):
        self.process = process
        self.stdout = BufferedByteReceiveStream(process.stdout)

    async def ask(self, line: bytes) -> str:
        await self.process.stdin.send(line)
        return (await self.stdout.receive_until(b"\n", MAX_REPLY_BYTES)).decode("utf-8", "replace")

    async def stop(self) -> None:
        """Close its stdin (the sign to finish), wait a little, then kill it."""
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            await self.process.stdin.aclose()
        with anyio.move_on_after(STOP_SECONDS):
            await self.process.wait()
        if self.process.returncode is None:
            self.process.kill()
        await self.process.aclose()


class CommandPolicy(Policy):
    """A policy run as a command: each observation is a JSON line on its stdin, the reply a line on
    its stdout (a process per episode in flight, reused)."""

    def __init__(self, command: str, timeout: float = TIMEOUT):
        try:
            self.argv = shlex.split(command)
        except ValueError as e:
            raise AcpError(f"cannot split the command: {e}", f"--policy cmd:{command}") from None
        if not self.argv:
            raise AcpError("no command", "--policy cmd:", "e.g. --policy 'cmd:python my_agent.py'")
        self.name, self.timeout = f"cmd:{command}", timeout
        self.idle: list[_Worker] = []
        self.all: list[_Worker] = []

    async def _worker(self) -> _Worker:
        if self.idle:
            return self.idle.pop()
        try:
            process = await anyio.open_process(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None)
        except OSError as e:
            raise FatalPolicyError(
                f"cannot start {self.argv[0]!r}: {e.strerror or e}", f"--policy {self.name}"
            ) from None
        worker = _Worker(process)
        self.all.append(worker)
        return worker

    async def act(self, obs) -> Reply:
        """Send the observation to an idle process and read its reply line; raises PolicyError on a
        timeout or when the process ends first."""
        worker = await self._worker()
        line = (json.dumps(obs.to_json()) + "\n").encode()
        try:
            with anyio.fail_after(self.timeout):
                text = await worker.ask(line)
        except TimeoutError:
            await self._drop(worker)
            raise PolicyError(f"the command gave no reply within {self.timeout:g} s") from None
        except (
            anyio.EndOfStream,
            anyio.IncompleteRead,
            anyio.BrokenResourceError,
            anyio.ClosedResourceError,
            anyio.DelimiterNotFound,
        ) as e:
            await self._drop(worker)
            code = worker.process.returncode
            why = f"exited with code {code}" if code is not None else f"{type(e).__name__}"
            raise PolicyError(f"the command {why} before replying") from None
        self.idle.append(worker)
        return Reply(text.rstrip("\r\n"))

    async def _drop(self, worker: _Worker) -> None:
        self.all.remove(worker)
        with anyio.CancelScope(shield=True):
            await worker.stop()

    async def aclose(self) -> None:
        """Stop every process the policy started."""
        with anyio.CancelScope(shield=True):
            for worker in self.all:
                await worker.stop()
        self.all, self.idle = [], []
