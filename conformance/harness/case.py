"""One conformance case: run catalog scenarios on one era and check them.

A `Case` collects every message of the case into one transcript, so its
golden file is the whole conversation a reviewer needs to read.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, ParamSpec

import anyio

from elicit_conformance.catalog import Scenario, load
from elicit_conformance.connection.client import Client
from elicit_conformance.connection.reach import list_tools
from elicit_conformance.connection.target import Target
from elicit_conformance.connection.wire import TASKS, Peer, Transcript, missing_tool
from elicit_conformance.exceptions import Broken, NotOffered, RpcError
from elicit_conformance.quoting import brief
from elicit_conformance.reporting.normalize import normalize
from elicit_conformance.revisions import MODERN
from elicit_conformance.verdict import unwrapped

from .driver import OnRound, Run, Script, drive
from .tasked import OnEpisode, TaskRun, drive_task

P = ParamSpec("P")


class Case:
    def __init__(self, target: Target, run_id: str, *, timeout: float | None = None) -> None:
        self.target = target
        #: Unique to this case: every ref it sends carries it (see `Session.case_id`).
        self.run_id = run_id
        #: Seconds the server may take to answer one request.
        self.timeout = timeout
        #: Whether the transcript is the same on every run of the same server, so it has
        #: a golden file (a case marked `transcript_varies` has none).
        self.pinned = True
        self.transcript = Transcript()
        #: INFORMATIONAL facts this case recorded (requirement rows INFO/...).
        self.facts: dict[str, Any] = {}
        #: A catalog scenario's rounds: the catalog's ("expected") and the server's
        #: ("observed"), each a round's questions by parameter (None: not the catalog's).
        self.rounds: dict[str, list[list[str | None]]] = {}
        #: The client of the latest connection: an observation rides the same.
        self._client = Client(MODERN)

    def inform(self, requirement: str, value: Any) -> None:
        """Record an implementation-defined fact; it is reported, never judged."""
        self.facts[requirement] = value

    async def tools(self) -> frozenset[str]:
        """The target's tool names, listed once per run (the plugin lists them up front)."""
        if "names" not in self.target.tools:
            self.target.tools["names"] = await list_tools(self.target, self.timeout)
        return self.target.tools["names"]

    def scenario(self, case_id: str) -> Scenario:
        """The catalog scenario, its arguments prefixed for this run."""
        return load().scenarios[case_id].for_run(self.run_id)

    def peer(
        self, era: str, *, elicitation: bool | tuple[str, ...] = True, tasks: bool = False
    ) -> AbstractAsyncContextManager[Peer]:
        """A recorded connection at `era`; `drive()` answers the questions on it.
        With `tasks` the client declares the tasks extension (see `task_peer`)."""
        return self.connected(Client.of(era, elicitation, tasks))

    @contextlib.asynccontextmanager
    async def connected(self, client: Client) -> AsyncIterator[Peer]:
        """A recorded connection as `client`."""
        tools = await self.tools()
        self._client = client
        try:
            async with self.target.connect(client, self.transcript, tools=tools, timeout=self.timeout) as peer:
                yield peer
        except BaseExceptionGroup as group:
            # The transport's task group wraps whatever the case raised: a missing
            # tool, an unanswered request or a failed check reaches the report as itself.
            cause = unwrapped(group)
            if cause is group:
                raise
            raise cause from None

    async def run(
        self,
        case_id: str,
        era: str,
        *,
        answers: Mapping[str, Any] | None = None,
        on_round: OnRound | None = None,
    ) -> Run:
        """Drive the catalog scenario `case_id` on `era`."""
        scenario = self.scenario(case_id)
        if scenario.tool not in await self.tools():
            raise missing_tool(scenario.tool)
        script = Script(scenario.tool, scenario.arguments, answers or scenario.answers)
        async with self.peer(era) as peer:
            run = await drive(peer, scenario.tool, scenario.arguments, script, on_round=on_round)
        self.rounds = {"expected": [list(r) for r in scenario.expect.rounds], "observed": run.asked_params}
        return run

    async def call(
        self, era: str, tool: str, arguments: Mapping[str, Any], *, elicitation: bool | tuple[str, ...] = True
    ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """One `tools/call`, its questions left unanswered: the result, or the JSON-RPC error."""
        async with self.peer(era, elicitation=elicitation) as peer:
            try:
                result = await peer.call_tool(tool, dict(arguments))
                return (result if isinstance(result, dict) else {}), None
            except RpcError as error:
                return {}, error.error

    @contextlib.asynccontextmanager
    async def task_peer(self, *, elicitation: bool | tuple[str, ...] = True) -> AsyncIterator[Peer]:
        """A 2026-07-28 connection whose client opts into the tasks extension on every
        request, to a target that offers it.

        Raises:
            NotOffered: The target does not advertise the extension.
        """
        async with self.peer(MODERN, elicitation=elicitation, tasks=True) as peer:
            if not peer.offers(TASKS):
                raise no_tasks_extension()
            yield peer

    async def run_task(
        self,
        case_id: str,
        *,
        arguments: Mapping[str, Any] | None = None,
        answers: Mapping[str, Any] | None = None,
        on_episode: OnEpisode | None = None,
        elicitation: bool | tuple[str, ...] = True,
        peer: Peer | None = None,
    ) -> TaskRun:
        """Drive the catalog scenario `case_id` as a task, within the case's timeout,
        on `peer` or a connection of its own."""
        scenario = self.scenario(case_id)
        if scenario.tool not in await self.tools():
            raise missing_tool(scenario.tool)
        arguments = arguments if arguments is not None else scenario.arguments
        script = Script(scenario.tool, arguments, answers or scenario.answers)
        connection = contextlib.nullcontext(peer) if peer is not None else self.task_peer(elicitation=elicitation)
        async with connection as used:
            return await drive_task(used, scenario.tool, arguments, script,
                                    deadline=self.deadline(), on_episode=on_episode)

    def deadline(self) -> float:
        """When a wait that spans many requests (a task's polling) gives up."""
        return anyio.current_time() + (self.timeout if self.timeout is not None else math.inf)

    async def body_runs(self, ref: str) -> int:
        """How often the body ran for `ref`, asked by the same kind of client that
        made the call: over stdio that is the process that served it."""
        async with self.connected(self._client.identity) as peer:
            return body_run_count(await peer.call_tool("body_runs", {"ref": ref}))

    def tools_called(self) -> set[str]:
        """Every tool the case called, read from its transcript (whichever way it called)."""
        return {params["name"] for _, message in self.transcript.messages
                if message.get("method") == "tools/call" and isinstance(params := message.get("params"), dict)
                and isinstance(params.get("name"), str)}

    def normalized(self) -> list[dict[str, Any]]:
        """The transcript as its golden file and the report hold it."""
        return normalize(self.transcript, {self.run_id: "<run>"})


def no_tasks_extension() -> NotOffered:
    return NotOffered(
        f"the target does not offer the tasks extension ({TASKS} is not among the extensions "
        "its server/discover lists), so it runs no tool as a task and its TASK cases do not "
        "apply; a target that serves task-capable tools advertises it (the bundled reference "
        "does once the tasks extra is installed: pip install 'elicit-conformance[tasks]')",
        cause=f"{TASKS} not offered",
    )


def async_case(test: Callable[P, Awaitable[None]]) -> Callable[P, None]:
    """Run an async case on an event loop of its own, with its target running.

    The cases must not depend on the user's async plugin or its mode (a
    pytest-asyncio in strict mode would not run them; a session-wide loop would
    share state between them), so to pytest they are plain functions.
    """

    @functools.wraps(test)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        case = next((value for value in (*args, *kwargs.values()) if isinstance(value, Case)), None)

        async def running() -> None:
            async with case.target.running() if case is not None else contextlib.nullcontext():
                await test(*args, **kwargs)

        anyio.run(running)

    return run


def body_run_count(result: Any) -> int:
    """The count a `body_runs` call returned, structured or as text.

    Raises:
        Broken: The answer holds no count (the contract's `body_runs` returns one).
    """
    try:
        structured = result.get("structuredContent") or {}
        if isinstance(structured, dict) and "result" in structured:
            return int(structured["result"])
        return int(result["content"][0]["text"])
    except (AttributeError, LookupError, TypeError, ValueError):
        raise Broken(f"body_runs answered {brief(result)}, which holds no count of body runs") from None

