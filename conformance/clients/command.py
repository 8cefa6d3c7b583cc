"""The client under test, started as the official conformance suite's client mode starts
it: the command, the scenario server's URL appended as its last argument, and the
scenario in `MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION` and
`MCP_CONFORMANCE_CONTEXT` (JSON, with the scenario's `name`). So an SDK's existing
conformance client runs unchanged; what a client does for this suite's scenarios is
in docs/client-contract.md."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio

#: How much of a client's output a verdict may quote.
KEPT = 4000


@dataclass(frozen=True)
class Exited:
    """How the client's process ended: its exit code (None: it was stopped after
    `timeout` seconds) and the tail of what it printed."""

    code: int | None
    stdout: str
    stderr: str
    timeout: float

    def said(self) -> str:
        """The ending as a sentence, for a verdict."""
        ended = f"exited {self.code}" if self.code is not None else f"was stopped after {self.timeout:g} s"
        tail = (self.stderr or self.stdout).strip()[-600:]
        return f"the client {ended}" + (f"; it printed: {tail}" if tail else ", printing nothing")


def scenario_environment(scenario: str, revision: str, context: Mapping[str, Any]) -> dict[str, str]:
    """What tells a client its scenario, by the official convention."""
    return {"MCP_CONFORMANCE_SCENARIO": scenario, "MCP_CONFORMANCE_PROTOCOL_VERSION": revision,
            "MCP_CONFORMANCE_CONTEXT": json.dumps({"name": scenario, **context})}


async def run_client(argv: Sequence[str], url: str, scenario: str, revision: str, context: Mapping[str, Any],
                     timeout: float) -> Exited:
    """Run the client once against `url`; stop it (its process group, which it leads)
    after `timeout` seconds."""
    env = {**os.environ, **scenario_environment(scenario, revision, context)}
    process = await anyio.open_process([*argv, url], env=env, start_new_session=True)
    out, err = bytearray(), bytearray()

    async def drain(stream: Any, into: bytearray) -> None:
        async for chunk in stream:
            into.extend(chunk)
            del into[:-KEPT]

    code: int | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(drain, process.stdout, out)
        group.start_soon(drain, process.stderr, err)
        with anyio.move_on_after(timeout):
            code = await process.wait()
        if code is None:
            _stop(process.pid)
            await process.wait()
    return Exited(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), timeout)


def _stop(pid: int) -> None:
    """The client's process group: the client and whatever it started, nothing else."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
