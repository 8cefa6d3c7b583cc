"""CLI: how a client answers a server that asks, on 2026-07-28 (`basic/patterns/mrtr`,
Client Requirements). Each case plays one scenario of `scenarios` and judges the
requests the client sent."""

from __future__ import annotations

import pytest

from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.harness.driver import as_object
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import MODERN
from elicit_conformance.verdict import check

from .play import answered, capabilities_of, check_answers, params_of, play, responses_of
from .scenarios import AWKWARD_STATE, PROMPT, SCENARIOS

#: Every case here is about 2026-07-28's rounds.
pytestmark = pytest.mark.revisions(MODERN)


@pytest.mark.checks("CLI-1", "CLI-3", "CLI-4", "CLI-5", "CLI-7")
@async_case
async def test_cli_one_question_is_answered_and_its_state_echoed(client_case: Case, era: str) -> None:
    """Scenario one-question: the client calls book_destination, is asked one question with
    a requestState of awkward bytes (JSON-looking, quotes, a backslash, non-ASCII), and
    retries once with a new id, the state exactly as sent, and the user's answer under the
    question's key; every request declares elicitation in its capabilities."""
    played = await play(client_case, "one-question", era)
    first, retry = answered(played, "book_destination")[:2]
    check_answers("one-question", retry, {"destination": "Where would you like to fly?"})
    state = params_of(retry).get("requestState")
    check("CLI-1", state == AWKWARD_STATE, f"the retry carried requestState {brief(state)}; the server sent "
          f"{brief(AWKWARD_STATE)}, which comes back exactly as sent")
    check("CLI-3", retry.get("id") != first.get("id"), f"the retry reused the first call's JSON-RPC id {first.get('id')!r}")
    for request in played.server.requests():
        capabilities = capabilities_of(request)
        check("CLI-5", isinstance(capabilities, dict) and isinstance(capabilities.get("elicitation"), dict),
              f"{request.get('method')} (id {request.get('id')!r}) declared the client capabilities "
              f"{brief(capabilities)}; a client that answers elicitation declares it on each request")


@pytest.mark.checks("CLI-1", "CLI-4", "CLI-7")
@async_case
async def test_cli_a_round_of_three_is_answered_in_one_retry(client_case: Case, era: str) -> None:
    """Scenario batch: three questions in one round; the one retry answers all three, under
    their keys: one accepted with its content, one declined, one cancelled; the round's
    state echoed."""
    played = await play(client_case, "batch", era)
    retry = answered(played, "book_trip")[1]
    check_answers("batch", retry, {"destination": "Where would you like to fly?",
                                   "date": "When would you like to fly?", "cabin": "Which cabin class?"})
    state = params_of(retry).get("requestState")
    check("CLI-1", state == "trip-1", f"the retry carried requestState {brief(state)}; the server sent 'trip-1'")


@pytest.mark.checks("CLI-2", "CLI-3", "CLI-7")
@async_case
async def test_cli_no_state_is_sent_back_where_none_was_given(client_case: Case, era: str) -> None:
    """Scenario no-state: a question and no requestState; the retry, with a new id, carries
    no requestState at all (not null, not empty)."""
    played = await play(client_case, "no-state", era)
    first, retry = answered(played, "confirm_booking")[:2]
    params = params_of(retry)
    check("CLI-2", "requestState" not in params, f"the retry carried requestState {brief(params.get('requestState'))}, "
          "though the server sent none")
    check("CLI-3", retry.get("id") != first.get("id"), f"the retry reused the first call's JSON-RPC id {first.get('id')!r}")


@pytest.mark.checks("CLI-1", "CLI-3", "CLI-4", "CLI-7")
@async_case
async def test_cli_each_retry_echoes_the_latest_round_s_state(client_case: Case, era: str) -> None:
    """Scenario dependent-rounds: a question, then one built from its answer, then a round of
    requestState alone; three retries, each with its own id and the state of the round it
    answers ('seat-1', 'seat-2', 'seat-3'), the first two with their round's answer."""
    played = await play(client_case, "dependent-rounds", era)
    calls = answered(played, "book_seat")
    check("CLI-7", len(calls) == 4, f"the client called book_seat {len(calls)} time(s); the server asked three "
          f"rounds, so it takes the first call and three retries ({played.exited.said()})")
    check_answers("dependent-rounds", calls[1], {"destination": "Where would you like to fly?"})
    check_answers("dependent-rounds", calls[2], {"seat": "Window or aisle on the way to Paris?"})
    for retry, state in zip(calls[1:], ("seat-1", "seat-2", "seat-3")):
        sent = params_of(retry).get("requestState")
        check("CLI-1", sent == state, f"the retry answering the round of state {state!r} carried {brief(sent)}")
    ids = [call.get("id") for call in calls]
    check("CLI-3", len(set(map(repr, ids))) == len(ids), f"the call and its retries used the JSON-RPC ids {ids}; "
          "each is a request of its own")


@pytest.mark.checks("CLI-6")
@async_case
async def test_cli_a_result_without_result_type_is_complete(client_case: Case, era: str) -> None:
    """Scenario absent-result-type: flight_status answers a result with no resultType; the
    client does not take it as asking: it calls once and never retries. Whether the call then
    completes with it or fails is not judged: the sentence ("for backward compatibility with
    servers implementing earlier protocol versions") binds results of earlier revisions'
    servers, and this server speaks 2026-07-28, whose results MUST carry resultType (the
    official suite's default-result-type-complete judges the same: no retry)."""
    played = await play(client_case, "absent-result-type", era)
    calls = played.calls("flight_status")
    check("CLI-6", bool(calls), f"the client never called flight_status: {played.exited.said()}")
    check("CLI-6", len(calls) == 1, f"the client called flight_status {len(calls)} time(s) "
          f"({brief([params_of(c) for c in calls])}); a result without resultType is not asking, so it calls once "
          f"({played.exited.said()})")


@pytest.mark.checks("CLI-24")
@async_case
async def test_cli_a_result_of_an_unknown_kind_is_invalid(client_case: Case, era: str) -> None:
    """Scenario unknown-result-type: trip_summary answers a result whose resultType is
    'itinerary', a kind no client knows; the client takes it as invalid: it calls once (the
    result is not asking) and the call does not complete with it (the client does not exit 0
    printing its text 'Three nights in Paris'; how it says the call failed is its own)."""
    played = await play(client_case, "unknown-result-type", era)
    calls = played.calls("trip_summary")
    text = SCENARIOS["unknown-result-type"].scripts[0].text
    check("CLI-24", bool(calls), f"the client never called trip_summary: {played.exited.said()}")
    check("CLI-24", len(calls) == 1, f"the client called trip_summary {len(calls)} time(s) "
          f"({brief([params_of(c) for c in calls])}); a result of an unknown kind is invalid, not asking, so the "
          f"client does not retry it ({played.exited.said()})")
    exited = played.exited
    check("CLI-24", not (exited.code == 0 and text in exited.stdout),
          f"the client completed trip_summary with a result whose resultType is 'itinerary' ({exited.said()}); a "
          "result of a kind the client does not recognize is invalid, and the call does not complete with it")


@pytest.mark.checks("CLI-8", "CLI-7")
@pytest.mark.transcript_varies("the two calls' requests interleave as the client's timing has them")
@async_case
async def test_cli_two_calls_at_once_keep_their_rounds_apart(client_case: Case, era: str) -> None:
    """Scenario parallel: book_destination and book_hotel called at once, each asked one
    question with its own state, both asks answered together: every request of each call
    carries only its own call's keys and state ('flight-1', 'hotel-1'), never the other's."""
    played = await play(client_case, "parallel", era)
    own = {"book_destination": ({"destination"}, "flight-1"), "book_hotel": ({"hotel"}, "hotel-1")}
    for tool, (keys, state) in own.items():
        calls = answered(played, tool)
        for call in calls:
            foreign = sorted(set(responses_of(call)) - keys)
            sent = params_of(call).get("requestState")
            check("CLI-8", not foreign and sent in (None, state),
                  f"a request of {tool} carried {f'the responses under {foreign}' if foreign else ''}"
                  f"{' and ' if foreign and sent not in (None, state) else ''}"
                  f"{f'the requestState {sent!r}' if sent not in (None, state) else ''}, which belong to the other "
                  "call made in parallel; a round's answers and state go only into its own call's retry")


#: The retries a client may make of a call whose server never stops asking (CLI-9).
RETRIES_AT_MOST = 100


@pytest.mark.checks("CLI-9")
@async_case
async def test_cli_a_server_that_never_stops_asking_is_given_up_on(client_case: Case, era: str) -> None:
    """Scenario endless: every answer is met by the same question under a new state; the
    client retries at most 100 times and ends the call with an error: it exits non-zero, as a
    client does when a call did not complete (the scenario server ends a client that passes
    200 with an error)."""
    played = await play(client_case, "endless", era)
    calls = played.calls("book_destination")
    check("CLI-9", bool(calls), f"the client never called book_destination: {played.exited.said()}")
    check("CLI-9", len(calls) - 1 <= RETRIES_AT_MOST and played.exited.code not in (None, 0),
          f"the client retried book_destination {len(calls) - 1} time(s), its server asking again each time, "
          f"and {played.exited.said()}; a client stops after a bounded number of rounds (here {RETRIES_AT_MOST})")


@pytest.mark.checks("CLI-10", "CLI-4")
@async_case
async def test_cli_a_request_without_a_mode_is_answered_as_a_form(client_case: Case, era: str) -> None:
    """Scenario no-mode: the one question's elicitation/create params omit `mode`; the client
    answers it as the form it is, accepted with the user's content ({"value": "Lisbon"})."""
    played = await play(client_case, "no-mode", era)
    calls = played.calls("book_destination")
    check("CLI-10", len(calls) >= 2, played.not_retried("book_destination"))
    responses = responses_of(calls[1])
    check("CLI-4", "destination" in responses, f"the retry {brief(params_of(calls[1]))} has no response under "
          "'destination', the key the round asked")
    sent = responses["destination"]
    check("CLI-10", isinstance(sent, dict) and sent.get("action") == "accept" and sent.get("content") == {"value": "Lisbon"},
          f"the question without a mode was answered {brief(sent)}; it is a form, and the user accepted it with "
          "{'value': 'Lisbon'}")


@pytest.mark.checks("CLI-14", "CLI-4", "CLI-12", "CLI-13")
@async_case
async def test_cli_sampling_and_roots_in_a_round_go_to_their_handlers(client_case: Case, era: str) -> None:
    """Scenario sampling-roots: plan_trip's one round holds a sampling/createMessage
    ('suggestion') and a roots/list ('folders') request, no question; the client, with a
    sampling and a roots handler and no elicitation handler, retries once with the sampling
    handler's CreateMessageResult and the roots handler's roots under their keys; every
    request declares sampling and roots in its capabilities."""
    played = await play(client_case, "sampling-roots", era)
    calls = played.calls("plan_trip")
    check("CLI-14", len(calls) >= 2, f"{played.not_retried('plan_trip')}; a round of sampling and roots requests "
          "goes to the client's handlers for them, whatever other handlers it lacks")
    responses = responses_of(calls[1])
    missing = sorted({"suggestion", "folders"} - set(responses))
    check("CLI-4", not missing, f"the retry {brief(params_of(calls[1]))} has no response under {missing}; the round "
          "asked ['folders', 'suggestion']")
    scenario = SCENARIOS["sampling-roots"]
    wanted, sent = scenario.sampling[PROMPT], as_object(responses["suggestion"])
    check("CLI-14", all(sent.get(field) == wanted[field] for field in ("role", "content")),
          f"the sampling request was answered {brief(sent)}; the sampling handler returned {brief(wanted)}")
    roots = as_object(responses["folders"]).get("roots")
    check("CLI-14", roots == [dict(root) for root in scenario.roots or ()],
          f"the roots request was answered {brief(responses['folders'])}; the roots handler listed "
          f"{brief(list(scenario.roots or ()))}")
    for request in played.server.requests():
        capabilities = as_object(capabilities_of(request))
        for row, capability in (("CLI-12", "sampling"), ("CLI-13", "roots")):
            check(row, isinstance(capabilities.get(capability), dict),
                  f"{request.get('method')} (id {request.get('id')!r}) declared the client capabilities "
                  f"{brief(capabilities)}; a client that answers {capability} requests declares it on each request")


@pytest.mark.checks("CLI-15")
@async_case
async def test_cli_a_client_without_a_handler_accepts_no_question(client_case: Case, era: str) -> None:
    """Scenario no-handler: book_destination asks one question of a client that has no
    elicitation handler; the client calls, and no retry it makes carries an accepted answer
    under 'destination' (ending the call, handing the round back, declining or cancelling
    are all its own to choose)."""
    played = await play(client_case, "no-handler", era)
    calls = played.calls("book_destination")
    check("CLI-15", bool(calls), f"the client never called book_destination: {played.exited.said()}")
    for retry in calls[1:]:
        sent = responses_of(retry).get("destination")
        check("CLI-15", as_object(sent).get("action") != "accept",
              f"the retry {brief(params_of(retry))} accepted the question with {brief(sent)}, though the client has "
              "no elicitation handler: no user gave that answer")


@pytest.mark.checks("CLI-21", "CLI-4")
@async_case
async def test_cli_a_retry_s_result_is_not_cached(client_case: Case, era: str) -> None:
    """Scenario cacheable: fare_quote asks one question; the result answering the retry
    carries caching hints (ttlMs 60000, cacheScope public); once that call has ended the
    client makes the same call again, and it reaches the server: a first request again (no
    inputResponses, no requestState), not a result served from a cache."""
    played = await play(client_case, "cacheable", era)
    calls = played.calls("fare_quote")
    check("CLI-4", len(calls) >= 2, played.not_retried("fare_quote"))
    firsts = [call for call in calls if not {"inputResponses", "requestState"} & set(params_of(call))]
    check("CLI-21", len(firsts) >= 2,
          f"the client called fare_quote {len(calls)} time(s), of which {len(firsts)} first request(s), and "
          f"{played.exited.said()}; the second call with the same arguments never reached the server, so it was "
          "served the result of the first call's retry, which a client never caches")
