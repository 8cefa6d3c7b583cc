"""Reaching the target once, before any case, and learning its tools.

A URL nobody answers, a command that does not exist or exits at once: each
would otherwise fail every case with a transport traceback. One connection up
front turns that into one usage error, and the tool list it returns lets the
cases tell "not implemented" (not testable) from "wrong".
"""

from __future__ import annotations

import shutil
from typing import Any
from urllib.parse import urlsplit

from elicit_conformance.exceptions import Broken, CheckFailed, RpcError, TimedOut, Unreachable
from elicit_conformance.revisions import ERAS
from elicit_conformance.verdict import innermost

from .client import Client
from .faults import error_statuses
from .target import Target
from .wire import Transcript



async def list_tools(target: Target, timeout: float | None = None) -> frozenset[str]:
    """The target's tool names, and the revisions it refuses (kept in `target.refused`).

    Each revision is opened once: a server that serves only one (a
    handshake-only server answers `server/discover` with -32601) is tested on
    that one, its other revision's cases "not testable".

    Raises:
        Unreachable: No revision could be opened, or the connection failed.
    """
    if target.kind == "command" and shutil.which(target.argv[0]) is None:
        raise Unreachable(
            f"--server-command={target.spec!r}: {target.argv[0]!r} is not a command "
            "on PATH (or an executable path)."
        )
    names: frozenset[str] | None = None
    refused: dict[str, str] = {}
    for era in ERAS:
        target.http_statuses.clear()
        try:
            async with target.connect(Client.of(era, elicitation=False), Transcript(), timeout=timeout) as peer:
                found = await _tool_names(peer)
                names = found if names is None else names
        except Exception as error:  # noqa: BLE001 - any failure to connect is the message
            cause = innermost(error)
            # The server answered, with a JSON-RPC error or a bare HTTP error status: not this revision.
            if isinstance(cause, RpcError) or (isinstance(cause, Broken) and _failed_statuses(target)):
                refused[era] = _refusal(target, cause)
            elif names is None:
                raise Unreachable(f"cannot reach {_where(target)}: {_reason(error)}{_stderr(target)}") from None
            # Otherwise it serves another revision: this one's cases run, and show what goes wrong.
    if names is None:
        raise Unreachable(f"{_where(target)} refused every revision ({'; '.join(f'{e}: {m}' for e, m in refused.items())})")
    target.refused.update(refused)
    return names


async def _tool_names(peer: Any) -> frozenset[str]:
    names: set[str] = set()
    params: dict[str, Any] = {}
    while True:
        listed = await peer.request("tools/list", params)
        names |= {tool["name"] for tool in listed.get("tools", [])}
        if not listed.get("nextCursor"):
            return frozenset(names)
        params = {"cursor": listed["nextCursor"]}


def _failed_statuses(target: Target) -> list[Any]:
    return error_statuses(target.http_statuses) if target.kind == "url" else []


def _refusal(target: Target, error: Exception) -> str:
    """What the server answered: over HTTP, an error status is said as itself (the
    MCP client turns a 404 into a JSON-RPC -32601 'Not Found' it never received)."""
    failed = _failed_statuses(target)
    if failed:
        status = failed[-1]
        hint = ""
        if status.code == 404:
            path = urlsplit(target.spec).path or "/"
            hint = f": nothing is served at the path {path!r}; is that the MCP endpoint's path (often /mcp)?"
        return f"{status} from {target.spec}{hint}"
    if isinstance(error, RpcError):
        return f"{error.error.get('code')} {error.error.get('message')}"
    return str(error)


def _where(target: Target) -> str:
    return {
        "url": f"--server={target.spec}",
        "command": f"--server-command={target.spec!r}",
    }.get(target.kind, f"the in-process server {target.spec}")


def _reason(error: BaseException) -> str:
    error = innermost(error)
    if isinstance(error, (TimedOut, CheckFailed)):  # already a sentence about the server
        return str(error)
    text = str(error) or type(error).__name__
    return f"{type(error).__name__}: {text}" if type(error).__name__ not in text else text


def _stderr(target: Target) -> str:
    """What a stdio server wrote before it stopped answering (an import error, say),
    its last lines under its log's path: the reason is there, not in the closed pipe."""
    written = target.servers.stderr_since({}, lines=10) if target.servers is not None else ""
    return f". The server's stderr, its last lines:\n{written}" if written else ""
