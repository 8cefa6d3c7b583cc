"""The server a client case talks to on 2026-07-28: a scripted streamable-HTTP endpoint.

Raw on purpose, as the official suite's mock servers are: a client case needs rounds a
framework would never send by itself (a state made of awkward bytes, no state at all,
a result without `resultType`), and it must see every message exactly as the client
put it on the wire (`recording`). It answers JSON (no SSE, no session): `server/discover`,
`tools/list`, the scenario's `tools/call`, `tasks/get`, `tasks/update` and `tasks/cancel`
of the tasks it made, and a notification with 202.

A call is matched to its round by what the retry carries: the round whose state it
echoes and whose keys it answers; a call that matches none starts from the first round.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import anyio

from elicit_conformance.connection.wire import TASKS
from elicit_conformance.revisions import MODERN

from .recording import read_body


#: Seconds the first of the calls made `together` waits for the others.
TOGETHER_WAIT = 2.0
#: The calls of one tool the server answers; past them, an error ends a client that never stops.
CALLS_AT_MOST = 200
#: The pollIntervalMs of every task: long enough to tell a client that waits it out from one
#: polling at its own pace (CLI-20), short enough for a case.
POLL_INTERVAL_MS = 300
#: The extension's error for a client that did not declare what the call needs.
MISSING_CAPABILITY = -32021


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
class Task:
    """A call run as a task (the tasks extension), once its rounds are answered: the
    `tools/call` is answered with a `CreateTaskResult` (status `working`); then each
    `tasks/get` shows it `input_required` with the requests of `asks` that no `tasks/update`
    has answered yet (while any is left), then `working` (`WORKING_POLLS` times), then
    `completed` with the script's result. Each step waits for a poll, not for time, so what a client sees
    depends on how it polls alone. With `until_cancelled` it stays `working` until a `tasks/cancel`;
    any task is `cancelled` from then on (the server honours a cancel at once, as it may)."""

    asks: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    until_cancelled: bool = False


@dataclass(frozen=True)
class Script:
    """What the server does for one tool: its rounds, then its result's text (or, with
    `task`, a task that ends with it). Its `resultType` is `result_type`: None for none, as a
    server of an earlier revision sends it, or a kind no client knows."""

    tool: str
    rounds: tuple[Round, ...]
    text: str
    result_type: str | None = "complete"
    #: Ask the last round again, under a new state, however often it is answered.
    endless: bool = False
    task: Task | None = None
    #: The result's `ttlMs` with `cacheScope` "public": caching hints that invite a client
    #: to keep it (server/utilities/caching); None for none.
    ttl_ms: int | None = None

    def answer(self, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """The `InputRequiredResult` for one `tools/call` of this tool; None once it
        answers every round (the call's result is then `result()`, or its task's)."""
        done = self._answered(params)
        if done + 1 < len(self.rounds):
            return self.rounds[done + 1].result()
        if self.endless:
            return Round(self.rounds[-1].requests, f"again-{secrets.token_hex(4)}").result()
        return None

    def result(self) -> dict[str, Any]:
        result: dict[str, Any] = {"content": [{"type": "text", "text": self.text}], "isError": False}
        if self.ttl_ms is not None:
            result |= {"ttlMs": self.ttl_ms, "cacheScope": "public"}
        return {"resultType": self.result_type, **result} if self.result_type is not None else result

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
    #: The tasks made, by taskId.
    tasks: dict[str, RunningTask] = field(default_factory=dict)
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
            # A server that runs calls as tasks says so (a client may use tasks only with one that does).
            tasked = {"extensions": {TASKS: {}}} if any(s.task for s in self.scripts.values()) else {}
            result: dict[str, Any] = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                                      "supportedVersions": [MODERN], "capabilities": {"tools": {}, **tasked},
                                      "serverInfo": {"name": "elicit-conformance-scenario", "version": "1"}}
        elif method == "tools/list":
            result = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                      "tools": [{"name": name, "inputSchema": {"type": "object"}} for name in self.scripts]}
        elif method == "tools/call" and isinstance(params, dict) and params.get("name") in self.scripts:
            self._calls[params["name"]] += 1
            if self._calls[params["name"]] > CALLS_AT_MOST:  # a client that never stops: end it here
                return {"jsonrpc": "2.0", "id": request["id"], "error": {
                    "code": -32603, "message": f"the scenario server stops answering after {CALLS_AT_MOST} calls"}}
            script = self.scripts[params["name"]]
            if script.task is not None and TASKS not in _extensions(params):
                # The extension's MUST: no CreateTaskResult to a client that did not declare it on
                # the request, and a server that can serve the call no other way says -32021.
                return {"jsonrpc": "2.0", "id": request["id"], "error": {
                    "code": MISSING_CAPABILITY, "message": "Missing required client capability",
                    "data": {"requiredCapabilities": {"extensions": {TASKS: {}}}}}}
            asked = script.answer(params)
            if asked is not None:
                result = asked
            elif script.task is None:
                result = script.result()
            else:
                task = RunningTask(script)
                self.tasks[task.task_id] = task
                result = {"resultType": "task", **task.fields("working")}
        elif method in ("tasks/get", "tasks/update", "tasks/cancel"):
            task = self.tasks.get(params.get("taskId")) if isinstance(params, dict) else None
            if task is None:
                return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32602, "message": "no such task"}}
            result = (task.polled() if method == "tasks/get" else task.cancel() if method == "tasks/cancel"
                      else task.updated(params.get("inputResponses")))
        else:
            return {"jsonrpc": "2.0", "id": request["id"],
                    "error": {"code": -32601, "message": f"the scenario server does not serve {method!r}"}}
        return {"jsonrpc": "2.0", "id": request["id"], "result": result}


#: The polls a task answers `working` before `completed`: CLI-20 judges each gap after one,
#: so that a client polling too soon is seen so however long one stall of the machine lasts.
WORKING_POLLS = 3


@dataclass(eq=False)
class RunningTask:
    """One task the server made: what it still asks (by key), how far polling has taken it,
    and the keys each `tasks/update` answered that the task was not asking then (CLI-19:
    only the server knows what was outstanding when an update arrived)."""

    script: Script
    task_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    outstanding: dict[str, Mapping[str, Any]] = field(init=False)
    #: Polls answered `working` so far (`WORKING_POLLS` before `completed`).
    worked: int = 0
    #: A poll has been answered `completed`.
    done: bool = False
    #: A `tasks/cancel` has come.
    cancelled: bool = False
    unasked: list[list[str]] = field(default_factory=list)
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat())

    def __post_init__(self) -> None:
        self.outstanding = dict(self.asks)

    @property
    def asks(self) -> Mapping[str, Mapping[str, Any]]:
        """Every request the task asks, by key."""
        return self.script.task.asks if self.script.task else {}

    def fields(self, status: str) -> dict[str, Any]:
        return {"taskId": self.task_id, "status": status, "createdAt": self.created,
                "lastUpdatedAt": datetime.now(timezone.utc).isoformat(), "ttlMs": 60000,
                "pollIntervalMs": POLL_INTERVAL_MS}

    def polled(self) -> dict[str, Any]:
        """The task as a `tasks/get` finds it, one step further than the last poll."""
        if self.cancelled:
            return {"resultType": "complete", **self.fields("cancelled")}
        if self.outstanding:
            return {"resultType": "complete", **self.fields("input_required"),
                    "inputRequests": {key: dict(request) for key, request in self.outstanding.items()}}
        if self.worked < WORKING_POLLS or self.script.task and self.script.task.until_cancelled:
            self.worked += 1
            return {"resultType": "complete", **self.fields("working")}
        self.done = True
        # The call's result as the call would have had it (on 2026-07-28, with its resultType):
        # "The structure matches the result type of the original request."
        return {"resultType": "complete", **self.fields("completed"), "result": self.script.result()}

    def updated(self, responses: Any) -> dict[str, Any]:
        """A `tasks/update`: each response to an outstanding key answers it; any other key is
        ignored ("A server SHOULD ignore any inputResponses responses mapped to a key that is
        not currently outstanding")."""
        keys = list(responses) if isinstance(responses, dict) else []
        self.unasked.append(sorted(key for key in keys if key not in self.outstanding))
        for key in keys:
            self.outstanding.pop(key, None)
        return {"resultType": "complete"}


    def cancel(self) -> dict[str, Any]:
        """A `tasks/cancel`: acknowledged with an empty result ("On success, the server MUST
        acknowledge the request with an empty result"), the task cancelled unless it ended."""
        self.cancelled = not self.done
        return {"resultType": "complete"}


def _extensions(params: Mapping[str, Any]) -> Mapping[str, Any]:
    """The extensions a request declared in its `_meta`'s client capabilities."""
    meta = params.get("_meta")
    capabilities = meta.get("io.modelcontextprotocol/clientCapabilities") if isinstance(meta, dict) else None
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return extensions if isinstance(extensions, dict) else {}


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
