"""The server a client case talks to on 2026-07-28: a scripted streamable-HTTP endpoint.

Raw on purpose, as the official suite's mock servers are: a client case needs rounds a
framework would never send by itself (a state made of awkward bytes, no state at all,
a result without `resultType`), and it must see every message exactly as the client
put it on the wire (`recording`). It answers JSON (no SSE, no session): `server/discover`,
`tools/list`, the scenario's `tools/call`, and a notification with 202.

A call is matched to its round by what the retry carries: the round whose state it
echoes and whose keys it answers; a call that matches none starts from the first round.
"""

from __future__ import annotations

import contextlib
import json
import secrets
from collections import Counter
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio

from elicit_conformance.revisions import MODERN

from .recording import read_body


#: Seconds the first of the calls made `together` waits for the others.
TOGETHER_WAIT = 2.0
#: The calls of one tool the server answers; past them, an error ends a client that never stops.
CALLS_AT_MOST = 200


@dataclass(frozen=True)
class Round:
    """One `InputRequiredResult`: its requests (key -> input request: `method` and
    `params`) and its `requestState`, None for none."""

    requests: Mapping[str, Mapping[str, Any]]
    state: str | None = None

    def result(self) -> dict[str, Any]:
        asked: dict[str, Any] = {"resultType": "input_required"}
        if self.requests:
            asked["inputRequests"] = {key: dict(request) for key, request in self.requests.items()}
        if self.state is not None:
            asked["requestState"] = self.state
        return asked


@dataclass(frozen=True)
class Script:
    """What the server does for one tool: its rounds, then its result's text. With
    `result_type=False` the result carries no `resultType`, as a server of an earlier
    revision sends it."""

    tool: str
    rounds: tuple[Round, ...]
    text: str
    result_type: bool = True
    #: Ask the last round again, under a new state, however often it is answered.
    endless: bool = False

    def answer(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The result for one `tools/call` of this tool."""
        done = self._answered(params)
        if done + 1 < len(self.rounds):
            return self.rounds[done + 1].result()
        if self.endless:
            return Round(self.rounds[-1].requests, f"again-{secrets.token_hex(4)}").result()
        result: dict[str, Any] = {"content": [{"type": "text", "text": self.text}], "isError": False}
        return {"resultType": "complete", **result} if self.result_type else result

    def _answered(self, params: Mapping[str, Any]) -> int:
        """The last round this call answers; -1 for a first call."""
        responses = params.get("inputResponses")
        keys = set(responses) if isinstance(responses, dict) else set()
        state = params.get("requestState")
        answered = [i for i, r in enumerate(self.rounds)
                    if (r.requests or r.state is not None) and r.state == state and set(r.requests) <= keys]
        if self.endless and isinstance(state, str) and state.startswith("again-"):
            return len(self.rounds) - 1
        return answered[-1] if answered else -1


@dataclass(eq=False)
class ScenarioServer:
    """The scripted tools, as an ASGI app (`recording.Recording` keeps what passes). The
    first calls of the tools in `together` are answered once all have arrived (or after
    `TOGETHER_WAIT` s): a client making them in parallel then holds every ask at once."""

    scripts: Mapping[str, Script]
    together: frozenset[str] = frozenset()
    _calls: Counter[str] = field(default_factory=Counter)
    _arrived: set[str] = field(default_factory=set)
    _all_arrived: anyio.Event = field(default_factory=anyio.Event)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if scope["method"] != "POST":
            await _respond(send, 405, None)
            return
        body = await read_body(receive)
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        await self._gathered(request)
        answer = self._answer(request)
        await _respond(send, 202 if answer is None else 200, answer)

    async def _gathered(self, request: Any) -> None:
        params = request.get("params") if isinstance(request, dict) else None
        first_call = isinstance(params, dict) and request.get("method") == "tools/call" \
            and "inputResponses" not in params and "requestState" not in params
        if not first_call or params.get("name") not in self.together:
            return
        self._arrived.add(params["name"])
        if self._arrived >= self.together:
            self._all_arrived.set()
        with anyio.move_on_after(TOGETHER_WAIT):
            await self._all_arrived.wait()

    def _answer(self, request: Any) -> dict[str, Any] | None:
        if not isinstance(request, dict) or "id" not in request:
            return None  # a notification, or a reply
        method, params = request.get("method"), request.get("params") or {}
        if method == "server/discover":
            result: dict[str, Any] = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                                      "supportedVersions": [MODERN], "capabilities": {"tools": {}},
                                      "serverInfo": {"name": "elicit-conformance-scenario", "version": "1"}}
        elif method == "tools/list":
            result = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                      "tools": [{"name": name, "inputSchema": {"type": "object"}} for name in self.scripts]}
        elif method == "tools/call" and isinstance(params, dict) and params.get("name") in self.scripts:
            self._calls[params["name"]] += 1
            if self._calls[params["name"]] > CALLS_AT_MOST:  # a client that never stops: end it here
                return {"jsonrpc": "2.0", "id": request["id"], "error": {
                    "code": -32603, "message": f"the scenario server stops answering after {CALLS_AT_MOST} calls"}}
            result = self.scripts[params["name"]].answer(params)
        else:
            return {"jsonrpc": "2.0", "id": request["id"],
                    "error": {"code": -32601, "message": f"the scenario server does not serve {method!r}"}}
        return {"jsonrpc": "2.0", "id": request["id"], "result": result}


async def _respond(send: Any, status: int, payload: Any) -> None:
    body = b"" if payload is None else json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json")] if payload is not None else []
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@contextlib.asynccontextmanager
async def serving(server: Any, lifespan: bool = False) -> AsyncIterator[str]:
    """The ASGI app `server` on 127.0.0.1, on a port of its own, for as long as the block
    lasts (its lifespan run where it has one to run): its URL."""
    import uvicorn

    class Quiet(uvicorn.Server):
        def capture_signals(self) -> contextlib.AbstractContextManager[None]:
            return contextlib.nullcontext()  # Ctrl-C is the run's to handle, not this server's

    running = Quiet(uvicorn.Config(server, host="127.0.0.1", port=0, log_level="warning",
                                   lifespan="on" if lifespan else "off", access_log=False))
    async with anyio.create_task_group() as group:
        group.start_soon(running.serve)
        while not running.started:
            await anyio.sleep(0.005)
        port = running.servers[0].sockets[0].getsockname()[1]
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            running.should_exit = True
