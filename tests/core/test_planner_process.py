"""Waiting for an outside planner: its exit ends the wait at once (not at the next poll, which
would charge every short run up to a poll interval of wall time), a cancel still ends it, and where
the system gives no exit descriptor the polls still see the exit."""

from __future__ import annotations

import sys
import threading
import time

from acptools.budget import Budget
from acptools.planners import process
from tests.support.load import slack

SLEEPER = [sys.executable, "-c", "import sys, time; time.sleep(float(sys.argv[1]))"]


def test_a_planner_that_exits_ends_the_wait_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "FIRST_POLL_SECONDS", 30.0)  # a poll alone would wait 30 s
    monkeypatch.setattr(process, "POLL_SECONDS", 30.0)
    started = time.perf_counter()
    code, why = process.run(SLEEPER + ["0.2"], Budget(120), str(tmp_path))
    assert (code, why) == (0, "")
    assert time.perf_counter() - started < min(25, slack(3)), "the exit did not wake the wait"


def test_a_cancel_ends_the_wait_while_the_planner_runs(tmp_path, monkeypatch):
    monkeypatch.setattr(process, "FIRST_POLL_SECONDS", 30.0)
    monkeypatch.setattr(process, "POLL_SECONDS", 30.0)
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    started = time.perf_counter()
    code, why = process.run(SLEEPER + ["60"], Budget(120, cancel=cancel), str(tmp_path))
    assert code is None and why == "was cancelled"
    assert time.perf_counter() - started < min(25, slack(3))


def test_without_an_exit_descriptor_the_polls_see_the_exit(tmp_path, monkeypatch):
    def unsupported(pid):
        raise OSError("pidfd_open is not supported here")

    monkeypatch.setattr(process.os, "pidfd_open", unsupported)
    code, why = process.run(SLEEPER + ["0.05"], Budget(120), str(tmp_path))
    assert (code, why) == (0, "")
    code, why = process.run(SLEEPER + ["60"], Budget(0.3), str(tmp_path))
    assert code is None and why == "ran out of its budget"
