"""A headless Chromium driven over the DevTools protocol through a pipe: no websocket, no driver.

``--remote-debugging-pipe`` makes Chromium read protocol commands from file
descriptor 3 and write replies and events to descriptor 4, each message a JSON
object ended by a NUL byte.  That is all the tests need (open a page, collect
console errors, press keys, click, take a screenshot), with nothing to install
besides Debian's ``chromium`` package: lighter than selenium plus chromedriver,
and no port to find or race for.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
    "--window-size=1200,900",
]


def find_chromium() -> str | None:
    """The Chromium binary on PATH (Debian calls it ``chromium``), or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless Chromium with one page; ``errors`` collects console errors and exceptions."""

    def __init__(self, binary: str, profile: Path, timeout: float = 60.0) -> None:
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def plumb() -> None:  # in the child: the pipe ends become descriptors 3 and 4
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.timeout = timeout
        self.proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            preexec_fn=plumb,  # single-threaded test process
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next_id = 0
        self._session: str | None = None
        self.errors: list[str] = []
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    # ------------------------------------------------------------ protocol
    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_chrome], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError(f"Chromium closed the pipe (exit status {self.proc.poll()})")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        if "method" in message:
            self._note(message)
        return message

    def _note(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console: " + " ".join(str(a.get("value", a)) for a in params["args"]))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.errors.append("exception: " + details.get("exception", {}).get("description", str(details)))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            entry = params["entry"]
            where = f" ({entry['url']})" if entry.get("url") else ""
            self.errors.append("log: " + entry.get("text", "") + where)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command and return its result (raising on a protocol error)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self._session is not None:
            message["sessionId"] = self._session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result

    def wait_for(self, method: str) -> dict[str, Any]:
        """Wait for the next event called ``method``."""
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._receive(deadline)
            if message.get("method") == method:
                return message

    # ------------------------------------------------------------- actions
    def open(self, path: Path) -> None:
        """Load a local file and wait for its load event."""
        self.goto(path.resolve().as_uri())

    def goto(self, url: str) -> None:
        """Load an address (a test server's page) and wait for its load event."""
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def wait_until(self, expression: str, seconds: float = 20.0) -> Any:
        """Poll a JavaScript expression until it is truthy; its value (TimeoutError after ``seconds``).

        An expression that throws counts as not yet true: a page still loading has no
        ``document.body`` for a moment, and on a busy machine (the suite runs in parallel)
        a poll can land in that moment.  The last error is in the timeout's message.
        """
        deadline = time.monotonic() + seconds
        while True:
            error = None
            try:
                value = self.evaluate(expression)
            except RuntimeError as exc:
                value, error = None, exc
            if value:
                return value
            if time.monotonic() > deadline:
                last = f"; last error: {error}" if error else ""
                raise TimeoutError(f"{expression} stayed false for {seconds} s{last}")
            time.sleep(0.01)

    def click(self, selector: str) -> None:
        """A real mouse click (press and release) on the first element matching ``selector``."""
        find = f"document.querySelector({json.dumps(selector)})"
        box = self.evaluate(  # the first line box: a link that wraps has a gap at its bounding box's middle
            f"(() => {{ const e = {find}; e.scrollIntoView({{block: 'center'}});"
            " const r = e.getClientRects()[0]; return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def type(self, selector: str, text: str) -> None:
        """Replace the value of the input matching ``selector`` by typing ``text`` (real key input)."""
        find = f"document.querySelector({json.dumps(selector)})"
        self.evaluate(f"(() => {{ const e = {find}; e.focus(); e.select(); }})()")
        self.call("Input.insertText", text=text)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def press(self, key: str, code: int) -> None:
        """A real key press (down and up) sent to the page."""
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code)

    def screenshot(self) -> bytes:
        """The page as PNG bytes."""
        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])

    def close(self) -> None:
        """End Chromium (the test started it; nothing else is touched)."""
        self._session = None  # Browser.close is a browser-level command
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.call("Browser.close")
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)
