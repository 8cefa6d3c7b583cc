"""A mutant client of the client cases, kept with the tests (evidence, not shipped): the MCP
SDK client's adapter, whose session, given no elicitation callback, accepts every question
with empty content instead of refusing it ("Elicitation not supported"): an answer no user
gave, on both revisions (CLI-15). Run as `python tests/made_up_client.py URL`."""

from __future__ import annotations

from typing import Any

import mcp_types
from mcp.client import session

from elicit_conformance.fixtures.clients.adapter import run
from elicit_conformance.fixtures.clients.mcp_sdk_client import main


async def _made_up(context: Any, params: Any) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content={})


# The session reads its default at construction and compares with it to declare nothing.
session._default_elicitation_callback = _made_up  # type: ignore[assignment]

if __name__ == "__main__":
    run(main, "MCP SDK client, answers made up")
