"""Real programs the tests and the deployment bench run next to the reference:
`redis-server` (one task store shared by several processes), HAProxy (the load
balancer in front of them, configured by docs/haproxy.cfg, the example
docs/stateless.md ships), and Chromium (the HTML report's test; `installed`).

Each is started on 127.0.0.1 on a port of its own and stopped by its PID. When
one is absent it is installed from Debian's registry (as root, which CI is), so
the README's test command needs nothing set up by hand; a test that cannot get
or start one fails saying what is missing, never skips.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

ROOT = Path(__file__).resolve().parents[2]
HAPROXY_CONFIG = ROOT / "docs" / "haproxy.cfg"
#: How long a service may take to answer on its port.
START_TIMEOUT = 20.0


class Service:
    """A child process listening on 127.0.0.1:`port`, ready once `ready(port)` holds."""

    package = ""

    def __init__(self, log: Path, port: int | None = None) -> None:
        self.log = log
        #: Given: the same port again (a restart where clients and balancers expect it).
        self.port = port or _free_port()
        self._process: subprocess.Popen[bytes] | None = None

    def command(self, binary: str) -> list[str]:
        raise NotImplementedError

    def environment(self) -> Mapping[str, str]:
        return {}

    def ready(self) -> bool:
        return _accepts(self.port)

    def __enter__(self) -> Service:
        binary = installed(self.package)
        with open(self.log, "wb") as output:
            self._process = subprocess.Popen(
                self.command(binary), stdout=output, stderr=subprocess.STDOUT,
                env={**os.environ, **self.environment()},
            )
        deadline = time.monotonic() + START_TIMEOUT
        while not self.ready():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self._stop()
                raise RuntimeError(f"{self.package} on port {self.port} did not start: {self.log.read_text()[-2000:]}")
            time.sleep(0.05)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self._stop()

    def kill(self) -> None:
        """Stop at once (SIGKILL), as a crash would: nothing is flushed or closed cleanly."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()

    def _stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()


class RedisServer(Service):
    """`with RedisServer(log) as redis:` then give servers `redis.url` as FASTMCP_DOCKET_URL.

    With `data`, it persists there: every write goes to its append-only file before it
    is acknowledged (`appendfsync always`), so a Redis restarted on the same `data` and
    port has every task a client was told of. Without, nothing survives a restart.
    """

    package = "redis-server"

    def __init__(self, log: Path, port: int | None = None, data: Path | None = None) -> None:
        super().__init__(log, port)
        self.data = data

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def command(self, binary: str) -> list[str]:
        base = [binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", ""]
        if self.data is None:
            return [*base, "--appendonly", "no"]
        self.data.mkdir(parents=True, exist_ok=True)
        return [*base, "--dir", str(self.data), "--appendonly", "yes", "--appendfsync", "always"]

    def ready(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as connection:
                connection.sendall(b"PING\r\n")
                return connection.recv(16).startswith(b"+PONG")
        except OSError:
            return False


@dataclass(frozen=True)
class Routed:
    """One request as HAProxy's log line tells it (see docs/haproxy.cfg's log-format)."""

    server: str
    method: str | None
    continuation: bool
    task: str | None


class HAProxy(Service):
    """`with HAProxy(log, backends) as balancer:` then point clients at `balancer.url`."""

    package = "haproxy"

    def __init__(self, log: Path, backends: list[str]) -> None:
        super().__init__(log)
        if len(backends) != 2:
            raise ValueError("docs/haproxy.cfg has two server lines")
        self.backends = [b.removeprefix("http://").split("/")[0] for b in backends]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def command(self, binary: str) -> list[str]:
        return [binary, "-db", "-f", str(HAPROXY_CONFIG)]

    def environment(self) -> Mapping[str, str]:
        return {"ELICIT_FRONTEND": f"127.0.0.1:{self.port}",
                "ELICIT_BACKEND_1": self.backends[0], "ELICIT_BACKEND_2": self.backends[1]}

    def routed(self) -> list[Routed]:
        """Every request HAProxy has logged so far (it logs each when it ends)."""
        requests = []
        for line in self.log.read_text().splitlines():
            fields = line.split(" ")
            if len(fields) == 4 and fields[0] in ("one", "two"):
                _, method, state, task = (None if f == "-" else f for f in fields)
                requests.append(Routed(fields[0], method, state not in (None, "0"), task))
        return requests


def installed(package: str) -> str:
    """The path of `package`'s program, installing the Debian package if need be."""

    def find() -> str | None:  # a root-only program (haproxy) may be off a user's PATH
        return shutil.which(package) or shutil.which(f"/usr/sbin/{package}")

    found = find()
    if found is None and shutil.which("apt-get") and os.geteuid() == 0:
        install = ["apt-get", "install", "-y", "--no-install-recommends", package]
        if subprocess.run(install, capture_output=True).returncode != 0:  # package lists not fetched yet
            subprocess.run(["apt-get", "update"], capture_output=True)
            subprocess.run(install, capture_output=True)
        found = find()
    if found is None:
        raise RuntimeError(
            f"{package} is not installed and could not be installed: the tests that use it need a real "
            f"one (Debian: apt-get install {package}, as root)"
        )
    return found


def _free_port() -> int:
    # The service binds its own socket: a port just released is the best on offer.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
