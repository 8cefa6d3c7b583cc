"""TASK: declared questions on background tasks (the tasks extension, 2026-07-28).

A target that advertises `io.modelcontextprotocol/tasks` in `server/discover`
runs the catalog's "task" tools as tasks when the client opts in; every case
here is NOT TESTABLE on any other target. Questions arrive inside `tasks/get`,
answers go back by `tasks/update`, and the outcome must be the foreground's.
The transcripts have no golden files: how often a client polls before a task
moves on depends on timing, not on behaviour.
"""

from __future__ import annotations

import contextlib
from typing import Any

import anyio
import pytest

from elicit_conformance.catalog import load
from elicit_conformance.connection.wire import NO_FORM
from elicit_conformance.exceptions import RpcError
from elicit_conformance.grading.checks import (
    check_missing_form_elicitation, check_outcome, check_rounds, refusal_said, rounds_said, scenario_checks,
)
from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.harness.driver import Script, as_object, read_requests
from elicit_conformance.harness.tasked import TERMINAL, Episode, TaskRun, drive_task, poll_task, poll_until_ended
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import HANDSHAKE, MODERN
from elicit_conformance.verdict import check, should

CATALOG = load()
#: The catalog's scenarios whose tool runs as a task on a task-capable target.
TASKED = [sid for sid, s in CATALOG.scenarios.items() if CATALOG.tools[s.tool].task]
#: A task is still running or waiting; anything else has ended.
OPEN = ("working", "input_required")
#: Seconds a cancelled task may take to end (TASK-4): cancellation is eventually consistent.
CANCEL_WAIT = 5.0

#: How often a client polls before a task moves on depends on timing.
pytestmark = pytest.mark.transcript_varies("tasks/get is polled as often as timing needs")


def _asked_in_one_flow(run: TaskRun, tool: str) -> None:
    """TASK-1: the call asks in foreground rounds and then makes the task (the
    extension's recommended composition), or makes the task first and asks inside
    it, or makes none; a round carries no taskId, and a task no round's state."""
    created = as_object(run.created)
    check("TASK-1", run.task_id is not None or run.error is None,
          f"the tasked call of {tool} was refused: {brief(run.error)}")
    tasked = [r for r in run.asks if "taskId" in r]
    check("TASK-1", not tasked, f"a foreground round of {tool} also carried a task ({brief(tasked[:1])}); "
          "a round asks, a task is made by the round that completes them")
    if created.get("resultType") == "task":
        check("TASK-1", isinstance(created.get("taskId"), str),
              f"the tasked call of {tool} answered {brief(created)}: a task without a string taskId")
        carried = [k for k in ("inputRequests", "requestState") if k in created]
        check("TASK-1", not carried, f"the task's creation carried {carried} ({brief(created)}); a task's "
              "questions come through tasks/get, and a round's state belongs to a round")


def _asks_inside_a_task(run: TaskRun, tool: str, what: str) -> None:
    """Skip a case about questions inside a task where the server asked none there:
    it asked before making the task (the recommended composition) or made none."""
    if run.task_id is None or run.asks:
        how = "made no task" if run.task_id is None else "asked before it made the task"
        pytest.skip(f"not applicable: the server {how} for {tool} (the tasks extension lets it decide), "
                    f"so there was no question inside a task for {what}")


@pytest.mark.tools("book_trip")
@pytest.mark.checks("TASK-1")
@pytest.mark.revisions(MODERN)
@async_case
async def test_task_1_a_tasked_call_asks_in_one_flow(case: Case, era: str) -> None:
    """book_trip called with the tasks extension declared asks its three questions
    in one of the flows the extension allows: in foreground rounds (no `taskId`) and
    then a task with no `requestState` or `inputRequests` (recommended); a task
    first (`resultType: "task"`, a string `taskId`, working or input_required),
    whose `tasks/get` reports `input_required` with the questions; or no task at
    all. Never an error."""
    scenario = case.scenario("BAT-3")
    run = await case.run_task("BAT-3")
    _asked_in_one_flow(run, scenario.tool)
    check("TASK-1", bool(run.rounds), f"the tasked call of {scenario.tool} never asked (it ended: {brief(run.text)})")
    if run.task_id is not None and not run.asks:
        status = as_object(run.created).get("status")
        check("TASK-1", status in OPEN, f"the new task's status is {brief(status)}; a task that must ask "
              f"first is {' or '.join(OPEN)}")
        check("TASK-1", "input_required" in run.statuses,
              f"tasks/get never reported input_required (statuses: {run.statuses}); the questions come through it")


def _task_checks(case_id: str) -> list[str]:
    """TASK-1, TASK-2 and TASK-8, and the rows the scenario checks in the foreground."""
    return ["TASK-1", "TASK-2", "TASK-8", *scenario_checks(case_id, MODERN)]


@pytest.mark.parametrize(
    "case_id", [pytest.param(sid, marks=(pytest.mark.checks(*_task_checks(sid)),
                                         pytest.mark.tools(load().scenarios[sid].tool, "body_runs")), id=sid)
                for sid in TASKED]
)
@pytest.mark.revisions(MODERN)
@async_case
async def test_task_2_scenario_tasked(case: Case, case_id: str, era: str) -> None:
    """Each scenario of a "task" tool, tasked: in one flow (TASK-1) it asks the
    scenario's rounds, one per foreground round or `input_required` episode, each in signature order,
    and ends with its outcome, judged on the scenario's own rows as in the
    foreground; no request key is used twice in the task's life (TASK-8); a result arrives in
    a `completed` task, a refusal as a completed task with `isError`, a `failed` task with its
    error, or a JSON-RPC error (TASK-2), and the body runs as the scenario lists: once where
    the call completes, whether it asked before the task or inside it."""
    scenario = case.scenario(case_id)
    run = await case.run_task(case_id)
    _asked_in_one_flow(run, scenario.tool)
    check("TASK-8", not run.reused, f"the task used a request key again: {'; '.join(run.reused)}; a key is "
          "unique over a task's lifetime")
    check_rounds(run, scenario, MODERN)
    error = as_object(run.ended_as.get("error"))
    check("TASK-2", run.statuses[-1:] != ["failed"] or isinstance(error.get("code"), int) and "message" in error,
          f"the task ended failed as {brief(run.ended_as)}; a failed task carries its JSON-RPC error")
    check_outcome(run, scenario, f"{scenario.family}/clear")
    # A call that completes ran its body once, whichever flow made the task.
    expected = scenario.expect.body_runs if scenario.expect.result is None else 1
    if expected is not None and "ref" in scenario.arguments:
        runs = await case.body_runs(scenario.arguments["ref"])
        check("TASK-2", runs == expected, f"tasked, the body ran {runs} time(s); it must run {expected} time(s) "
              f"({'once, in the task' if expected else 'never'})")


@pytest.mark.tools("book_trip")
@pytest.mark.checks("TASK-3")
@pytest.mark.revisions(MODERN)
@async_case
async def test_task_3_partial_answers_keep_the_task_waiting(case: Case, era: str) -> None:
    """book_trip tasked: at its one episode the client first sends an answer under a
    key the task did not ask (the task still asks all three), then the destination
    alone (the task stays `input_required` asking date and cabin, not the
    destination), then the rest: the task completes with every answer."""
    partial: list[bool] = []

    async def piecewise(episode: Episode) -> dict[str, Any] | None:
        run, peer, answers = episode.run, episode.peer, episode.params["inputResponses"]
        if episode.number > 0:
            return episode.params
        asked = {a.param: a.key for a in run.rounds[0]}
        check("TASK-3", set(asked) == {"destination", "date", "cabin"},
              f"the task asked {rounds_said(run, 'book_trip')}; book_trip asks destination, date and cabin at once")
        destination = answers[asked["destination"]]
        # Either may be refused: an unasked key "SHOULD" be ignored; a partial set "MAY" be accepted.
        with contextlib.suppress(RpcError):
            await peer.request("tasks/update", {"taskId": run.task_id,
                                                "inputResponses": {f"{run.task_id}-unasked": destination}})
        waiting = await poll_task(peer, run, case.deadline())
        still = {a.param for a in read_requests(waiting, episode.script)}
        check("TASK-3", waiting.get("status") == "input_required" and still == set(asked),
              f"after an answer under a key it never asked, the task is {waiting.get('status')!r} asking "
              f"{sorted(still, key=str)}; it must still ask all of {sorted(asked)}")
        try:
            await peer.request("tasks/update", {"taskId": run.task_id,
                                                "inputResponses": {asked["destination"]: destination}})
        except RpcError:
            partial.append(False)  # a partial set refused: the task waits for all, as before
            return episode.params
        rest = await poll_task(peer, run, case.deadline(), {asked["destination"]})
        left = {a.param: a.key for a in read_requests(rest, episode.script)}
        check("TASK-3", rest.get("status") == "input_required" and set(left) == {"date", "cabin"},
              f"after the destination alone, the task is {rest.get('status')!r} asking "
              f"{sorted(left, key=str)}; it must wait for date and cabin, and not ask the destination again")
        partial.append(True)
        return {"taskId": run.task_id,
                "inputResponses": {left[p]: answers[asked[p]] for p in ("date", "cabin")}}

    scenario = case.scenario("BAT-3")
    run = await case.run_task("BAT-3", on_episode=piecewise)
    _asks_inside_a_task(run, scenario.tool, "answering part of")
    check("TASK-3", bool(partial), f"the task never asked (it ended: {brief(run.text)})")
    check("TASK-3", run.text == scenario.expect.result,
          f"answered piecewise, the task ended with {brief(run.text)}; the catalog's result is "
          f"{scenario.expect.result!r}")


@pytest.mark.tools("body_runs", "book_destination")
@pytest.mark.checks("TASK-4")
@pytest.mark.revisions(MODERN)
@async_case
async def test_task_4_cancel_ends_a_waiting_task_without_its_body(case: Case, era: str) -> None:
    """book_destination tasked: at its question the client sends `tasks/cancel`, then
    polls `tasks/get` for up to `CANCEL_WAIT` s: the task reaches a terminal status (not
    `cancelled` at once: cancellation is eventually consistent); the body never ran."""
    ref = f"{case.run_id}-task-4"

    async def cancel(episode: Episode) -> None:
        await episode.peer.request("tasks/cancel", {"taskId": episode.run.task_id})
        await poll_until_ended(episode.peer, episode.run, min(case.deadline(), anyio.current_time() + CANCEL_WAIT))

    scenario = case.scenario("BAT-1")
    run = await case.run_task("BAT-1", on_episode=cancel, arguments={"ref": ref})
    _asks_inside_a_task(run, scenario.tool, "cancelling")
    check("TASK-4", bool(run.rounds), f"the task never asked (it ended: {brief(run.text)})")
    check("TASK-4", run.statuses[-1] in TERMINAL,
          f"{CANCEL_WAIT:g} s after tasks/cancel the task still reported {run.statuses[-1]!r} (statuses: "
          f"{run.statuses}); a cancelled task waiting for answers must reach a terminal status")
    runs = await case.body_runs(ref)
    check("TASK-4", runs == 0, f"the body of {scenario.tool} ran {runs} time(s) for a cancelled task")


#: TASK-5's calls: a server may make one tool's task before asking, another's after (the reference does).
UNASKABLE = {"BAT-1": "book_destination", "BAT-3": "book_trip"}


@pytest.mark.tools("body_runs", *UNASKABLE.values())
@pytest.mark.checks("TASK-5", "ERA-7/code")
@pytest.mark.revisions(MODERN)
@pytest.mark.parametrize("declared", list(NO_FORM))
@pytest.mark.parametrize("scenario_id", list(UNASKABLE), ids=list(UNASKABLE.values()))
@async_case
async def test_task_5_a_client_without_form_elicitation_is_never_asked_in_a_task(
    case: Case, scenario_id: str, declared: str, era: str
) -> None:
    """book_destination and book_trip, tasked by a client that declares the tasks extension but
    no elicitation, or only `{"url": {}}`: no `tasks/get` carries a form question (the creation may
    be refused, or the task end without asking); no body runs; a refused call is -32021 (ERA-7/code)."""
    ref = f"{case.run_id}-task-5-{scenario_id}-{declared}"

    async def stop(episode: Episode) -> None:
        await episode.peer.request("tasks/cancel", {"taskId": episode.run.task_id})

    run = await case.run_task(scenario_id, on_episode=stop, arguments={"ref": ref}, elicitation=NO_FORM[declared])
    forms = [a.message for episode in run.rounds for a in episode if a.form]
    check("TASK-5", not forms, f"a tasked call asked a client that declared {declared!r} the form question(s) "
          f"{forms} ({'in foreground rounds' if run.asks else 'inside tasks/get'})")
    runs = await case.body_runs(ref)
    check("TASK-5", runs == 0, f"the body ran {runs} time(s) for a client that could not be asked")
    if run.task_id is None and run.failed:
        check_missing_form_elicitation(run.error, run.result, "the tasked call")


@pytest.mark.tools()
@pytest.mark.checks("TASK-1/clear")
@pytest.mark.revisions(MODERN)
@async_case
async def test_task_1_an_unknown_tool_is_refused_as_without_the_extension(case: Case, era: str) -> None:
    """`tools/call` of a tool the target does not have, from a client declaring the
    tasks extension and from one that does not: the same JSON-RPC error code (or the
    same kind of result) both ways; the extension is no reason for an internal error."""
    name = "no_such_tool_elicit_conformance"

    async def answer(peer: Any) -> tuple[Any, dict[str, Any] | None]:
        try:
            # Not call_tool, which reads a tool the target lacks as a case not testable.
            return await peer.request("tools/call", {"name": name, "arguments": {}}), None
        except RpcError as error:
            return None, error.error

    async with case.task_peer() as peer:
        tasked, tasked_error = await answer(peer)
    async with case.peer(era) as peer:
        plain, plain_error = await answer(peer)
    plain_code = plain_error.get("code") if plain_error is not None else None
    tasked_code = tasked_error.get("code") if tasked_error is not None else None
    should("TASK-1/clear", tasked_code == plain_code and (tasked_error is None) == (plain_error is None),
           f"calling the unknown tool {name!r} with the tasks extension declared gave "
           f"{refusal_said(tasked_error, tasked)}, without it {refusal_said(plain_error, plain)}; the extension "
           "changes nothing for a call that cannot become a task")


@pytest.mark.tools("book_trip")
@pytest.mark.checks("TASK-6")
@pytest.mark.revisions(HANDSHAKE)
@async_case
async def test_task_6_the_handshake_era_runs_a_task_tool_in_the_foreground(case: Case, era: str) -> None:
    """On a target that offers the tasks extension on 2026-07-28: on 2025-11-25
    book_trip asks its three questions as `elicitation/create` and returns its
    result inline (no task), and `tasks/get` of a task no call made is a JSON-RPC error
    (2025-11-25 defines `tasks/get`: -32602 where the server serves it, -32601 where not)."""
    async with case.task_peer():
        pass  # not testable unless the target offers tasks at all
    scenario = case.scenario("BAT-3")
    run = await case.run("BAT-3", era)
    check("TASK-6", as_object(run.result).get("resultType") != "task" and "taskId" not in as_object(run.result),
          f"on {era} book_trip answered {brief(run.result)}, a task; there it runs in the foreground")
    check("TASK-6", run.text == scenario.expect.result and len(run.rounds) == 3,
          f"on {era} book_trip asked {rounds_said(run, scenario.tool)} and ended with {brief(run.text)}; "
          f"it asks each question by elicitation/create and returns {scenario.expect.result!r}")
    async with case.peer(era) as peer:
        try:
            answer: Any = await peer.request("tasks/get", {"taskId": "no-such-task"})
        except RpcError as error:
            answer = None
            check("TASK-6", error.error.get("code") in (-32601, -32602),
                  f"on {era} tasks/get of a task no call made answered the error {brief(error.error)}; "
                  "it is -32602 (unknown task) or, where the server serves no tasks there, -32601")
        check("TASK-6", answer is None, f"on {era} tasks/get of a task no call made answered {brief(answer)}; "
              "it is a JSON-RPC error")


@pytest.mark.tools("body_runs", "book_destination")
@pytest.mark.checks("TASK-7")
@pytest.mark.revisions(MODERN)
@pytest.mark.parametrize("attack", ["foreign-keys", "malformed", "after-completion"])
@async_case
async def test_task_7_hostile_task_updates_never_run_the_body_with_bad_data(
    case: Case, attack: str, era: str
) -> None:
    """book_destination tasked, and what the client sends to `tasks/update` is
    hostile (a taskId never made: test_task_answers.py): `foreign-keys` (the answer sent under another
    waiting task's key: refused or ignored, the task still asks), `malformed` (the answer
    `{"value": 42}` for a string, then a reply that is not an ElicitResult: asked again
    or refused, never a completed booking), `after-completion` (the completed task's
    keys answered again: its result and the body's single run unchanged)."""
    ref = f"{case.run_id}-task-7-{attack}"
    arguments = {"ref": ref}
    if attack == "foreign-keys":
        await _foreign_keys(case, ref)
    elif attack == "malformed":
        run = await case.run_task("BAT-1", arguments=arguments, answers={"destination": {"content": {"value": 42}}})
        check("TASK-7", run.failed or run.gave_up or not run.text.startswith("Booked"),
              f"answered 42 for a string, the task ended with {brief(run.text)}")
        run = await case.run_task("BAT-1", arguments=arguments, on_episode=_not_an_elicit_result)
        _asks_inside_a_task(run, "book_destination", "answering with something that is not an ElicitResult")
        check("TASK-7", run.failed or not run.text.startswith("Booked"),
              f"answered with something that is not an ElicitResult, the task ended with {brief(run.text)}")
    else:
        async with case.task_peer() as peer:
            run = await _booked(case, peer, arguments)
            if run.task_id is None:
                pytest.skip("not applicable: the server made no task for book_destination (the tasks extension "
                            "lets it decide), so there was no completed task to answer again")
            keys = {a.key for episode in run.rounds for a in episode}
            with contextlib.suppress(RpcError):  # refused is as good as ignored
                await peer.request("tasks/update", {"taskId": run.task_id, "inputResponses": {
                    key: {"action": "accept", "content": {"value": "Mars"}} for key in keys}})
            again = await poll_task(peer, run, case.deadline())
        check("TASK-7", as_object(again.get("result")) == run.result,
              f"answered again after it completed, the task's result became {brief(again.get('result'))} "
              f"(it was {brief(run.result)})")
    runs = await case.body_runs(ref)
    expected = 1 if attack == "after-completion" else 0
    check("TASK-7", runs == expected, f"the body ran {runs} time(s); it must run {expected} time(s) here")


async def _not_an_elicit_result(episode: Episode) -> dict[str, Any]:
    return {**episode.params, "inputResponses": {k: {"roots": []} for k in episode.params["inputResponses"]}}


async def _booked(case: Case, peer: Any, arguments: dict[str, Any]) -> TaskRun:
    """book_destination tasked on `peer`, answered "Paris", to the end."""
    scenario = case.scenario("BAT-1")
    script = Script(scenario.tool, arguments, scenario.answers)
    return await drive_task(peer, scenario.tool, arguments, script, deadline=case.deadline())


async def _foreign_keys(case: Case, ref: str) -> None:
    """Two waiting tasks on one connection; each one's answer sent under the other's key."""
    other = {"ref": f"{ref}-other"}
    parked: list[Episode] = []

    async def park(episode: Episode) -> None:
        parked.append(episode)

    async with case.task_peer() as peer:
        first_run = await case.run_task("BAT-1", arguments={"ref": ref}, on_episode=park, peer=peer)
        _asks_inside_a_task(first_run, "book_destination", "answering under another task's key")
        await case.run_task("BAT-1", arguments=other, on_episode=park, peer=peer)
        check("TASK-7", len(parked) >= 2, "a tasked book_destination never asked its question")
        first, second = parked
        # Keys need only be unique within a task: under a key both tasks use, the other's
        # answer is this task's own answer, so only keys this task never used are foreign.
        foreign = {mine.run.task_id: {k: v for k, v in theirs.params["inputResponses"].items()
                                      if k not in mine.params["inputResponses"]}
                   for mine, theirs in ((first, second), (second, first))}
        if not all(foreign.values()):
            pytest.skip("not applicable: both tasks key their question alike (keys are unique within a task, "
                        "not across tasks), so no answer is under a key foreign to the other")
        for mine in parked:
            with contextlib.suppress(RpcError):  # refused, or ignored: either leaves it unanswered
                await peer.request("tasks/update", {"taskId": mine.run.task_id,
                                                    "inputResponses": foreign[mine.run.task_id]})
        for episode in parked:
            task = await poll_task(peer, episode.run, case.deadline())
            check("TASK-7", task.get("status") == "input_required",
                  f"a task answered under another task's key is {task.get('status')!r} "
                  f"({brief(task)}); that answer is not its own, so it must still ask")
    runs = await case.body_runs(other["ref"])
    check("TASK-7", runs == 0, f"the body ran {runs} time(s) on answers meant for another task")
