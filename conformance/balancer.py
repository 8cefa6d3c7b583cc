"""A round-robin HTTP balancer: the smallest deployment that tests stateless continuation.

Run it in front of several server processes (`ELICIT_BACKENDS="http://127.0.0.1:8001
http://127.0.0.1:8002"`, then `uvicorn elicit_conformance.balancer:asgi`) and point the suite
at it. Each request without an `Mcp-Session-Id` goes to the next backend in turn, so
consecutive rounds of one modern call land on different processes (SEC-4): that works
only if every process unseals what another sealed, i.e. they share the seal key.
Handshake-era calls hold a session open while the server asks, so a request that
carries a session id goes to the backend that issued it: this is the affinity a real
load balancer must give that era.

`GET /balancer/log` returns what went where, for a test to check.
"""

from __future__ import annotations

import json
import os
from typing import Any

import httpx2

_HOP_BY_HOP = {"content-length", "transfer-encoding", "connection", "keep-alive", "host"}


class Balancer:
    def __init__(self, backends: list[str]) -> None:
        self.backends = [b.rstrip("/") for b in backends]
        self._next = 0
        self._sessions: dict[str, int] = {}
        self.log: list[dict[str, Any]] = []
        self._client: httpx2.AsyncClient | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            if scope["path"] == "/balancer/log":
                await _reply(send, 200, json.dumps(self.log).encode())
            else:
                await self._forward(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                if not self.backends:
                    await send({"type": "lifespan.startup.failed", "message":
                                "set ELICIT_BACKENDS to the backends' base URLs, separated by spaces"})
                    return
                self._client = httpx2.AsyncClient(timeout=httpx2.Timeout(60.0))
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._client is not None:
                    await self._client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def _choose(self, session: str | None) -> int:
        if session is not None and session in self._sessions:
            return self._sessions[session]
        index, self._next = self._next, (self._next + 1) % len(self.backends)
        return index

    async def _forward(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert self._client is not None
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [(k.decode(), v.decode()) for k, v in scope["headers"] if k.decode().lower() not in _HOP_BY_HOP]
        session = next((v for k, v in headers if k.lower() == "mcp-session-id"), None)
        index = self._choose(session)
        self.log.append({"backend": index, **_describe(body), "session": session is not None})
        query = f"?{scope['query_string'].decode()}" if scope.get("query_string") else ""
        request = self._client.build_request(
            scope["method"], self.backends[index] + scope["path"] + query, headers=headers, content=body
        )
        response = await self._client.send(request, stream=True)
        try:
            if issued := response.headers.get("mcp-session-id"):
                self._sessions[issued] = index
            await send({
                "type": "http.response.start",
                "status": response.status_code,
                "headers": [(k.encode(), v.encode()) for k, v in response.headers.items()
                            if k.lower() not in _HOP_BY_HOP],
            })
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await response.aclose()


def _describe(body: bytes) -> dict[str, Any]:
    """The JSON-RPC method, and whether the request continues a call (carries state)."""
    try:
        message = json.loads(body) if body else {}
    except ValueError:
        return {"method": None, "continuation": False}
    if not isinstance(message, dict):
        return {"method": None, "continuation": False}
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    return {"method": message.get("method"), "continuation": bool(params.get("requestState"))}


async def _reply(send: Any, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


asgi = Balancer(os.environ.get("ELICIT_BACKENDS", "").split())
