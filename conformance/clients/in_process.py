"""A Python client under test run in the suite's own process (`--client=module:function`):
its `async def main(url)` awaited once per case, in place of a command.

It reads its scenario as a command does, from the MCP_CONFORMANCE_* variables, set for the
call alone (a process runs one case at a time), so the same adapter runs either way. What
it prints is its output, an exception its failure (exit 1), and a call still running after
the timeout is stopped (cancelled), as a command would be. No process starts: a Python
client's run costs its calls, not an interpreter and its imports.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any

import anyio

from elicit_conformance.verdict import innermost

from .command import KEPT, Exited, scenario_environment


async def run_in_process(main: Callable[[str], Awaitable[None]], url: str, scenario: str, revision: str,
                         context: Mapping[str, Any], timeout: float) -> Exited:
    """Await `main(url)` with the scenario in the environment; what a command's run would say."""
    printed, code, failed = io.StringIO(), None, ""
    with _environment(scenario_environment(scenario, revision, context)), contextlib.redirect_stdout(printed):
        with anyio.move_on_after(timeout):
            try:
                await main(url)
                code = 0
            except Exception as error:  # the client's own failure, said as an adapter says it
                cause = innermost(error)
                code, failed = 1, f"{type(cause).__name__}: {cause}"
    return Exited(code, printed.getvalue()[-KEPT:], failed[-KEPT:], timeout)


@contextlib.contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
