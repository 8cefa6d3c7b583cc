"""The server a client case talks to on the handshake era (2025-11-25): a real fastmcp
server, sessions and all, whose scripted tools ask each question with `elicitation/create`
while the call is open, in the script's order, and return the script's text."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fastmcp import Context, FastMCP

from .scenario_server import Script


def handshake_app(scripts: Iterable[Script]) -> Any:
    """A streamable-HTTP ASGI app at /mcp (its lifespan runs its session manager)."""
    server = FastMCP("elicit-conformance-scenario")
    for script in scripts:
        server.tool(_asking(script))
    return server.http_app(path="/mcp")


def _asking(script: Script) -> Any:
    async def tool(ctx: Context) -> str:
        for round_ in script.rounds:
            for params in (request["params"] for request in round_.requests.values()):
                await ctx.session.elicit(message=params["message"], requested_schema=params["requestedSchema"],
                                         related_request_id=ctx.request_id)
        return script.text

    tool.__name__ = script.tool
    return tool
