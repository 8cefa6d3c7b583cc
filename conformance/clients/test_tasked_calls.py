"""CLI on tasked calls (the tasks extension, `io.modelcontextprotocol/tasks`, on 2026-07-28):
a client that declares the extension is answered a `CreateTaskResult`, after a round or at
once, and drives the task to the call's result: it polls `tasks/get` (with the `Mcp-Name`
header, waiting `pollIntervalMs`), answers what the task asks through `tasks/update`, and
the call completes with the task's result; or, its user cancelling the call, it cancels the
task with `tasks/cancel`.

The extension is optional for a client, as for a server: a client that declares it on none
of its calls is answered -32021 (the extension's rule for a server that can serve the call
only as a task) and its cases end "not implemented", as a server's TASK cases do when it
does not advertise the extension."""

from __future__ import annotations

from typing import Any

import pytest

from elicit_conformance.connection.wire import TASKS
from elicit_conformance.exceptions import NotOffered
from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.harness.driver import as_object
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import MODERN
from elicit_conformance.verdict import check, should

from .play import Played, answered, capabilities_of, check_answers, is_the_answer, params_of, play, responses_of
from .scenario_server import POLL_INTERVAL_MS, RunningTask
from .scenarios import SCENARIOS

pytestmark = pytest.mark.revisions(MODERN)

#: The requests the routing header binds (CLI-17).
TASK_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")
#: What a poll that waited out pollIntervalMs may still fall short by, in seconds: a timer
#: fires a little early at times, and the server stamps its answer before sending it.
SLACK = 0.05


async def _tasked(case: Case, scenario: str, era: str) -> Played:
    """Play a tasked scenario whose client declares the tasks extension on its first call
    (else the case ends not implemented)."""
    played = await play(case, scenario, era)
    tool = SCENARIOS[scenario].scripts[0].tool
    calls = played.calls(tool)
    check("CLI-16", bool(calls), f"the client never called {tool}: {played.exited.said()}")
    capabilities = as_object(capabilities_of(calls[0]))
    if TASKS not in as_object(capabilities.get("extensions")):
        raise NotOffered(
            f"the client declared the client capabilities {brief(capabilities)} on its first call of {tool}, without "
            f"the {TASKS} extension: it takes no tasks, so its tasked-call cases do not apply (the server, which "
            "serves the call only as a task, answered it -32021, Missing Required Client Capability, as the "
            f"extension requires; {played.exited.said()})", cause=f"{TASKS} not declared")
    return played


def _made(played: Played, tool: str) -> tuple[RunningTask, list[dict[str, Any]]]:
    """CLI-16: the task the server made for `tool` (one was made), and the client's polls of it."""
    tasks = played.tasks()
    check("CLI-16", bool(tasks), f"the server never answered {tool} with a CreateTaskResult: the client's calls "
          f"{brief([params_of(c) for c in played.calls(tool)])} did not reach it ({played.exited.said()})")
    return tasks[0], _task_requests(played, "tasks/get", tasks[0])


def _task_requests(played: Played, method: str, task: RunningTask) -> list[dict[str, Any]]:
    return [r for r in played.server.requests() if r.get("method") == method and params_of(r).get("taskId") == task.task_id]


def _task_of(played: Played, tool: str) -> tuple[RunningTask, list[dict[str, Any]]]:
    """CLI-16: the task the server made for `tool`, and the client's polls of it; the client
    polled it until it was completed, and the call completed with its result."""
    task, polls = _made(played, tool)
    polled = (f"polled it {len(polls)} time(s) with tasks/get and stopped before a poll found it completed" if polls
              else "never polled it with tasks/get")
    check("CLI-16", task.done, f"the server answered {tool} with a CreateTaskResult (task {task.task_id}), and the "
          f"client {polled} ({played.exited.said()}); a client that declared the tasks extension drives a "
          "CreateTaskResult to the call's result")
    exited = played.exited
    check("CLI-16", exited.code == 0 and task.script.text in exited.stdout,
          f"a tasks/get answered task {task.task_id} completed with a result whose text is {task.script.text!r}, and "
          f"{exited.said()}; the call completes with the task's result (the client prints its text and exits 0)")
    return task, polls


def _check_poll_pace(played: Played, task: RunningTask, polls: list[dict[str, Any]]) -> None:
    """CLI-20 (SHOULD): each poll after one answered `working` waited pollIntervalMs."""
    for poll, following in zip(polls, polls[1:]):
        answer = _answer_to(played, poll)
        if as_object(as_object(answer).get("result")).get("status") != "working":
            continue
        waited = played.server.time_of(following) - played.server.time_of(answer)
        should("CLI-20", waited >= POLL_INTERVAL_MS / 1000 - SLACK,
               f"the client polled task {task.task_id} again {waited * 1000:.0f} ms after a tasks/get answered it "
               f"working with pollIntervalMs {POLL_INTERVAL_MS}; a client waits the interval it is given between polls")


def _check_routing_headers(played: Played) -> None:
    """CLI-17: each tasks/* request's Mcp-Name header is its taskId."""
    for request in played.server.requests():
        if request.get("method") in TASK_METHODS:
            sent, task_id = played.server.header(request, "mcp-name"), params_of(request).get("taskId")
            check("CLI-17", sent == task_id,
                  f"{request['method']} (id {request.get('id')!r}) of task {task_id} was posted "
                  f"{'without an Mcp-Name header' if sent is None else f'with Mcp-Name {sent!r}'}; the header routes "
                  "a task's requests to the instance holding it, and carries its params.taskId")


def _answer_to(played: Played, request: dict[str, Any]) -> dict[str, Any] | None:
    """The server's answer to the client's `request`."""
    messages = played.server.transcript.messages
    at = next(i for i, (_, m) in enumerate(messages) if m is request)
    return next((m for direction, m in messages[at + 1:] if direction == "server->client"
                 and "method" not in m and m.get("id") == request.get("id")), None)


@pytest.mark.checks("CLI-16", "CLI-4", "CLI-7", "CLI-20", "CLI-17")
@async_case
async def test_cli_a_call_that_becomes_a_task_after_its_round_completes_with_its_result(client_case: Case,
                                                                                         era: str) -> None:
    """Scenario task-after-rounds: book_flight asks one question in a round; the retry that
    answers it is answered with a CreateTaskResult; the client polls tasks/get (pausing
    pollIntervalMs after a poll answered working, each with the Mcp-Name header) until the
    task is completed, and prints its result's text ('Booked')."""
    played = await _tasked(client_case, "task-after-rounds", era)
    retry = answered(played, "book_flight")[1]
    check_answers("task-after-rounds", retry, {"destination": "Where would you like to fly?"})
    task, polls = _task_of(played, "book_flight")
    _check_poll_pace(played, task, polls)
    _check_routing_headers(played)


@pytest.mark.checks("CLI-16", "CLI-18", "CLI-19", "CLI-20", "CLI-17")
@async_case
async def test_cli_a_task_s_questions_are_answered_through_tasks_update(client_case: Case, era: str) -> None:
    """Scenario task-first: book_trip is answered with a CreateTaskResult at once; polled, the
    task is input_required with two questions ('destination', 'date'), which the client
    answers through tasks/update, each key once while the task asks it (destination
    accepted with {"value": "Paris"}, date declined), then working, then completed: the
    client prints its result's text ('Booked')."""
    played = await _tasked(client_case, "task-first", era)
    task, polls = _task_of(played, "book_trip")
    updates = _task_requests(played, "tasks/update", task)
    for key, request in task.asks.items():
        message = request["params"]["message"]
        wanted = SCENARIOS["task-first"].answers[message]
        sent = next((responses_of(u)[key] for u in updates if key in responses_of(u)), None)
        check("CLI-18", is_the_answer(sent, wanted),
              f"the task's question {message!r} (key {key!r}) was answered {brief(sent)} through tasks/update; the "
              f"user's answer was {brief(wanted)}, which the same question asked in a round gets")
    for update, unasked in zip(updates, task.unasked):
        check("CLI-19", not unasked,
              f"the tasks/update (id {update.get('id')!r}) of task {task.task_id} answered {unasked}, which the task "
              "was not asking when it arrived (answered already, or never asked); a client answers the requests "
              "still outstanding, each once")
    _check_poll_pace(played, task, polls)
    _check_routing_headers(played)


@pytest.mark.checks("CLI-22", "CLI-23", "CLI-16", "CLI-20", "CLI-17")
@async_case
async def test_cli_a_task_its_user_cancels_is_cancelled_with_tasks_cancel(client_case: Case, era: str) -> None:
    """Scenario task-cancel: search_fares is answered with a CreateTaskResult at once, a task
    that keeps working until it is cancelled; the user cancels the call, and the client
    cancels the task with tasks/cancel (with the Mcp-Name header), not with
    notifications/cancelled. It may poll before and after, or not at all."""
    played = await _tasked(client_case, "task-cancel", era)
    task, polls = _made(played, "search_fares")
    tasked = [call.get("id") for call in played.calls("search_fares")
              if as_object(as_object(_answer_to(played, call)).get("result")).get("resultType") == "task"]
    notes = [note for note in played.server.bodies() if note.get("method") == "notifications/cancelled"
             and params_of(note).get("requestId") in tasked]
    check("CLI-22", not notes,
          f"the client sent notifications/cancelled {brief(params_of(notes[0]) if notes else None)}, naming the "
          f"tools/call of search_fares the server answered with a CreateTaskResult (task {task.task_id}); a task is "
          "cancelled with tasks/cancel, never with notifications/cancelled")
    cancels = _task_requests(played, "tasks/cancel", task)
    if not cancels and played.exited.code is None:
        raise NotOffered(
            f"the client never cancelled task {task.task_id}, which its user cancelled: it polled it {len(polls)} time(s) "
            f"with tasks/get until {played.exited.said()}; it offers no way to cancel a task, so this case does not "
            "apply", cause="task cancellation not offered")
    should("CLI-23", bool(cancels),
           f"the client stopped polling task {task.task_id} after {len(polls)} poll(s), the task still working, without "
           f"sending tasks/cancel ({played.exited.said()}); a client polls a task until it ends, or cancels it")
    _check_poll_pace(played, task, polls)
    _check_routing_headers(played)
