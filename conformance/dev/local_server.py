"""Serving an ASGI app for real: uvicorn in a child process on 127.0.0.1.

The suite's own CI checks the reference over HTTP this way, and SEC-4 runs two
of them. The port is bound here and the listening socket handed to uvicorn
(`--fd`), so there is no window in which another process can take the port.
Only the process started here is ever stopped, by its PID.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

#: How long a server may take to import and start before it is called broken.
START_TIMEOUT = 60.0


class ServerFailed(Exception):
    """The server process exited or never answered; the message holds its log."""


class LocalServer:
    """`with LocalServer("elicit_conformance.reference.asgi:asgi") as server:` then use `server.url`."""

    def __init__(
        self, app: str, *, env: Mapping[str, str] | None = None, log: Path | None = None, port: int = 0
    ) -> None:
        self.app = app
        self.env = {**os.environ, **(env or {})}
        self.log = log
        #: 0: any free port. Given: that one (a restarted process behind a balancer that names it).
        self.port = port
        self.url = ""
        self._process: subprocess.Popen[bytes] | None = None
        self._log_file: int | None = None

    def __enter__(self) -> LocalServer:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        # uvicorn takes an --fd socket as AF_UNIX and so never sets TCP_NODELAY on
        # what it accepts; accepted sockets inherit it from the listener here.
        # Without it every reply on a kept-alive connection waits out the
        # client's delayed ACK (~40 ms).
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # A port given again after its process was killed may hold connections in TIME_WAIT.
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        port = self.port = listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/mcp"
        output = open(self.log, "ab") if self.log else subprocess.DEVNULL
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", self.app, "--fd", str(listener.fileno()),
                 "--log-level", "warning", "--no-access-log"],
                pass_fds=(listener.fileno(),),
                env=self.env,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        finally:
            listener.close()  # the child holds its own copy
            if output is not subprocess.DEVNULL:
                output.close()
        self._wait_until_serving(port)
        return self

    def _wait_until_serving(self, port: int) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        assert self._process is not None
        while time.monotonic() < deadline:
            if (code := self._process.poll()) is not None:
                self.stop()
                raise ServerFailed(f"{self.app} exited with {code}{self._tail()}")
            # The socket accepts at once (it is already listening); a reply
            # means the app finished its startup.
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as probe:
                    probe.sendall(b"GET /health-probe HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    if probe.recv(12).startswith(b"HTTP/1.1"):
                        return
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise ServerFailed(f"{self.app} did not answer within {START_TIMEOUT:.0f}s{self._tail()}")

    def _tail(self) -> str:
        if self.log and self.log.exists():
            return ":\n" + self.log.read_text(errors="replace")[-2000:]
        return ""

    def kill(self) -> None:
        """Stop at once (SIGKILL), as a crash would: requests in flight are cut off."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
