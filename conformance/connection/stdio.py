"""A stdio server run the way a desktop client runs one: started once, many calls.

A desktop client starts a server's process when it first needs it and keeps it
for the rest of its life; every call travels on that process. The suite does
the same: one process per client identity (the revision and the elicitation
modes declared, which the 2025 handshake fixes for a session's life), kept for
the run. Each case still opens connections of its own, each a `ClientSession`
with its own transcript, multiplexed onto the process:

- **ids**: every connection numbers its requests from a block of its own, so
  no id is used twice in the process's session (the MCP lifecycle forbids it)
  and a response finds its connection by its id alone;
- **the handshake**: a 2025-era session is initialized once, by its first
  connection; later connections adopt the result and carry that exchange at the
  head of their transcript, so a case reads the same on every transport;
- **memory**: an observation (`body_runs`) rides the process that served the
  call it observes, so a server that counts in memory is judged as in-process.

A process whose session is in a state nobody knows (a request left
unanswered, its output closed) is stopped; the next connection starts anew.

A process's stderr goes to a log file of its own (in the report directory, or
a temporary one), so banners and tracebacks never mix with pytest's progress;
a failing case quotes what its processes wrote while it ran. Until a process
first answers, it is still starting: its first request is timed by the
start-up allowance, not by the per-request timeout.

Each case runs its own event loop, so nothing here outlives one: the pipes are
raw non-blocking file descriptors, read in whichever loop the current
connections live in, and bytes read but not yet delivered wait on the process.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import subprocess
import tempfile
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from fastmcp.client.transports.base import ClientTransport, SessionKwargs, TransportOptions
from mcp import ClientSession
from mcp.shared.message import SessionMessage
from typing_extensions import Unpack

from .client import Client

#: Request ids per connection: connection n numbers its requests n*BLOCK+1, n*BLOCK+2, ...
BLOCK = 1_000_000
#: Seconds a process is given to exit once its stdin closes, then once terminated.
EXIT_GRACE = 2.0

@dataclass
class Handshake:
    """The exchange that opened a process's 2025-era session, and its result."""

    messages: list[tuple[str, dict[str, Any]]]
    result: mcp_types.InitializeResult


@dataclass(eq=False)
class _Route:
    """One connection's end of the process: where its messages are delivered."""

    block: int
    inbox: MemoryObjectSendStream[SessionMessage | Exception]
    #: Its requests the server has not answered yet.
    waiting: set[int] = field(default_factory=set)


class ServerProcess:
    """One server process and the connections currently riding it."""

    def __init__(self, argv: tuple[str, ...], env: Mapping[str, str], log: Path) -> None:
        # stderr goes to the process's own log, as a desktop client keeps a server's log.
        self.log = log
        with log.open("ab") as stderr:
            self._popen = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                           env=dict(env))
        assert self._popen.stdin is not None and self._popen.stdout is not None
        self._stdin = self._popen.stdin.fileno()
        self._stdout = self._popen.stdout.fileno()
        os.set_blocking(self._stdin, False)
        os.set_blocking(self._stdout, False)
        self._unread = b""
        self._blocks = itertools.count(1)
        self._routes: list[_Route] = []
        self._write_lock: anyio.Lock | None = None
        #: Set by the first 2025-era connection; later ones adopt it.
        self.handshake: Handshake | None = None
        #: False once the session may be in an unknown state: no new connection rides it.
        self.usable = True
        #: False until the process first writes to stdout: while it is starting up.
        self.answered = False

    @contextlib.asynccontextmanager
    async def connection(
        self,
    ) -> AsyncIterator[tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage], int]]:
        """A connection's streams, and the id its requests count on from."""
        inbox, reads = anyio.create_memory_object_stream[SessionMessage | Exception](math.inf)
        writes, outbox = anyio.create_memory_object_stream[SessionMessage](0)
        route = _Route(next(self._blocks), inbox)
        # The first connection in this event loop reads for all that join it.
        reader = not self._routes
        if reader:
            self._write_lock = anyio.Lock()
        self._routes.append(route)
        try:
            async with anyio.create_task_group() as group:
                if reader:
                    group.start_soon(self._read)
                group.start_soon(self._write, outbox, route)
                try:
                    yield reads, writes, route.block * BLOCK
                finally:
                    group.cancel_scope.cancel()
        finally:
            self._routes.remove(route)
            inbox.close()
            if route.waiting:
                self.usable = False  # an answer may still arrive for a connection that is gone
            if reader and self._routes:
                self.usable = False  # nobody reads for the connections still open
                for other in self._routes:
                    other.inbox.close()
            if not self.usable and not self._routes:
                self.stop()

    async def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self._stdout, 1 << 16)
            except BlockingIOError:
                await anyio.wait_readable(self._stdout)
                continue
            if not chunk:
                self._lost()
                return
            self.answered = True
            self._unread += chunk
            while b"\n" in self._unread:
                line, _, self._unread = self._unread.partition(b"\n")
                if line.strip():
                    self._deliver(_parse(line))

    def _deliver(self, item: SessionMessage | Exception) -> None:
        """Hand a message to its connection; a reply for one that is gone is dropped."""
        message = getattr(item, "message", None)
        if isinstance(message, (mcp_types.JSONRPCResponse, mcp_types.JSONRPCError)) and isinstance(message.id, int):
            route = next((r for r in self._routes if r.block == message.id // BLOCK), None)
            if route is not None:
                route.waiting.discard(message.id)
        else:
            # A server request (elicitation/create) or notification belongs to a call
            # in flight: the newest connection waiting on one, else the newest open.
            waiting = [r for r in self._routes if r.waiting]
            route = (waiting or self._routes or [None])[-1]
        if route is not None:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                route.inbox.send_nowait(item)

    async def _write(self, outbox: MemoryObjectReceiveStream[SessionMessage], route: _Route) -> None:
        assert self._write_lock is not None
        async for item in outbox:
            if isinstance(item.message, mcp_types.JSONRPCRequest) and isinstance(item.message.id, int):
                route.waiting.add(item.message.id)
            data = item.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
            async with self._write_lock:
                try:
                    await self._send(data)
                except OSError:  # the process closed its stdin: it is gone
                    self._lost()
                    return

    async def _send(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._stdin, view):]
            except BlockingIOError:
                await anyio.wait_writable(self._stdin)

    def _lost(self) -> None:
        """The process's output or input closed: every connection on it ends."""
        self.usable = False
        for route in self._routes:
            route.inbox.close()

    def stop(self) -> None:
        """Close stdin, as the MCP lifecycle says a client ends a stdio session; then terminate, then kill."""
        self.usable = False
        popen = self._popen
        for pipe in (popen.stdin, popen.stdout):
            with contextlib.suppress(OSError):
                pipe.close()  # type: ignore[union-attr]
        try:
            popen.wait(timeout=EXIT_GRACE)
        except subprocess.TimeoutExpired:
            popen.terminate()
            try:
                popen.wait(timeout=EXIT_GRACE)
            except subprocess.TimeoutExpired:
                popen.kill()
                popen.wait()


def _parse(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as error:  # the session reports it, as the SDK's stdio client does
        return error


class StdioServers:
    """A stdio target's processes for one run, one per client identity."""

    def __init__(self, argv: tuple[str, ...], env: Mapping[str, str] | None = None) -> None:
        self.argv = argv
        self.env = dict(os.environ if env is None else env)
        self._processes: dict[Client, ServerProcess] = {}
        #: Every process ever started, so a test can count them.
        self.started = 0
        #: Where each process's stderr log goes (`use_log_directory`; else a temporary one).
        self.log_directory: Path | None = None
        #: Seconds a process may take to answer its first request (`--conformance-startup`).
        self.startup: float | None = None

    def use_log_directory(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.log_directory = directory

    def process(self, identity: Client) -> ServerProcess:
        """The process for `identity`, started now if there is none it can ride."""
        process = self._processes.get(identity)
        if process is None or not process.usable:
            if self.log_directory is None:
                self.log_directory = Path(tempfile.mkdtemp(prefix="elicit-stdio-"))
            self.started += 1
            # One worker's processes never write another's log.
            log = self.log_directory / f"stdio-{os.getpid()}-{self.started}.log"
            process = self._processes[identity] = ServerProcess(self.argv, self.env, log)
        return process

    def log_marks(self) -> dict[Path, int]:
        """How far each log has been written: what a case's failure quotes starts here."""
        logs = sorted(self.log_directory.glob(f"stdio-{os.getpid()}-*.log")) if self.log_directory else []
        return {log: log.stat().st_size for log in logs}

    def stderr_since(self, marks: dict[Path, int], lines: int = 20) -> str:
        """The last `lines` lines the processes wrote to stderr since `marks`, each under its log's name."""
        quoted = []
        for log, size in self.log_marks().items():
            with log.open("rb") as text:
                text.seek(marks.get(log, 0))
                written = text.read(max(0, size - marks.get(log, 0))).decode(errors="replace").splitlines()
            if written:
                quoted += [f"{log}:", *written[-lines:]]
        return "\n".join(quoted)

    def transport(self, client: Client) -> SharedStdioTransport:
        return SharedStdioTransport(self, client.identity)

    def close(self) -> None:
        for process in self._processes.values():
            process.stop()
        self._processes.clear()


class SharedStdioTransport(ClientTransport):
    """One connection on the process of its identity (see the module docstring)."""

    def __init__(self, servers: StdioServers, identity: Client) -> None:
        self.servers = servers
        self.identity = identity
        self._process: ServerProcess | None = None

    @property
    def starting(self) -> bool:
        """The process this connection rides has not answered anything yet."""
        return self._process is not None and not self._process.answered

    @property
    def handshake(self) -> Handshake | None:
        """The handshake of the process this connection rides, once there is one."""
        return self._process.handshake if self._process else None

    @handshake.setter
    def handshake(self, value: Handshake) -> None:
        assert self._process is not None
        self._process.handshake = value

    @contextlib.asynccontextmanager
    async def connect_session(
        self, *, transport_options: TransportOptions | None = None, **session_kwargs: Unpack[SessionKwargs]
    ) -> AsyncIterator[ClientSession]:
        options = transport_options or TransportOptions()
        self._process = self.servers.process(self.identity)
        async with self._process.connection() as (reads, writes, first_id), \
                options.session_class(reads, writes, **session_kwargs) as session:
            _number_from(session, first_id)
            yield session

    def __repr__(self) -> str:
        return f"<SharedStdioTransport {' '.join(self.servers.argv)!r} {self.identity}>"


def _number_from(session: ClientSession, first_id: int) -> None:
    """Make the session's next request id `first_id + 1` (private API of mcp 2.3)."""
    dispatcher = getattr(session, "_dispatcher", None)
    if not isinstance(getattr(dispatcher, "_next_id", None), int):
        raise RuntimeError(
            "this mcp release numbers requests differently from mcp 2.3: the shared stdio "
            "connection cannot keep ids unique. Pin mcp>=2.3,<3, as elicit-conformance does."
        )
    dispatcher._next_id = first_id  # type: ignore[union-attr]
