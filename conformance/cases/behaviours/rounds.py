"""The behaviour cases of `test_behaviours.py`: calls across rounds while the world
changes: when the body runs, what a dependent question quotes, what a later round may
change or credit."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import anyio
import pytest

from elicit_conformance.catalog import Reply
from elicit_conformance.exceptions import RpcError
from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.harness.driver import (
    Run,
    Script,
    drive,
    input_requests,
    request_message,
    result_text,
    state_of,
)
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import MODERN
from elicit_conformance.verdict import check, should


@pytest.mark.tools("body_runs", "book_trip")
@pytest.mark.checks("BAT-2")
@pytest.mark.revisions(MODERN)
@async_case
async def test_bat_2_body_runs_once_and_only_after_every_answer(case: Case, era: str) -> None:
    """Scenario BAT-3 on 2026-07-28, asking `body_runs` after every round: the count
    is 0 while any question is open, and 1 once the call completed."""
    scenario = case.scenario("BAT-3")
    ref = scenario.arguments["ref"]
    seen: list[int] = []

    async def count(number: int, run: Run, params: dict[str, Any]) -> dict[str, Any]:
        seen.append(await case.body_runs(ref))
        return params

    run = await case.run("BAT-3", era, on_round=count)
    check("BAT-2", not run.failed, run.ended)
    check("BAT-2", bool(seen) and set(seen) == {0},
          f"counted between rounds, the body had run {seen} time(s) before every question was answered"
          if seen else "the call completed without asking, so the body ran before any answer")
    runs = await case.body_runs(ref)
    check("BAT-2", runs == 1, f"the body ran {runs} time(s) for one completed call")


@pytest.mark.tools("book_airport")
@pytest.mark.checks("ORD-2", "ORD-6")
@async_case
async def test_ord_2_ord_6_dependent_question_quotes_the_answer_it_waited_for(
    case: Case, era: str
) -> None:
    """Scenario ORD-1: the messages asked are 'Where would you like to fly?', then,
    after the answer 'Paris', 'Which airport in Paris?'; the call returns 'Paris/CDG'."""
    run = await case.run("ORD-1", era)
    messages = [a.message for r in run.rounds for a in r]
    check("ORD-2", messages == ["Where would you like to fly?", "Which airport in Paris?"],
          f"the server asked {messages}; after 'Paris' the second question reads 'Which airport in Paris?'")
    check("ORD-6", run.text == "Paris/CDG",
          f"the call returned {brief(run.text)}; the round-1 answer 'Paris' must reach the result 'Paris/CDG'")


@pytest.mark.tools("book_airport")
@pytest.mark.checks("DIG-4", "DIG-4/ignore", "ORD-6")
@pytest.mark.revisions(MODERN)
@async_case
async def test_ord_6_dig_4_earlier_answers_survive_and_unasked_keys_are_not_credited(
    case: Case, era: str,
) -> None:
    """Round 2 re-sends round 1's key with another value and adds a key never
    asked: neither may change what the call ends with. The server should ignore
    them and go on (DIG-4/ignore); refusing the retry credits nothing either, so
    it only warns."""

    async def meddle(number: int, run: Run, params: dict[str, Any]) -> dict[str, Any]:
        responses = dict(params["inputResponses"])
        for key in ("destination", "airport"):
            responses.setdefault(key, {"action": "accept", "content": {"value": "Rome"}})
        return {**params, "inputResponses": responses}

    run = await case.run("ORD-1", era, on_round=meddle)
    refused = run.error is not None and not run.gave_up  # a JSON-RPC refusal; a tool error is judged below
    should("DIG-4/ignore", not refused, f"the retry carrying answers under keys its round did not ask was "
           f"refused: {brief(run.error)}; the server should ignore what it did not ask for and go on")
    if refused:
        return
    # 'airport' never asked and 'Rome' in the result: the unasked key sent with round 1's
    # answer was credited (DIG-4), which is why no second round came, not a lost answer.
    check("DIG-4", ["airport"] in run.asked_params or "Rome" not in run.text,
          f"the call ended with {brief(run.text)} without asking 'airport': it credited the reply 'Rome' sent "
          "under 'airport' beside round 1's answer, a key that round did not ask")
    check("ORD-6", run.asked_params == [["destination"], ["airport"]],
          f"with round 1's answer re-sent as 'Rome', the server asked {run.asked_params}; "
          "the catalog's rounds are [['destination'], ['airport']]")
    check("DIG-4", run.text == "Paris/CDG",
          f"the call returned {brief(run.text)}; answers re-sent or under keys never asked must not change "
          "'Paris/CDG'")


@pytest.mark.tools("save_home_airport", "book_profile")
@pytest.mark.checks("RES-3", "BAT-3")
@pytest.mark.revisions(MODERN)
@async_case
async def test_res_3_resolver_value_on_a_later_round_wins(case: Case, era: str) -> None:
    """book_profile for a fresh traveller on 2026-07-28: round 1 asks 'date' and
    'airport'; before the retry the client calls save_home_airport(traveller, LHR),
    then answers 2026-08-01 and CDG. The call returns
    '{traveller} from LHR on 2026-08-01': the resolver's value found on the later round wins over the echoed
    answer."""
    traveller = f"ada-{case.run_id}"
    answers = {"date": {"accept": "2026-08-01"}, "airport": {"accept": "CDG"}}
    async with case.peer(era) as peer:

        async def learn(number: int, run: Run, params: dict[str, Any]) -> dict[str, Any]:
            # The profile gains a home airport while the user's reply is in flight.
            await peer.call_tool("save_home_airport", {"traveller": traveller, "airport": "LHR"})
            return params

        script = Script("book_profile", {"traveller": traveller}, answers)
        run = await drive(peer, "book_profile", {"traveller": traveller}, script, on_round=learn)
    # Round order is BAT-4's business; here only which questions were asked.
    check("BAT-3", sorted(str(p) for r in run.asked_params for p in r) == ["airport", "date"],
          f"the server asked {run.asked_params}; with no home airport saved it asks 'date' and 'airport'")
    check("RES-3", run.text == f"{traveller} from LHR on 2026-08-01",
          f"the call returned {brief(run.text)}; the home airport LHR saved before the retry must win "
          "over the echoed answer CDG")


@pytest.mark.tools("set_copy", "book_reworded")
@pytest.mark.checks("DIG-1", "DIG-2")
@pytest.mark.revisions(MODERN)
@async_case
async def test_dig_1_dig_2_answer_to_a_reworded_question_is_dropped(case: Case, era: str) -> None:
    """book_reworded on 2026-07-28, answered Paris then CDG. With its wording
    unchanged it takes two rounds and returns 'Booked a flight to Paris/CDG'
    (DIG-2). Then new copy is deployed mid-call with set_copy(ref, 'Where are you
    flying to?'): once while the reply to round 1 is in flight, once after that
    answer was carried into round 2. Both times the old answer is not credited
    to the new wording (DIG-1): 'Where are you flying to?' is asked in a later
    round, and, answered 'Oslo', the call returns 'Booked a flight to Oslo/...'."""
    reworded = "Where are you flying to?"
    answers = {"destination": {"accept": "Paris"}, "airport": {"accept": "CDG"}}

    async with case.peer(era) as peer:
        same = await drive(
            peer, "book_reworded", {"ref": f"{case.run_id}-dig-2"}, Script("book_reworded", {}, answers)
        )
        check("DIG-2", same.text == "Booked a flight to Paris/CDG" and len(same.rounds) == 2,
              f"with the wording unchanged, the call took {len(same.rounds)} round(s) and returned "
              f"{brief(same.text)}; it takes 2 and returns 'Booked a flight to Paris/CDG'")

        for reword_after in (0, 1):
            ref = f"{case.run_id}-dig-1-{reword_after}"
            script = Script("book_reworded", {}, answers)

            async def reword(number: int, run: Run, params: dict[str, Any], ref: str = ref,
                             script: Script = script, at: int = reword_after) -> dict[str, Any]:
                if number == at:
                    await peer.call_tool("set_copy", {"ref": ref, "text": reworded})
                    asked = replace(script.questions["destination"], message=reworded)
                    script.questions = {**script.questions, "destination": asked}
                    script.answers = {**script.answers, "destination": Reply.parse({"accept": "Oslo"})}
                return params

            run = await drive(peer, "book_reworded", {"ref": ref}, script, on_round=reword)
            messages = [[a.message for a in r] for r in run.rounds]
            when = ("while the reply to round 1 was in flight" if reword_after == 0
                    else "after the answer was carried into round 2")
            # A server may keep asking other questions first; the new wording must come before the end.
            later = [m for r in messages[reword_after + 1:] for m in r]
            check("DIG-1", reworded in later,
                  f"reworded {when}, the question was never asked again in its new wording {reworded!r} "
                  f"(rounds {messages}; the call returned {brief(run.text)}): the old answer was credited")
            check("DIG-1", run.text.startswith("Booked a flight to Oslo/"),
                  f"reworded {when} and answered 'Oslo', the call returned {brief(run.text)}")


@pytest.mark.tools("book_from")
@pytest.mark.checks("DIG-5")
@pytest.mark.revisions(MODERN)
@async_case
async def test_dig_5_changed_argument_never_credits_the_old_answer(case: Case, era: str) -> None:
    """book_from(destination=Paris) asks one question, 'Which airport in Paris?'.
    The client retries as book_from(destination=Rome) with the answer CDG under that
    key and the round's requestState. Conforming: a JSON-RPC error, an error result
    that does not say CDG, or a new ask whose only message is 'Which airport in
    Rome?'."""
    async with case.peer(era) as peer:
        first = await peer.call_tool("book_from", {"destination": "Paris"})
        keys = list(input_requests(first))
        check("DIG-5", first.get("resultType") == "input_required" and len(keys) == 1,
              f"book_from(Paris) answered {brief(first)}; it asks one question, the airport in Paris")
        try:
            retry = await peer.call_tool(
                "book_from", {"destination": "Rome"},
                inputResponses={keys[0]: {"action": "accept", "content": {"value": "CDG"}}},
                **state_of(first),
            )
        except RpcError:
            return  # stale state rejected: conforming
    if retry.get("isError"):  # rejected as a tool error: conforming too, unless CDG got through
        text = result_text(retry)
        check("DIG-5", "CDG" not in text, f"the answer for Paris was credited to Rome: {brief(text)}")
        return
    check("DIG-5", retry.get("resultType") == "input_required",
          f"retried as book_from(Rome) with the answer CDG given for Paris, the call ended {brief(retry)}: "
          "the answer for Paris was credited to Rome")
    messages = [request_message(r) for r in input_requests(retry).values()]
    check("DIG-5", messages == ["Which airport in Rome?"],
          f"retried for Rome, the server asked {messages}; it asks 'Which airport in Rome?' afresh")


#: How often to look for the gated resolver before concluding it never started.
GATE_POLLS = 1000


@pytest.mark.tools("book_when_released", "gate_state", "release")
@pytest.mark.checks("RES-6")
@pytest.mark.transcript_varies("the gate is looked at as often as timing needs")
@async_case
async def test_res_6_a_blocked_sync_resolver_leaves_the_server_answering(case: Case, era: str) -> None:
    """While a sync resolver holds its thread, a second request on the same
    connection is answered: it finds the resolver waiting and releases it. A
    server that runs the resolver on its event loop answers nothing until the
    resolver gives up. The client calls book_when_released(ref), polls
    gate_state(ref) until it reads 'waiting', then calls release(ref); the call
    returns 'Gate: released'. A call that ends while the gate still reads 'idle'
    never started the resolver."""
    ref = f"{case.run_id}-res-6-{era}"
    held: dict[str, Any] = {}
    async with case.peer(era) as peer:

        async def call() -> None:
            held["result"] = await peer.call_tool("book_when_released", {"ref": ref})

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            state = "idle"
            # Read once more after the call ends: its resolver may have finished in between.
            for _ in range(GATE_POLLS):
                ended = "result" in held
                state = result_text(await peer.call_tool("gate_state", {"ref": ref}))
                if state != "idle" or ended:
                    break
                await anyio.sleep(0.01)
            check("RES-6", state == "waiting",
                  "the sync resolver blocked the server until it gave up" if state == "gave up"
                  else f"book_when_released ended {brief(held['result'])} while gate_state read 'idle': "
                       "the resolver never started" if "result" in held and state == "idle"
                  else f"gate_state read {brief(state)}, never 'waiting': the resolver never started")
            await peer.call_tool("release", {"ref": ref})
    check("RES-6", result_text(held.get("result")) == "Gate: released",
          f"released, the call returned {brief(held.get('result'))}; it returns 'Gate: released'")
