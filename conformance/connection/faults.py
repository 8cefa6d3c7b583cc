"""What went wrong on the way, said as what the server did.

The MCP client speaks in the server's place twice: when the HTTP connection
fails it raises the HTTP library's own exception (`ReadError`, `ConnectError`,
...) out of its transport's task group, and when a body is not a JSON-RPC message
it answers the waiting request itself, with a -32700 carrying pydantic's text.
Neither is the server's answer, and neither is the suite's fault: here each
becomes a sentence about the server, the same sentence stdio gives for the same
fault ("the connection closed while tools/call waited for its answer").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import mcp_types

from elicit_conformance.exceptions import Broken, CheckFailed, NotTestable, TimedOut

#: How the MCP client begins the -32700 it makes when a body or an event is not a
#: JSON-RPC message (mcp's client/streamable_http.py).
UNPARSED = ("Failed to parse JSON response", "Failed to parse SSE message")
#: pydantic's quote of what it could not validate, inside that message.
_INPUT = re.compile(r"input_value=(.*?), input_type=\w+\]", re.DOTALL)


def unparsed(error: Any) -> str | None:
    """What the server sent, quoted, when `error` (a JSON-RPC error object) is the one
    the MCP client made because that could not be parsed; else None."""
    if not isinstance(error, dict) or error.get("code") != mcp_types.PARSE_ERROR:
        return None
    message = error.get("message")
    if not isinstance(message, str) or not message.startswith(UNPARSED):
        return None
    found = _INPUT.search(message)
    if found is None:
        return "a body"
    quoted = found.group(1)
    return "an empty body" if quoted in ("b''", "''") else quoted


#: The MCP client's words for an HTTP error status that carried no JSON-RPC error: it
#: answers the request itself with -32603 and these (mcp's client/streamable_http.py).
STATUS_ONLY = "Server returned an error response"


def error_statuses(statuses: Iterable[Any]) -> list[Any]:
    """The HTTP responses among `statuses` (`HttpStatus`, oldest first) that were errors."""
    return [status for status in statuses if status.code >= 400]


def status_only(error: Any) -> bool:
    """Whether `error` is the -32603 the MCP client made for a bare HTTP error status."""
    return isinstance(error, dict) and error.get("code") == mcp_types.INTERNAL_ERROR \
        and error.get("message") == STATUS_ONLY


def bare_status(method: str, status: str | None) -> Broken:
    return Broken(f"the server answered {method} with {status or 'an HTTP error status'} and no JSON-RPC message")


def not_json_rpc(method: str, sent: str) -> Broken:
    return Broken(f"the server answered {method} with {sent}, which is not a JSON-RPC message")


def transport_fault(error: BaseException) -> bool:
    """Whether `error` is the HTTP connection failing: the HTTP library's, the socket's,
    or its connection layer's own, which once reached the client unmapped (CI, a
    process killed under 40 calls: `httpcore2.RemoteProtocolError`)."""
    import httpcore2
    import httpx2

    return isinstance(error, (httpx2.TransportError, httpcore2.NetworkError, httpcore2.ProtocolError, OSError))


def connection_fault(error: BaseException, method: str | None) -> Broken:
    """A failed HTTP connection, as what the server did while `method` waited (None:
    while nothing did)."""
    import httpcore2
    import httpx2

    waiting = f"while {method} waited for its answer" if method else "between requests"
    text = str(error).strip()
    text = text if len(text) <= 160 else f"{text[:160]}..."  # httpx quotes the bytes it could not read
    if isinstance(error, (httpx2.ConnectError, httpcore2.ConnectError)):
        return Broken(f"the connection was refused {waiting}" + (f" ({text})" if text else ""))
    if isinstance(error, (httpx2.ReadError, httpx2.WriteError, httpcore2.ReadError, httpcore2.WriteError,
                          ConnectionResetError)) and not text:
        return Broken(f"the server reset the connection {waiting}")
    return Broken(f"the connection closed {waiting}" + (f" ({text})" if text else ""))


def fault_in(error: BaseException) -> BaseException | None:
    """The failed connection `error` is, or that the transport's task group holds,
    unless the case reached a verdict of its own first."""
    if not isinstance(error, BaseExceptionGroup):
        return error if transport_fault(error) else None
    if error.subgroup((NotTestable, TimedOut, CheckFailed)) is not None:
        return None
    faults = error.subgroup(transport_fault)
    while isinstance(faults, BaseExceptionGroup):
        faults = faults.exceptions[0]
    return faults
