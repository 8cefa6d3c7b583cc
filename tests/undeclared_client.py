"""A mutant client of the client cases, kept with the tests (evidence, not shipped): the
fastmcp client's adapter, whose session answers every question yet declares no elicitation
capability, neither in a 2026-07-28 request's `_meta` (CLI-5) nor at 2025-11-25's
initialize (CLI-11). Run as `python tests/undeclared_client.py URL`."""

from __future__ import annotations

from typing import Any

from mcp.client.session import ClientSession

from elicit_conformance.fixtures.clients.adapter import run
from elicit_conformance.fixtures.clients.fastmcp_client import main

_built = ClientSession._build_capabilities


def _undeclared(self: Any, version: str) -> Any:
    return _built(self, version).model_copy(update={"elicitation": None})


ClientSession._build_capabilities = _undeclared  # type: ignore[method-assign]

if __name__ == "__main__":
    run(main, "fastmcp client, elicitation undeclared")
