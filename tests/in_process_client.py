"""Two faulty Python clients for the in-process client mode (`--client=tests.in_process_client:hangs`
or `...:fails`), kept with the tests: one that never ends, one that fails after printing."""

from __future__ import annotations

import anyio


async def hangs(url: str) -> None:
    await anyio.sleep(600)


async def fails(url: str) -> None:
    print("calling", url)
    raise ConnectionError("no route to the scenario")
