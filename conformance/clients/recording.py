"""Everything a client and a scenario server say to each other over streamable HTTP, as
the case's transcript: an ASGI wrapper around the server, so the server may be raw (the
scripted rounds of 2026-07-28) or a real one (fastmcp, for the handshake era's open calls)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from elicit_conformance.connection.wire import Transcript


@dataclass(eq=False)
class Recording:
    """`server`, with every JSON-RPC message both ways copied into `transcript` as it
    passes (a streamed answer message by message), and, by the message's place there, what
    the transcript has no room for: when it passed, and the HTTP headers a client's came with
    (a tasks/* request's routing header, CLI-17; the time a poll waited, CLI-20)."""

    server: Any
    transcript: Transcript = field(default_factory=Transcript)
    #: By the message's index in the transcript: `time.monotonic()` as it passed.
    times: dict[int, float] = field(default_factory=dict)
    #: By the client message's index in the transcript: its request's headers, names lower-cased.
    headers: dict[int, dict[str, str]] = field(default_factory=dict)

    def header(self, message: dict[str, Any], name: str) -> str | None:
        """The header `name` (lower case) the client's `message` was posted with, or None."""
        return self.headers.get(self._index(message), {}).get(name)

    def time_of(self, message: dict[str, Any]) -> float:
        """When `message` (either way) passed, in `time.monotonic()` seconds."""
        return self.times[self._index(message)]

    def _index(self, message: dict[str, Any]) -> int:
        return next(i for i, (_, m) in enumerate(self.transcript.messages) if m is message)

    def record(self, direction: str, message: dict[str, Any]) -> None:
        self.times[len(self.transcript.messages)] = time.monotonic()
        self.transcript.messages.append((direction, message))

    def calls(self, tool: str) -> list[dict[str, Any]]:
        """Each `tools/call` request of `tool`, whole, in the order sent."""
        return [body for body in self.bodies() if body.get("method") == "tools/call"
                and isinstance(body.get("params"), dict) and body["params"].get("name") == tool]

    def requests(self) -> list[dict[str, Any]]:
        """Every JSON-RPC request the client sent (notifications and replies left out)."""
        return [body for body in self.bodies() if "method" in body and "id" in body]

    def bodies(self) -> list[dict[str, Any]]:
        """Every message the client sent, in order."""
        return [m for direction, m in self.transcript.messages if direction == "client->server" and isinstance(m, dict)]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.server(scope, receive, send)
        body = await read_body(receive)
        if body:
            try:
                request = json.loads(body)
            except ValueError:
                request = {"unparsed": body.decode("utf-8", "replace")}
            self.headers[len(self.transcript.messages)] = {
                k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            self.record("client->server", request)
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if replayed:
                return await receive()  # the disconnect, when it comes
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        answer = _Answer(self.record)

        async def copied(message: dict[str, Any]) -> None:
            answer.read(message)
            await send(message)

        await self.server(scope, replay, copied)


async def read_body(receive: Any) -> bytes:
    """An HTTP request's whole body, from its ASGI messages."""
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


class _Answer:
    """One HTTP answer, read as it is sent: a JSON body whole, an event stream by event."""

    def __init__(self, record: Callable[[str, dict[str, Any]], None]) -> None:
        self.record, self.streamed, self.buffer = record, False, b""

    def read(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            types = [v for k, v in message.get("headers", []) if k.lower() == b"content-type"]
            self.streamed = any(b"text/event-stream" in t for t in types)
            return
        if message["type"] != "http.response.body":
            return
        self.buffer += message.get("body", b"")
        if self.streamed:
            *events, self.buffer = self.buffer.replace(b"\r\n", b"\n").split(b"\n\n")
            for event in events:
                data = b"\n".join(line[5:].strip() for line in event.split(b"\n") if line.startswith(b"data:"))
                self._record(data)
        elif not message.get("more_body"):
            self._record(self.buffer)

    def _record(self, data: bytes) -> None:
        if data.strip():
            try:
                self.record("server->client", json.loads(data))
            except ValueError:
                self.record("server->client", {"unparsed": data.decode("utf-8", "replace")})
