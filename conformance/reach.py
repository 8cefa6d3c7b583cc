"""Reaching the target once, before any case, and learning its tools.

A URL nobody answers, a command that does not exist or exits at once: each
would otherwise fail every case with a transport traceback. One connection up
front turns that into one usage error, and the tool list it returns lets the
cases tell "not implemented" (not testable) from "wrong".
"""

from __future__ import annotations

import shutil
from typing import Any

from elicit_conformance.revisions import ERAS
from elicit_conformance.target import Target
from elicit_conformance.verdict import TimedOut
from elicit_conformance.wire import RpcError, Transcript, connect


class Unreachable(Exception):
    """The target cannot be connected to; the message says what was tried."""


async def list_tools(target: Target, timeout: float | None = None) -> frozenset[str]:
    """The target's tool names, on the first revision it accepts.

    Raises:
        Unreachable: No revision could be opened, or the connection failed.
    """
    if target.kind == "command" and shutil.which(target.argv[0]) is None:
        raise Unreachable(
            f"--server-command={target.spec!r}: {target.argv[0]!r} is not a command "
            "on PATH (or an executable path)."
        )
    refused = []
    for era in ERAS:
        try:
            async with connect(target.transport(era, ()), era, Transcript(), elicitation=False, timeout=timeout) as peer:
                return await _tool_names(peer)
        except RpcError as error:  # a handshake-only server refuses the modern era
            refused.append(f"{era}: {error.error.get('message')}")
        except Exception as error:  # noqa: BLE001 - any failure to connect is the message
            raise Unreachable(f"cannot reach {_where(target)}: {_reason(error)}") from None
    raise Unreachable(f"{_where(target)} refused every revision ({'; '.join(refused)})")


async def _tool_names(peer: Any) -> frozenset[str]:
    names: set[str] = set()
    params: dict[str, Any] = {}
    while True:
        listed = await peer.request("tools/list", params)
        names |= {tool["name"] for tool in listed.get("tools", [])}
        if not listed.get("nextCursor"):
            return frozenset(names)
        params = {"cursor": listed["nextCursor"]}


def _where(target: Target) -> str:
    return {
        "url": f"--server={target.spec}",
        "command": f"--server-command={target.spec!r}",
    }.get(target.kind, f"the in-process server {target.spec}")


def _reason(error: BaseException) -> str:
    """The innermost cause, without the task groups wrapped around it."""
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    if isinstance(error, TimedOut):
        return str(error)
    text = str(error) or type(error).__name__
    return f"{type(error).__name__}: {text}" if type(error).__name__ not in text else text
