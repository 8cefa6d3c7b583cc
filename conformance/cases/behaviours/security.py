"""The behaviour cases of `test_behaviours.py`: what the client sends back, tampered,
replayed or malformed, never reaches the body."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from elicit_conformance.exceptions import RpcError
from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.harness.driver import Run, Script, drive, input_requests, result_text, state_of
from elicit_conformance.harness.tasked import TaskRun, poll_until_ended
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import MODERN
from elicit_conformance.verdict import check


def _forgeries(state: str) -> dict[str, str]:
    flipped = state[:-3] + ("A" if state[-3:-2] != "A" else "B") + state[-2:]
    return {"flipped": flipped, "truncated": state[: len(state) // 2], "forged": "v1.AAAAAAAA", "empty": ""}


@pytest.mark.tools("body_runs", "book_destination")
@pytest.mark.checks("SEC-1")
@pytest.mark.revisions(MODERN)
@pytest.mark.parametrize("kind", ["flipped", "truncated", "forged", "empty"])
@async_case
async def test_sec_1_tampered_state_is_rejected_and_the_body_does_not_run(
    case: Case, kind: str, era: str,
) -> None:
    """Scenario BAT-1 on 2026-07-28 with the retry's requestState flipped (one
    character changed near its end), truncated to half, forged ('v1.AAAAAAAA') or
    empty: the call fails, or asks its question again (what mrtr prefers to an error);
    the body never runs. Where the server sent no requestState there is nothing to
    forge (and a client MUST NOT send one): not applicable."""
    async def forge(number: int, run: Run, params: dict[str, Any]) -> dict[str, Any]:
        if "requestState" not in params:
            return params
        return {**params, "requestState": _forgeries(str(params["requestState"]))[kind]}

    scenario = case.scenario("BAT-1")
    run = await case.run("BAT-1", era, on_round=forge)
    if run.asks and not any(run.states):
        pytest.skip("not applicable: the server sent no requestState, so there was none to tamper with")
    check("SEC-1", run.failed or len(run.rounds) > 1,
          f"a {kind} request_state was accepted: the call returned {brief(run.text)} instead of failing "
          "or asking again")
    runs = await case.body_runs(scenario.arguments["ref"])
    check("SEC-1", runs == 0, f"the body ran {runs} time(s) on a {kind} request_state")


@pytest.mark.tools("body_runs", "book_destination", "book_trip")
@pytest.mark.checks("SEC-2")
@pytest.mark.revisions(MODERN)
@async_case
async def test_sec_2_state_replayed_on_another_tool_or_arguments_is_rejected(
    case: Case, era: str,
) -> None:
    """book_destination(ref) asks one question; its answer 'Paris' and requestState
    are replayed on book_destination(another ref) and on book_trip(ref): each is
    refused (a JSON-RPC error or an error result) or asks again; neither body
    runs."""
    ref = f"{case.run_id}-sec-2"
    async with case.peer(era) as peer:
        first = await peer.call_tool("book_destination", {"ref": ref})
        keys = list(input_requests(first))
        check("SEC-2", len(keys) == 1,
              f"book_destination answered {brief(first)}; it asks one question, the destination")
        answer = {keys[0]: {"action": "accept", "content": {"value": "Paris"}}}
        for tool, arguments in [("book_destination", {"ref": f"{ref}-other"}), ("book_trip", {"ref": ref})]:
            try:
                result = await peer.call_tool(tool, arguments, inputResponses=answer, **state_of(first))
            except RpcError:
                continue
            check("SEC-2", result.get("resultType") == "input_required" or bool(result.get("isError")),
                  f"state from book_destination({ref}) completed {tool}({arguments}): {brief(result)}")
    for replayed in (ref, f"{ref}-other"):
        runs = await case.body_runs(replayed)
        check("SEC-2", runs == 0, f"the body of book_destination({replayed}) ran {runs} time(s) on replayed state")


MALFORMED = {
    "wrong-kind": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"},
    "wrong-type": {"action": "accept", "content": {"value": ["Paris"]}},
    "no-content": {"action": "accept"},
    "unknown-action": {"action": "maybe", "content": {"value": "Paris"}},
    "huge": {"action": "accept", "content": {"value": "x" * 200_000}},
    "not-an-object": "Paris",
}


@pytest.mark.tools("body_runs", "book_destination")
@pytest.mark.checks("SEC-3")
@pytest.mark.revisions(MODERN)
@pytest.mark.parametrize("kind", list(MALFORMED))
@async_case
async def test_sec_3_malformed_replies_never_reach_the_body(case: Case, kind: str, era: str) -> None:
    """book_destination on 2026-07-28, its one answer replaced by a sampling result,
    a list instead of a string, an accept without content, the action 'maybe', a
    200,000-character string, or a bare string: the body does not run and the call
    fails or asks again; the 200,000-character answer may instead complete the call
    with the whole string, once."""
    scenario = case.scenario("BAT-1")
    ref = scenario.arguments["ref"] + f"-{kind}"
    case.pinned = kind != "huge"  # a golden file of 400 KB, to say one string came back whole

    async def garble(number: int, run: Run, params: dict[str, Any]) -> dict[str, Any]:
        keys = list(params["inputResponses"]) or ["destination"]
        return {**params, "inputResponses": {keys[0]: MALFORMED[kind]}}

    async with case.peer(era) as peer:
        run = await drive(peer, "book_destination", {"ref": ref}, Script("book_destination", {}, {}), on_round=garble)
    runs = await case.body_runs(ref)
    if kind == "huge" and not run.failed:
        check("SEC-3", runs == 1 and run.text == "Booked a flight to " + "x" * 200_000,
              f"a 200,000-character answer completed {brief(run.text)} with {runs} body run(s); "
              "the whole answer, once")
    else:
        check("SEC-3", runs == 0, f"the body ran {runs} time(s) on a {kind} reply: {brief(run.text)}")
        # Round 1 is the question; a second round is the question asked again.
        check("SEC-3", run.failed or len(run.rounds) > 1,
              f"a {kind} reply completed the call {brief(run.text)}; it must fail clearly or be asked again")


#: How often the case sends the last round: the first time and two replays.
SENDS = 3


@pytest.mark.tools("body_runs", "book_once")
@pytest.mark.checks("SEC-5")
@pytest.mark.revisions(MODERN)
@async_case
async def test_sec_5_a_replayed_last_round_runs_the_body_once(case: Case, era: str) -> None:
    """book_once(ref), a one-time booking, asks where to; its last round (the answer
    'Paris' with that round's requestState) is sent three times, as a client that lost
    the response sends it again: the body runs once; a replay is answered with the
    first result, an error, or a new question."""
    ref = f"{case.run_id}-sec-5"
    async with case.peer(era) as peer:
        first = await peer.call_tool("book_once", {"ref": ref})
        keys = list(input_requests(first))
        check("SEC-5", len(keys) == 1, f"book_once answered {brief(first)}; it asks one question, the destination")
        answer = {keys[0]: {"action": "accept", "content": {"value": "Paris"}}}
        answered: list[dict[str, Any] | None] = []
        for _ in range(SENDS):
            try:
                answered.append(await peer.call_tool("book_once", {"ref": ref}, inputResponses=answer, **state_of(first)))
            except RpcError:
                answered.append(None)  # a refused replay
    booked = answered[0]
    check("SEC-5", booked is not None and _completed(booked),
          f"the last round, sent the first time, answered {brief(booked)}; it completes the booking")
    runs = await case.body_runs(ref)
    check("SEC-5", runs == 1, f"the last round of book_once, sent {SENDS} times with the same requestState and "
          f"answers, ran the body {runs} times; a one-time booking runs it once")
    for number, replay in enumerate(answered[1:], start=2):
        if replay is not None and _completed(replay):
            check("SEC-5", result_text(replay) == result_text(booked),
                  f"send {number} of the same last round completed with {brief(result_text(replay))}, "
                  f"not the first result {brief(result_text(booked))}")


def _completed(result: dict[str, Any]) -> bool:
    """A finished, successful answer: not a question, not an error result."""
    return result.get("resultType", "complete") == "complete" and not input_requests(result) \
        and "requestState" not in result and not result.get("isError")


@pytest.mark.tools("body_runs", "book_once")
@pytest.mark.checks("SEC-5")
@pytest.mark.revisions(MODERN)
@pytest.mark.transcript_varies("tasks/get is polled as often as timing needs")
@async_case
async def test_sec_5_the_round_that_makes_a_task_sent_again_makes_no_second(case: Case, era: str) -> None:
    """book_once(ref) called as a task, on a target that offers the tasks extension: where
    it asks before making the task, the round that makes it (the answer 'Paris' with that
    round's requestState) is sent again twice, as a client that lost the CreateTaskResult
    sends it. Each send is answered with the same task, an error, or a new question, never
    another task; the task completes, and the body runs once."""
    ref = f"{case.run_id}-sec-5-task"
    async with case.task_peer() as peer:
        first = await peer.call_tool("book_once", {"ref": ref})
        if not input_requests(first):
            pytest.skip("not applicable: the server asked nothing before it answered the tasked call "
                        f"({brief(first)}), so no round makes the task")
        answer = {key: {"action": "accept", "content": {"value": "Paris"}} for key in input_requests(first)}
        sent: list[dict[str, Any]] = []
        for _ in range(SENDS):
            with contextlib.suppress(RpcError):  # a refused send makes no task
                sent.append(await peer.call_tool("book_once", {"ref": ref}, inputResponses=answer, **state_of(first)))
        made = [answer for answer in sent if answer.get("resultType") == "task"]
        if not made:
            pytest.skip("not applicable: the round that completed the questions made no task (the extension lets "
                        f"the server decide): {brief(sent[:1])}")
        tasks = {str(task.get("taskId")) for task in made}
        check("SEC-5", len(tasks) == 1, f"the round that made a task, sent {SENDS} times, made {len(tasks)} tasks "
              f"({sorted(tasks)}); a send again is answered with the same task, an error or a new question")
        for task_id in sorted(tasks):
            await poll_until_ended(peer, TaskRun(task_id=task_id), case.deadline())
    runs = await case.body_runs(ref)
    check("SEC-5", runs == 1, f"the round that made book_once's task, sent {SENDS} times, ran the body {runs} "
          "times; a one-time booking runs it once")
