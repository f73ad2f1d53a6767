"""Debian's chromium, headless, driven over the DevTools protocol on a pipe (--remote-debugging-pipe:
JSON messages ending in a NUL byte on file descriptors 3 and 4), so no port and no websocket library.

    with Chromium() as page:
        page.open(Path("report.html"))            # file:// URL, waits for the load event
        page.eval("document.title")
        page.type_into("#filter", "ferry")        # focus + Input.insertText: fires a real input event
        png = page.screenshot()                   # the viewport; screenshot("#id") one element
        page.errors                               # console errors and uncaught exceptions so far
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tests.support.load import slack

FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
    "--window-size=1280,900",
)


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Chromium:
    """One headless browser with one page; `errors` collects console errors and exceptions."""

    def __init__(self, timeout: float = 60.0):
        self.timeout = slack(timeout)  # seconds on a quiet machine, scaled by the load
        self.errors: list[str] = []
        self.events: list[dict] = []
        self._next = 0
        self._buf = b""

    def __enter__(self) -> Chromium:
        self._profile = tempfile.TemporaryDirectory(prefix="acptools-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def fds():  # the child reads commands on 3 and writes replies on 4 (copies above 10 first: a pipe
            # may already be 3 or 4, and dup2 onto itself would leave it closed on exec)
            a, b = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [chromium_path(), *FLAGS, f"--user-data-dir={self._profile.name}", "about:blank"],
            preexec_fn=fds,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.send(f"{domain}.enable", session=self.session)
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_child, self._from_child):
            os.close(fd)
        self._profile.cleanup()

    # ---- the protocol -----------------------------------------------------------------------------

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        """Send one command and wait for its reply (events that arrive meanwhile are kept)."""
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._event(reply)

    def _read(self) -> dict:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_child], [], [], left)[0]:
                raise TimeoutError(f"chromium did not answer within {self.timeout} s")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def _event(self, msg: dict) -> None:
        self.events.append(msg)
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.exceptionThrown":
            self.errors.append(json.dumps(params.get("exceptionDetails", {}))[:500])
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(" ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append(params["entry"].get("text", ""))

    # ---- the page ---------------------------------------------------------------------------------

    def open(self, path: Path) -> None:
        """Load a file and wait for its load event."""
        n = len(self.events)
        self.send("Page.navigate", {"url": Path(path).resolve().as_uri()}, session=self.session)
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events[n:]):
            self._event(self._read())

    def eval(self, expression: str):
        """The value of a JavaScript expression in the page."""
        res = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=self.session)
        if "exceptionDetails" in res:
            raise RuntimeError(f"{expression}: {res['exceptionDetails']}")
        return res["result"].get("value")

    def type_into(self, selector: str, text: str) -> None:
        """Focus an input, clear it, and type `text` as the keyboard would."""
        self.eval(f"(function(e){{e.focus(); e.select(); }})(document.querySelector({json.dumps(selector)}))")
        self.send("Input.insertText", {"text": text}, session=self.session)

    def screenshot(self, selector: str | None = None) -> bytes:
        """A PNG of the viewport, or of the first element `selector` matches (scrolled into view)."""
        params = {"format": "png"}
        if selector is not None:
            box = self.eval(
                f"(function(e){{e.scrollIntoView({{block: 'center'}}); var r = e.getBoundingClientRect();"
                f" return [r.x + window.scrollX, r.y + window.scrollY, r.width, r.height]; }})"
                f"(document.querySelector({json.dumps(selector)}))"
            )
            params["clip"] = dict(zip(("x", "y", "width", "height"), box), scale=1)
        data = self.send("Page.captureScreenshot", params, session=self.session)["data"]
        return base64.b64decode(data)
