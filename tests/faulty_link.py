"""A TCP proxy that breaks connections, seeded: what a network or a dying process
does to an HTTP server's answers, below anything the server itself sends.

`tests.misbehaving` garbles well-framed messages; this breaks their transport. Each
chunk of a response that passes through may be, now and then:

- `reset`: the connection is aborted (TCP RST) instead;
- `truncate`: half of it is sent, then the connection closes;
- `delay`: it is held past the suite's timeout, then sent;
- `duplicate`: it is sent twice;

and a new connection may be `refuse`d: it is aborted and the port stops listening
for a moment, so the next connections are refused. The handshake's and the tool
list's answers pass untouched (as in `tests.misbehaving`: a target the suite cannot
first reach gets one usage error, which proves nothing about the cases).

    python -m tests.faulty_link FD UPSTREAM_PORT

serves on the listening socket FD (bound by the caller: no port race) and relays to
127.0.0.1:UPSTREAM_PORT. `MISBEHAVE_SEED`, `MISBEHAVE_RATE` (default 0.03) and
`MISBEHAVE_LOG` as in `tests.misbehaving`.
"""

from __future__ import annotations

import asyncio
import os
import random
import socket
import struct
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

#: The acts on a response chunk, with how often (a delay costs a timeout).
ACTS = {"reset": 3, "truncate": 3, "delay": 1, "duplicate": 2}
#: The share of new connections refused, and for how long the port then stays closed.
REFUSE_RATE = 0.005
REFUSE_FOR = 0.1
#: Longer than the suite's timeout in tests/test_misbehaving.py (0.8 s): a delayed answer is late.
DELAY = 1.2
#: Answers no act touches: the first reach (capabilities) and the tool list.
UNTOUCHED = (b'"capabilities"', b'"tools":[')
#: Connections accepted before any may be refused: the suite's first reach of the target.
FIRST = 8


class Link:
    def __init__(self, listener: socket.socket, upstream: int) -> None:
        self.listener = listener
        self.port = listener.getsockname()[1]
        self.upstream = upstream
        self.random = random.Random(f"{os.environ.get('MISBEHAVE_SEED', '0')}-link")
        self.rate = float(os.environ.get("MISBEHAVE_RATE", "0.03"))
        self.log = os.environ.get("MISBEHAVE_LOG")
        self.accepted = 0
        self.server: asyncio.base_events.Server | None = None

    def note(self, act: str, data: bytes) -> None:
        if self.log:
            with open(self.log, "a") as out:
                out.write(f"{act} {data[:120]!r}\n")

    def chunk_act(self, data: bytes) -> str | None:
        if any(mark in data for mark in UNTOUCHED) or self.random.random() >= self.rate:
            return None
        act = self.random.choices(list(ACTS), list(ACTS.values()))[0]
        self.note(act, data)
        return act

    async def serve(self) -> None:
        self.server = await asyncio.start_server(self.accept, sock=self.listener)
        await asyncio.Event().wait()

    async def refuse(self) -> None:
        """Stop listening for a moment, then listen again on the same port."""
        assert self.server is not None
        self.server.close()
        await asyncio.sleep(REFUSE_FOR)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        self.server = await asyncio.start_server(self.accept, sock=listener)

    async def accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        if self.accepted > FIRST and self.random.random() < REFUSE_RATE:
            self.note("refuse", b"")
            abort(writer)
            await self.refuse()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        except OSError:
            abort(writer)
            return
        inbound = asyncio.create_task(pump(reader, up_writer))
        try:
            while data := await up_reader.read(65536):
                act = self.chunk_act(data)
                if act == "reset":
                    abort(writer)
                    break
                if act == "truncate":
                    writer.write(data[: len(data) // 2])
                    await writer.drain()
                    break
                if act == "delay":  # the suite's clock runs out first: "timed out"
                    await asyncio.sleep(DELAY)
                writer.write(data * (2 if act == "duplicate" else 1))
                await writer.drain()
        except OSError:
            pass
        finally:
            inbound.cancel()
            up_writer.close()
            writer.close()


async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


def abort(writer: asyncio.StreamWriter) -> None:
    """Close with a TCP RST, as a killed process's connection ends."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class FaultyLink:
    """`with FaultyLink(upstream_url, env) as link:` then use `link.url`: the proxy in a
    child process, stopped by its PID."""

    def __init__(self, upstream: str, env: Mapping[str, str], log: Path) -> None:
        self.upstream = int(upstream.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
        self.env = {**os.environ, **env}
        self.log = log
        self.url = ""
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> FaultyLink:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)
        self.url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        with open(self.log, "wb") as output:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "tests.faulty_link", str(listener.fileno()), str(self.upstream)],
                pass_fds=(listener.fileno(),), env=self.env, stdout=output, stderr=subprocess.STDOUT)
        listener.close()  # the child holds its own copy, already listening
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()


if __name__ == "__main__":
    fd, upstream = int(sys.argv[1]), int(sys.argv[2])
    asyncio.run(Link(socket.socket(fileno=fd), upstream).serve())
