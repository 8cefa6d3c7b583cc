"""The reference's background tasks beyond what the catalog's `task=True` tools
show: a tool declared `task=TaskConfig(mode="required")` asks its questions in
foreground rounds and then makes the task (the tasks extension's recommended
composition), one declared `AsksInsideTheTask(mode="required")` makes the task
first and asks through it, and without the tasks extra the reference serves no task.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

import anyio
import pytest
from fastmcp.client.transports.memory import FastMCPTransport
from fastmcp.utilities.tasks import TaskConfig

from elicit_conformance.connection.client import Client
from elicit_conformance.connection.wire import Transcript, connect
from elicit_conformance.exceptions import RpcError
from elicit_conformance.harness.driver import Script
from elicit_conformance.harness.tasked import drive_task
from elicit_conformance.reference import DeclarativeFastMCP, Elicit
from elicit_conformance.revisions import MODERN
from tests.suite import TASKS_SERVED


def which_airport(destination: str) -> Elicit[str]:
    return Elicit(f"Which airport in {destination}?", response_type=str)


def _required_mode_app(inside: bool) -> tuple[DeclarativeFastMCP, list[tuple[str, str]]]:
    from elicit_conformance.reference.tasks import AsksInsideTheTask, DeclarativeTasks

    app = DeclarativeFastMCP("required-tasks")
    app.add_extension(DeclarativeTasks())
    ran: list[tuple[str, str]] = []
    config = AsksInsideTheTask if inside else TaskConfig

    @app.tool(task=config(mode="required", poll_interval=timedelta(milliseconds=20)))
    def book_airport(
        destination: Annotated[str, Elicit("Where would you like to fly?")],
        airport: Annotated[str, Elicit(which_airport)],
    ) -> str:
        ran.append((destination, airport))
        return f"{destination}/{airport}"

    return app, ran


@pytest.mark.parametrize("inside", [False, True], ids=["asks-then-task", "task-then-asks"])
def test_a_required_mode_task_tool_asks_in_its_flow(inside: bool) -> None:
    if not TASKS_SERVED:
        from elicit_conformance.reference.app import tools as reference

        assert reference.TASK is False, "without fastmcp-tasks the reference must run its tools in the foreground"
        return
    app, ran = _required_mode_app(inside)  # the catalog's book_airport, tasks required
    answers = {"destination": {"accept": "Paris"}, "airport": {"accept": "ORY"}}

    async def book() -> tuple[Any, Any]:
        async with connect(FastMCPTransport(app), Client(MODERN, tasks=True), Transcript()) as opted:
            run = await drive_task(opted, "book_airport", {}, Script("book_airport", {}, answers),
                                   deadline=anyio.current_time() + 30)
        async with connect(FastMCPTransport(app), Client(MODERN), Transcript()) as plain:
            try:
                foreground: Any = await plain.call_tool("book_airport", {})
            except RpcError as error:
                foreground = error
        return run, foreground

    run, foreground = anyio.run(book)
    assert run.task_id is not None and run.error is None, run
    assert [[a.param for a in asked] for asked in run.rounds] == [["destination"], ["airport"]], run.rounds
    assert run.text == "Paris/ORY" and ran == [("Paris", "ORY")], (run.result, ran)
    if inside:  # the task first: no foreground round, both questions through tasks/get
        assert not run.asks and "input_required" in run.statuses, (run.asks, run.statuses)
    else:  # two foreground rounds with no taskId; the completing one makes the task, which never asks
        assert len(run.asks) == 2 and not any("taskId" in r for r in run.asks), run.asks
        assert "input_required" not in run.statuses, run.statuses
        assert run.created.get("resultType") == "task" and not {"requestState", "inputRequests"} & set(run.created), run.created
    # mode="required": a client that does not opt into tasks is refused (-32021, naming
    # the extension to declare), and nothing runs.
    assert isinstance(foreground, RpcError) and foreground.error["code"] == -32021, foreground
    assert "io.modelcontextprotocol/tasks" in str(foreground), foreground.error
    assert ran == [("Paris", "ORY")]


def test_the_round_that_makes_a_task_sent_again_answers_the_same_task() -> None:
    """The reference's promise (reference/tasks.py): a client that lost the CreateTaskResult
    and sends the completing round again gets the same task, not a second and not an error.
    The suite's SEC-5 case also accepts an error; this is the reference's own, stricter word
    (it answered -32602 "Invalid request parameters" while its record was kept by alias)."""
    if not TASKS_SERVED:
        return
    from elicit_conformance.harness.driver import input_requests, state_of
    from elicit_conformance.reference.app import app

    async def send_twice() -> list[dict[str, Any]]:
        async with connect(FastMCPTransport(app), Client(MODERN, tasks=True), Transcript()) as peer:
            first = await peer.call_tool("book_once", {"ref": "made-twice"})
            answer = {key: {"action": "accept", "content": {"value": "Paris"}} for key in input_requests(first)}
            return [await peer.call_tool("book_once", {"ref": "made-twice"}, inputResponses=answer, **state_of(first))
                    for _ in range(2)]

    made, again = anyio.run(send_twice)
    assert made.get("resultType") == "task" and again == made, (made, again)
