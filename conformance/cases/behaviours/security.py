"""The behaviour cases of `test_behaviours.py`: what the client sends back, tampered,
replayed or malformed, never reaches the body."""

from __future__ import annotations

from typing import Any

import pytest

from elicit_conformance.exceptions import RpcError
from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.harness.driver import Run, Script, drive, input_requests, state_of
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
    empty: the call fails, or (empty only) asks its question again; the body never
    runs."""
    async def forge(number: int, run: Run, params: dict[str, Any]) -> dict[str, Any]:
        return {**params, "requestState": _forgeries(str(params.get("requestState", "")))[kind]}

    scenario = case.scenario("BAT-1")
    run = await case.run("BAT-1", era, on_round=forge)
    if kind == "empty":
        # No state is "no progress": the question is asked again, never answered.
        check("SEC-1", run.failed or len(run.rounds) > 1,
              f"with the state emptied, the call completed {brief(run.text)} instead of asking again or failing")
    else:
        check("SEC-1", run.failed, f"a {kind} request_state was accepted: the call returned {brief(run.text)}")
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
