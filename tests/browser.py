"""A real browser for the HTML report's test: Debian's Chromium, headless, started on
127.0.0.1 by the test (installed when absent, as Redis and HAProxy are) and stopped
by its PID, driven over the DevTools protocol: load a page, read its rendered text,
run a line of script, take a screenshot, and collect every console error and
uncaught exception the page raised."""

from __future__ import annotations

import base64
import itertools
import json
import re
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.request import urlopen

from websockets.sync.client import connect

from elicit_conformance.dev.services import installed

STARTUP = 30.0


class Page:
    def __init__(self, socket: Any) -> None:
        self._socket = socket
        self._ids = itertools.count(1)
        #: Console errors and uncaught exceptions, as the browser reported them.
        self.errors: list[str] = []
        self._events: list[dict[str, Any]] = []

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self._ids)
        self._socket.send(json.dumps({"id": number, "method": method, "params": params}))
        while True:
            message = json.loads(self._socket.recv(timeout=STARTUP))
            if message.get("id") == number:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._note(message)

    def _note(self, event: dict[str, Any]) -> None:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            self.errors.append(str(params.get("exceptionDetails", {}).get("exception", {}).get("description")
                                   or params.get("exceptionDetails", {}).get("text")))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(" ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append(str(params["entry"].get("text")))
        self._events.append(event)

    def open(self, url: str) -> None:
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self._events.clear()
        self.send("Page.navigate", url=url)
        deadline = time.monotonic() + STARTUP
        while not any(e.get("method") == "Page.loadEventFired" for e in self._events):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not load within {STARTUP} s")
            self._note(json.loads(self._socket.recv(timeout=STARTUP)))

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def text(self) -> str:
        """The page's text as rendered (`innerText`: what is shown, laid out)."""
        return str(self.evaluate("document.body.innerText"))

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"]))


@contextmanager
def chromium(profile: Path) -> Iterator[Page]:
    """A headless Chromium on a loopback DevTools port, with one page; stopped by PID."""
    binary = installed("chromium")
    profile.mkdir(parents=True, exist_ok=True)
    log = profile / "chromium.log"  # a file, not a pipe: a pipe nobody reads would fill and stall it
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-address=127.0.0.1",
             "--remote-debugging-port=0", f"--user-data-dir={profile}", "--window-size=1280,1600", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=stderr,
        )
    try:
        port = _devtools_port(process, log)
        with urlopen(f"http://127.0.0.1:{port}/json/list", timeout=STARTUP) as listing:
            (target,) = [t for t in json.load(listing) if t.get("type") == "page"]
        with connect(target["webSocketDebuggerUrl"], max_size=None, open_timeout=STARTUP) as socket:
            yield Page(socket)
    finally:
        process.kill()
        process.wait(timeout=STARTUP)


def _devtools_port(process: subprocess.Popen[bytes], log: Path) -> int:
    """The port Chromium chose, from the line it prints once it listens."""
    deadline = time.monotonic() + STARTUP
    while time.monotonic() < deadline and process.poll() is None:
        if found := re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", log.read_text(errors="replace")):
            return int(found.group(1))
        time.sleep(0.1)
    raise RuntimeError(f"Chromium did not open its DevTools port: {log.read_text(errors='replace')[-2000:]}")
