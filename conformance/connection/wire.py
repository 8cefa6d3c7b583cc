"""Talking to a target at the JSON-RPC level, with every message recorded.

The suite must see the wire as a client would, so nothing here parses results
or answers questions behind its back: `Peer.request` returns the raw result
dict (or the raw JSON-RPC error), and on the handshake era each
`elicitation/create` goes to the scripted callback the driver passes in.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types
from fastmcp.client.transports.base import ClientTransport, TransportOptions
from mcp import ClientSession
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import MCP_METHOD_HEADER, MCP_PROTOCOL_VERSION_HEADER
from pydantic import ValidationError

from elicit_conformance.exceptions import Broken, NotTestable, RpcError, TimedOut
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import MODERN
from elicit_conformance.version import VERSION

from .client import Client
from .faults import bare_status, connection_fault, error_statuses, fault_in, not_json_rpc, status_only, unparsed
from .state_only import ASKING, MAX_STATE_ONLY, retry_of, state_only
from .stdio import Handshake, SharedStdioTransport

__all__ = ["ASKING", "NO_FORM", "TASKS", "Peer", "RpcError", "Transcript", "connect", "state_only"]


@dataclass
class Transcript:
    """Every JSON-RPC message of one case, both ways, in order."""

    messages: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def record(self, direction: str, item: Any) -> None:
        message = getattr(item, "message", None)
        if message is None:  # a transport-level exception travels the stream too
            self.messages.append((direction, {"exception": repr(item)}))
            return
        dumped = message.model_dump(mode="json", by_alias=True, exclude_unset=True)
        sent = unparsed(dumped.get("error"))
        # The MCP client's own -32700 for bytes it could not parse: the server sent those bytes.
        self.messages.append((direction, dumped if sent is None else {"id": dumped.get("id"), "unparsed": sent}))


class _Recorded:
    """A stream end that copies each message into the transcript."""

    def __init__(self, inner: Any, transcript: Transcript, direction: str) -> None:
        self._inner = inner
        self._transcript = transcript
        self._direction = direction

    async def send(self, item: Any) -> None:
        self._transcript.record(self._direction, item)
        await self._inner.send(item)

    async def receive(self) -> Any:
        item = await self._inner.receive()
        self._transcript.record(self._direction, item)
        return item

    def __aiter__(self) -> _Recorded:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError) as error:
            raise StopAsyncIteration from error

    async def __aenter__(self) -> _Recorded:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._inner.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


#: The background tasks extension (SEP-2663): a client opts in per request.
TASKS = "io.modelcontextprotocol/tasks"


class _Session(ClientSession):
    """A client session that declares only the elicitation modes it is given,
    and the tasks extension when asked to."""

    modes: tuple[str, ...] = ("form", "url")
    tasks: bool = False

    def _build_capabilities(self, version: str) -> mcp_types.ClientCapabilities:
        # The SDK declares both modes whenever there is a callback; ERA-5 and ERA-7
        # need a client that declares URL mode only. (Private API of mcp 2.3.)
        capabilities = super()._build_capabilities(version)
        if self.tasks:
            capabilities = capabilities.model_copy(update={"extensions": {TASKS: {}}})
        if capabilities.elicitation is None or self.modes == ("form", "url"):
            return capabilities
        elicitation = mcp_types.ElicitationCapability(
            form=mcp_types.FormElicitationCapability() if "form" in self.modes else None,
            url=mcp_types.UrlElicitationCapability() if "url" in self.modes else None,
        )
        return capabilities.model_copy(update={"elicitation": elicitation})


def _recording_session(transcript: Transcript, modes: tuple[str, ...], tasks: bool) -> Callable[..., ClientSession]:
    def build(read_stream: Any, write_stream: Any, **kwargs: Any) -> ClientSession:
        session = _Session(
            _Recorded(read_stream, transcript, "server->client"),
            _Recorded(write_stream, transcript, "client->server"),
            **kwargs,
        )
        session.modes = modes
        session.tasks = tasks
        return session

    return build


#: JSON-RPC "method not found": how a target says it offers no prompts, resources or templates.
METHOD_NOT_FOUND = -32601


#: Answers one handshake-era `elicitation/create` with an `ElicitResult`.
Answerer = Callable[[mcp_types.ElicitRequestParams], Awaitable[mcp_types.ElicitResult]]


class Peer:
    """One connection to the target, negotiated at one era."""

    def __init__(self, era: str, tools: frozenset[str] | None = None, timeout: float | None = None) -> None:
        self.era = era
        #: The target's tools, when known: calling another is "not testable", not "wrong".
        self.tools = tools
        #: Seconds one request may wait for its answer; None waits forever.
        self.timeout = timeout
        #: Who answers the handshake era's `elicitation/create`; unset, the user cancels.
        self.answerer: Answerer | None = None
        self.session: ClientSession
        #: The server's capabilities as `server/discover` or `initialize` gave them.
        self.discovered: mcp_types.ServerCapabilities | None = None
        #: The methods of the requests waiting for their answers, oldest first: what a
        #: failed connection interrupted.
        self.waiting: list[str] = []
        #: The HTTP statuses of a URL target's latest responses, newest last (else None).
        self.statuses: Sequence[Any] | None = None

    def offers(self, extension: str) -> bool:
        """Whether the server advertised `extension` (2026-07-28 only)."""
        return self.discovered is not None and extension in (self.discovered.extensions or {})

    @contextlib.contextmanager
    def answering(self, answerer: Answerer) -> Iterator[None]:
        """Let `answerer` answer every `elicitation/create` while the block runs."""
        self.answerer = answerer
        try:
            yield
        finally:
            self.answerer = None

    async def _answer(self, params: mcp_types.ElicitRequestParams) -> mcp_types.ElicitResult:
        if self.answerer is None:
            return mcp_types.ElicitResult(action="cancel")
        return await self.answerer(params)

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send one request; the raw result, or `RpcError` with the raw error.

        An `InputRequiredResult` that asks nothing (only `requestState`: the server
        sheds load, or wants a moment) is retried at once with that state, as
        the specification lets a client ("If the InputRequiredResult does not
        contain the inputRequests field, the client MAY retry the original request
        immediately", 2026-07-28 basic/patterns/mrtr): a server using that freedom
        is judged on the answer that follows, never on the pause. After
        `MAX_STATE_ONLY` retries in a row the state-only answer is returned.

        Raises:
            TimedOut: The server did not answer within `timeout` seconds.
        """
        result = await self._request_once(method, params)
        for _ in range(MAX_STATE_ONLY if self.era == MODERN and method in ASKING else 0):
            state = state_only(result)
            if state is None:
                break
            result = await self._request_once(method, retry_of(params, state))
        return result

    async def _request_once(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.waiting.append(method)
        try:
            async with answered_within(self.timeout, method):
                result = await _send_raw(self.session, method, params)
        except MCPError as error:
            self.waiting.remove(method)
            raise answer_of(error, method, self.http_error()) from error
        # Left waiting when cancelled: the connection failing cancels the wait, then says why.
        self.waiting.remove(method)
        if not isinstance(result, dict):
            raise Broken(f"the server answered {method} with {brief(result)}, which is not a JSON object")
        return result

    def http_error(self) -> str | None:
        """The latest HTTP error status of this target, said ("HTTP 502 Bad Gateway")."""
        failed = error_statuses(self.statuses or ())
        return str(failed[-1]) if failed else None

    async def call_tool(self, name: str, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
        if self.tools is not None and name not in self.tools:
            raise missing_tool(name)
        return await self.request("tools/call", {"name": name, "arguments": arguments, **extra})


def missing_tool(name: str) -> NotTestable:
    return missing_tools([name])


def missing_tools(names: list[str]) -> NotTestable:
    """The case needs tools of the contract the target does not list."""
    listed = ", ".join(repr(n) for n in names)
    return NotTestable(
        f"the target has no tool {listed}; every target implements the tools of "
        "the contract (docs/contract.md)",
        cause=f"{names[0]} missing",
        tools=tuple(names),
    )


def answer_of(error: MCPError, method: str, status: str | None = None) -> Exception:
    """What an `MCPError` means: the server's JSON-RPC error (`RpcError`), or that
    the connection closed first (the SDK's own error, no answer of the server's).
    The suite sets no SDK timeout on a request (`answered_within` is its clock), so
    a -32001 is the server's own answer; a -32700 the MCP client made for bytes it
    could not parse is said as those bytes, one it made for a bare HTTP error status as
    that status (`status`, where known)."""
    if error.code == mcp_types.CONNECTION_CLOSED:
        return Broken(f"the connection closed while {method} waited for its answer ({error.error.message})")
    said = error.error.model_dump(mode="json")
    if (sent := unparsed(said)) is not None:
        return not_json_rpc(method, sent)
    if status_only(said):
        return bare_status(method, status)
    return RpcError(error.error.model_dump(mode="json", exclude_none=True), method)


async def _send_raw(session: ClientSession, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """Send one request and return its result unparsed.

    The only place the suite uses `ClientSession` internals (mcp 2.3): the
    public calls parse a result into models, which would hide what the server
    really sent. `_stamp` adds what the negotiated era puts on every request
    (protocol version, client info and capabilities in `_meta`, headers).
    """
    data: dict[str, Any] = {"method": method, "params": dict(params)}
    options: dict[str, Any] = {}
    session._stamp(data, options)
    return await session._dispatcher.send_raw_request(method, data["params"], options)


@contextlib.asynccontextmanager
async def connect(
    transport: ClientTransport,
    client: Client,
    transcript: Transcript,
    *,
    tools: frozenset[str] | None = None,
    timeout: float | None = None,
    startup: float | None = None,
    statuses: Sequence[Any] | None = None,
) -> AsyncIterator[Peer]:
    """Open a recorded connection as `client` over `transport`.

    Where the client declares elicitation modes, each handshake-era
    `elicitation/create` goes to the peer's answerer (see `Peer.answering`).
    A stdio process that has not answered yet is starting: its first request may
    take `startup` seconds instead of `timeout`.
    """
    era, modes, tasks = client.era, client.modes, client.tasks
    peer = Peer(era, tools, timeout)
    peer.statuses = statuses
    kwargs: dict[str, Any] = {
        "client_info": mcp_types.Implementation(name="elicit-conformance", version=VERSION)
    }
    if modes:

        async def on_elicit(context: Any, params: mcp_types.ElicitRequestParams) -> Any:
            return await peer._answer(params)

        kwargs["elicitation_callback"] = on_elicit
    options = TransportOptions(session_class=_recording_session(transcript, modes, tasks))
    handshake = "server/discover" if era == MODERN else "initialize"
    try:
        async with transport.connect_session(transport_options=options, **kwargs) as session:
            limit = max(startup, timeout or 0) if startup and getattr(transport, "starting", False) else timeout
            peer.waiting.append(handshake)
            try:
                async with answered_within(limit, handshake):
                    await (_discover(session) if era == MODERN else _initialize(session, transport, transcript))
            except MCPError as error:
                # An RpcError is the server's answer: it does not serve `era` (a 2025-only
                # server: -32601); the connection closing first is not an answer at all.
                raise answer_of(error, handshake, peer.http_error()) from error
            peer.waiting.remove(handshake)
            peer.session = session
            peer.discovered = session.server_capabilities
            yield peer
    except BaseException as error:
        fault = fault_in(error)
        if fault is None:
            raise
        raise connection_fault(fault, peer.waiting[-1] if peer.waiting else None) from None


async def _discover(session: ClientSession) -> None:
    """`server/discover` at 2026-07-28, timed by the suite alone.

    `ClientSession.discover()` gives the request a fixed 10 s of its own, which
    a server still starting on a busy machine can miss; this is the same request
    (private API of mcp 2.3, as `_send_raw`), with no limit but the caller's.
    """
    capabilities = session._build_capabilities(MODERN).model_dump(by_alias=True, mode="json", exclude_none=True)
    client_info = session._client_info.model_dump(by_alias=True, mode="json", exclude_none=True)
    meta = {
        mcp_types.PROTOCOL_VERSION_META_KEY: MODERN,
        mcp_types.CLIENT_INFO_META_KEY: client_info,
        mcp_types.CLIENT_CAPABILITIES_META_KEY: capabilities,
    }
    options: dict[str, Any] = {
        "cancel_on_abandon": False,
        "headers": {MCP_PROTOCOL_VERSION_HEADER: MODERN, MCP_METHOD_HEADER: "server/discover"},
    }
    raw = await session._dispatcher.send_raw_request("server/discover", {"_meta": meta}, options)
    try:
        result = mcp_types.DiscoverResult.model_validate(raw)
    except ValidationError as error:
        raise Broken(f"the server answered server/discover with {brief(raw)}, which is not a DiscoverResult "
                     f"({error.errors()[0]['loc']}: {error.errors()[0]['msg']})") from None
    session.adopt(result)


#: What a client that cannot take a form question declares (ERA-5, ERA-7, TASK-5).
NO_FORM: dict[str, tuple[str, ...]] = {"none": (), "url-only": ("url",)}


async def _initialize(session: ClientSession, transport: ClientTransport, transcript: Transcript) -> None:
    """The 2025 handshake, once per session.

    A stdio process kept for the run (`stdio`) was initialized by
    its first connection: a later one adopts that result and carries the
    exchange at the head of its transcript, so the transcript reads as the
    session it rides, the same as on a connection of its own.
    """
    shared = transport if isinstance(transport, SharedStdioTransport) else None
    if shared is not None and shared.handshake is not None:
        transcript.messages += shared.handshake.messages
        session.adopt(shared.handshake.result)
        return
    start = len(transcript.messages)
    result = await session.initialize()
    if shared is not None:
        shared.handshake = Handshake(transcript.messages[start:], result)


@contextlib.asynccontextmanager
async def answered_within(timeout: float | None, method: str) -> AsyncIterator[None]:
    """Turn a wait longer than `timeout` into `TimedOut`, naming the request."""
    with anyio.move_on_after(timeout) as scope:
        yield
    if scope.cancelled_caught:
        raise TimedOut(f"timed out after {timeout:g} s: the server did not answer {method}")
