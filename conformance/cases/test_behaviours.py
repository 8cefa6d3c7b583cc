"""Cases that need more than a scripted reply: the client changes the world
between rounds, edits what it sends, or reads the schema.

Each test is named after the case (docs/behaviour.md) it checks.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import anyio
import pytest

from elicit_conformance.catalog import Reply, load
from elicit_conformance.grading.checks import LISTING_VARIES, listing, rounds_said, schema_gaps, titled
from elicit_conformance.connection.wire import NO_FORM, missing_tools
from elicit_conformance.exceptions import RpcError
from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.harness.driver import (
    Run, Script, as_object, drive, input_requests, request_message, result_text, state_of, tool_entries,
)
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import HANDSHAKE, MODERN
from elicit_conformance.verdict import check, should

ELICITED = {
    "book_destination": ["destination"],
    "book_trip": ["destination", "date", "cabin"],
    "book_airport": ["destination", "airport"],
    "book_seat": ["seat"],
    "book_seat_outside": ["seat"],
    "book_seat_alias": ["seat"],
    "book_seat_partial": ["seat"],
    "book_from": ["airport"],
}


@pytest.mark.tools(
    "book_destination", "book_trip", "book_airport", "book_from", "book_seat", "book_seat_outside",
    "book_seat_alias", "book_seat_partial",
)
@pytest.mark.checks("SCH-1", "SCH-2")
@pytest.mark.transcript_varies(LISTING_VARIES)
@async_case
async def test_sch_1_sch_2_elicited_parameters_leave_the_input_schema(
    case: Case, era: str
) -> None:
    """`tools/list`: no elicited parameter of book_destination, book_trip, book_airport,
    book_seat (and its Python spellings) or book_from is in its tool's `inputSchema`
    (`properties` or `required`), optional ones included (SCH-2); book_destination
    lists exactly `ref`, required, and book_from exactly `destination`."""
    async with case.peer(era) as peer:
        listed = await peer.request("tools/list", {})
    schemas = {tool["name"]: as_object(tool.get("inputSchema")) for tool in tool_entries(listed)}
    leaked = [
        f"{tool}.{name}"
        for tool, hidden in ELICITED.items()
        for name in hidden
        if name in as_object(schemas.get(tool, {}).get("properties")) or name in (schemas.get(tool, {}).get("required") or [])
    ]
    catalog = load().tools
    optional = [f"{t}.{n}" for t, hidden in ELICITED.items() for n in hidden if catalog[t].questions[n].optional]
    required = [p for p in leaked if p not in optional]
    check("SCH-1", not required, f"elicited parameters are listed in the input schema: {', '.join(required)}")
    # What is there is judged first; a missing core tool leaves the rest unproven. A
    # Python-spelling tool may be absent: its own (REG-9) scenario says so.
    tools = load().tools
    if missing := [tool for tool in ELICITED if tool not in schemas and tools[tool].profile == "core"]:
        raise missing_tools(missing)
    book_destination = schemas["book_destination"]
    check("SCH-1", set(as_object(book_destination.get("properties"))) == {"ref"}
          and book_destination.get("required") == ["ref"],
          f"book_destination's input schema is {brief(book_destination)}; the model supplies 'ref' "
          "(required) and nothing else")
    check("SCH-1", set(as_object(schemas["book_from"].get("properties"))) == {"destination"},
          f"book_from's input schema is {brief(schemas['book_from'])}; the model supplies 'destination' alone")
    check("SCH-2", not [p for p in leaked if p in optional],
          f"optional elicited parameters are listed in the input schema: {', '.join(p for p in leaked if p in optional)}")


#: The generated tools whose declarations all succeed (GEN-1): the model supplies `ref` alone.
GENERATED = sorted(s.tool for s in load().scenarios.values() if s.family == "GEN-1")


@pytest.mark.tools("space_decorator", "space_decorator_called", "space_decorator_named", "space_add_tool")
@pytest.mark.checks("GEN-1")
@pytest.mark.transcript_varies(LISTING_VARIES)
@async_case
async def test_gen_1_generated_tools_list_only_what_the_model_supplies(case: Case, era: str) -> None:
    """`tools/list`: each tool of a GEN-1 scenario (`space_decorator`, ...) is listed
    with an `inputSchema` whose properties are exactly `ref`, required, whatever
    its declared parameters' types, metadata, defaults and registration spelling."""
    async with case.peer(era) as peer:
        listed = await peer.request("tools/list", {})
    schemas = {tool["name"]: as_object(tool.get("inputSchema")) for tool in tool_entries(listed)}
    for name in (n for n in GENERATED if n in schemas):
        check("GEN-1", set(as_object(schemas[name].get("properties"))) == {"ref"} and schemas[name].get("required") == ["ref"],
              f"{name} is listed with input schema {brief(schemas[name], 300)}; the model supplies 'ref' (required) "
              "and nothing else")
    if missing := [n for n in GENERATED if n not in schemas]:
        raise missing_tools(missing)


#: The tools whose description the catalog fixes, and that description.
DESCRIBED = {name: tool.description for name, tool in load().tools.items() if tool.description is not None}


@pytest.mark.tools("book_destination", "book_described", "book_choices")
@pytest.mark.checks("SCH-3")
@pytest.mark.transcript_varies(LISTING_VARIES)
@async_case
async def test_sch_3_hiding_parameters_keeps_the_tool_description(case: Case, era: str) -> None:
    """`tools/list`: a tool whose entry above gives a description is listed with
    exactly that description (whitespace at either end aside)."""
    async with case.peer(era) as peer:
        listed = await peer.request("tools/list", {})
    described = {tool["name"]: str(tool.get("description") or "").strip() for tool in tool_entries(listed)}
    for name, written in DESCRIBED.items():
        if name in described:
            check("SCH-3", described[name] == written,
                  f"{name} is listed with description {brief(described[name])}; its author wrote {written!r}")
    if missing := [name for name in DESCRIBED if name not in described]:
        raise missing_tools(missing)


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
    check("BAT-2", not run.failed, f"the call failed: {brief(run.text)}")
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


def _schemas(run: Run) -> dict[str, dict[str, Any]]:
    return {a.message: a.schema for r in run.rounds for a in r}


def _asked(row: str, schemas: dict[str, dict[str, Any]], message: str, run: Run) -> dict[str, Any]:
    check(row, message in schemas,
          f"{message!r} was never asked (asked {list(schemas)}; the call ended {brief(run.text, 160)})")
    return schemas[message]


def _value_of(row: str, schema: dict[str, Any], message: str) -> dict[str, Any]:
    """The `value` field's schema of a scalar question."""
    properties = schema.get("properties")
    check(row, schema.get("type") == "object" and isinstance(properties, dict) and list(properties) == ["value"]
          and isinstance(properties["value"], dict),
          f"{message!r} requested {brief(schema)}; a scalar is asked as an object with one field, 'value'")
    return schema["properties"]["value"]


@pytest.mark.tools("book_passengers")
@pytest.mark.checks("TYP-1")
@async_case
async def test_typ_1_scalars_are_asked_as_one_value_field(case: Case, era: str) -> None:
    """Scenario TYP-1: 'Who is travelling?', 'How many seats?', 'What is your
    budget?' and 'Add travel insurance?' each request an object whose one property,
    `value`, is a string, integer, number and boolean respectively."""
    run = await case.run("TYP-1", era)
    schemas = _schemas(run)
    for message, json_type in [("Who is travelling?", "string"), ("How many seats?", "integer"),
                               ("What is your budget?", "number"), ("Add travel insurance?", "boolean")]:
        value = _value_of("TYP-1", _asked("TYP-1", schemas, message, run), message)
        check("TYP-1", value.get("type") == json_type,
              f"{message!r} requested a value of {brief(value)}; its type is {json_type!r}")


@pytest.mark.tools("book_preferences")
@pytest.mark.checks("TYP-2")
@async_case
async def test_typ_2_models_literals_and_enums_keep_their_schemas(case: Case, era: str) -> None:
    """Scenario TYP-2: 'Which airport?' requests an object with the one field
    `code`; 'Which cabin?' a `value` with enum ['economy', 'business'] in that order;
    'Which meal?' a `value` with enum of 'vegetarian' and 'standard'; 'Who is
    travelling?' an object with the fields `first` and `last`."""
    run = await case.run("TYP-2", era)
    schemas = _schemas(run)
    airport = _asked("TYP-2", schemas, "Which airport?", run)
    check("TYP-2", list(as_object(airport.get("properties"))) == ["code"],
          f"the model question 'Which airport?' requested {brief(airport)}; its one field is 'code'")
    cabin = _value_of("TYP-2", _asked("TYP-2", schemas, "Which cabin?", run), "Which cabin?")
    check("TYP-2", cabin.get("enum") == ["economy", "business"],
          f"the Literal question 'Which cabin?' requested {brief(cabin)}; enum ['economy', 'business'], in order")
    meal = _value_of("TYP-2", _asked("TYP-2", schemas, "Which meal?", run), "Which meal?")
    check("TYP-2", isinstance(meal.get("enum"), list) and set(meal["enum"]) == {"vegetarian", "standard"},
          f"the Enum question 'Which meal?' requested {brief(meal)}; enum of 'vegetarian' and 'standard'")
    who = _asked("TYP-2", schemas, "Who is travelling?", run)
    check("TYP-2", set(as_object(who.get("properties"))) == {"first", "last"},
          f"the model question 'Who is travelling?' requested {brief(who)}; its fields are 'first' and 'last'")


@pytest.mark.tools("book_seats_count")
@pytest.mark.checks("TYP-3")
@async_case
async def test_typ_3_field_constraints_reach_the_schema(case: Case, era: str) -> None:
    """Scenario TYP-3: 'How many seats?' requests a `value` with `exclusiveMinimum: 0`
    or `minimum: 1`."""
    run = await case.run("TYP-3", era)
    seats = _value_of("TYP-3", _asked("TYP-3", _schemas(run), "How many seats?", run), "How many seats?")
    check("TYP-3", seats.get("exclusiveMinimum") == 0 or seats.get("minimum") == 1,
          f"Field(gt=0) did not reach the schema: 'How many seats?' requested {brief(seats)}")


#: Bounds the form-mode schema has no word for: its NumberSchema states `minimum` and
#: `maximum` only. A server may still send them (pydantic renders `gt=0` so), but one
#: that keeps to the schema cannot, so TYP-6 asks only for what the schema can say
#: (book_luggage's weight: its `maximum`) and TYP-3 takes `minimum: 1` for an integer.
UNSAYABLE = ("exclusiveMinimum", "exclusiveMaximum")


@pytest.mark.tools("book_meal")
@pytest.mark.checks("OPT-6")
@async_case
async def test_opt_6_an_optional_question_offers_its_default(case: Case, era: str) -> None:
    """Scenario OPT-5 (book_meal): the optional `meal` question requests a `value`
    whose `default` is `standard`, and `seat` one whose `default` is `any`: the
    parameters' defaults, for the client to pre-fill."""
    run = await case.run("OPT-5", era)
    questions = load().tools["book_meal"].questions
    asked = {a.param: a for round_ in run.rounds for a in round_ if a.param in ("meal", "seat")}
    for param in ("meal", "seat"):
        if param not in asked:
            should("OPT-6", False, f"{param!r} was never asked, so it offered no default "
                   f"(the server asked {rounds_said(run, 'book_meal')})")
            continue
        value = as_object(as_object(asked[param].schema.get("properties")).get("value"))
        should("OPT-6", value.get("default") == questions[param].default,
               f"{param!r} requested {brief(value)}; its parameter's default {questions[param].default!r} is not "
               "offered as the value's default")


LISTINGS = {"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources",
            "resources/templates/list": "resourceTemplates"}


@pytest.mark.tools("book_destination")
@pytest.mark.checks("ERA-8")
@pytest.mark.transcript_varies(LISTING_VARIES)
@pytest.mark.revisions(MODERN)
@async_case
async def test_era_8_listings_never_ask(case: Case, era: str) -> None:
    """`tools/list`, `prompts/list`, `resources/list` and `resources/templates/list` each
    answer with their listing (`tools`, `prompts`, `resources`, `resourceTemplates`),
    never with `resultType` `input_required` or `inputRequests`, nor with any other
    error than "method not found" (-32601) for a kind of entry the target does not offer.
    Judged on a target whose listing holds book_destination, a tool that asks: a server
    with nothing to ask proves nothing here."""
    async with case.peer(era) as peer:
        for method, key in LISTINGS.items():
            result = await listing(peer, method, "ERA-8")
            if result is None:
                continue  # not offered: nothing listed, nothing asked
            asks = result.get("resultType") == "input_required" or "inputRequests" in result
            check("ERA-8", not asks, f"{method} answered input_required: {brief(result, 300)}")
            check("ERA-8", isinstance(result.get(key), list),
                  f"{method} answered {brief(result, 300)}, with no {key!r} listing")
            if method == "tools/list" and "book_destination" not in {t.get("name") for t in tool_entries(result)}:
                raise missing_tools(["book_destination"])


@pytest.mark.tools("book_luggage")
@pytest.mark.checks("TYP-6")
@async_case
async def test_typ_6_constraints_and_labels_reach_every_scalar_type(case: Case, era: str) -> None:
    """Scenario TYP-6 completes, and each question of book_luggage requests a
    `value` carrying every bound of its schema above that the form-mode schema can
    state (`minimum`, `maximum`, `enum`) and its declared `title` and
    `description`."""
    run = await case.run("TYP-6", era)
    check("TYP-6", not run.failed, f"the call failed: {brief(run.text)}")
    schemas = _schemas(run)
    for param, question in load().tools["book_luggage"].questions.items():
        value = _value_of("TYP-6", _asked("TYP-6", schemas, question.message, run), question.message)
        wanted = {k: v for k, v in (question.schema() or {})["properties"]["value"].items() if k not in UNSAYABLE}
        declared = {"title": question.title, "description": question.description}
        wanted.update({k: v for k, v in declared.items() if v is not None})
        lost = {k: v for k, v in wanted.items() if value.get(k) != v}
        check("TYP-6", not lost, f"{param}: the requested schema {brief(value)} lost {lost} of its declaration")


@pytest.mark.tools("book_cabin_extras")
@pytest.mark.checks("TYP-7")
@async_case
async def test_typ_7_titled_and_multiple_choices_keep_their_schemas(case: Case, era: str) -> None:
    """Scenario TYP-7 completes; the cabin question's `value` lists its choices as
    `oneOf` (or `anyOf`) of `const`/`title` pairs, exactly those above, and the
    extras question's `value` is an array whose items are the listed choices
    (`items.enum`, or `items.anyOf` of `const`s)."""
    run = await case.run("TYP-7", era)
    check("TYP-7", not run.failed, f"the call failed: {brief(run.text)}")
    schemas = _schemas(run)
    questions = load().tools["book_cabin_extras"].questions
    message = questions["cabin"].message
    cabin = _value_of("TYP-7", _asked("TYP-7", schemas, message, run), message)
    check("TYP-7", titled(cabin) == set(questions["cabin"].one_of),
          f"the titled choices are lost: {message!r} requested {brief(cabin)}")
    message = questions["extras"].message
    extras = _asked("TYP-7", schemas, message, run)
    check("TYP-7", not schema_gaps(extras, questions["extras"]),
          f"the multiple choice is not an array of the listed items: {message!r} requested {brief(extras)}")


@pytest.mark.tools("book_described")
@pytest.mark.checks("TYP-8")
@async_case
async def test_typ_8_field_metadata_never_changes_what_is_asked(case: Case, era: str) -> None:
    """Scenario TYP-8 completes (its rounds and result are the scenario case), and
    each question of book_described, whose every parameter also carries a Field
    description or title, requests the schema of its type as the catalog gives it:
    the model's fields, a scalar's `value` type, a choice's enum (in any order) and
    a multiple choice's array items. Labels the metadata adds are free."""
    run = await case.run("TYP-8", era)
    check("TYP-8", not run.failed, f"the call failed: {brief(run.text)}")
    schemas = _schemas(run)
    for param, question in load().tools["book_described"].questions.items():
        asked = _asked("TYP-8", schemas, question.message, run)
        gaps = schema_gaps(asked, question)
        check("TYP-8", not gaps, f"{param}: with Field metadata beside the marker, the requested schema "
              f"{brief(asked)} no longer states {'; '.join(gaps)}")


@pytest.mark.tools("book_confirmed")
@pytest.mark.checks("ERA-1", "ERA-4")
@async_case
async def test_era_1_era_4_one_declared_tool_same_result_on_both_eras(
    case: Case, era: str
) -> None:
    """Scenario ORD-4 returns 'Booked Paris on 2026-08-01' on 2026-07-28 (ERA-1) and
    on 2025-11-25 (ERA-4)."""
    run = await case.run("ORD-4", era)
    check("ERA-4", not run.failed,
          f"on {era} the declared tool failed ({brief(run.text)}); declared parameters are asked on every era")
    check("ERA-1", run.text == "Booked Paris on 2026-08-01",
          f"the declared tool returned {brief(run.text)} on {era}; on either era it returns "
          "'Booked Paris on 2026-08-01'")


@pytest.mark.tools("ask_imperatively")
@pytest.mark.checks("ERA-2", "ERA-2/clear")
@pytest.mark.revisions(MODERN)
@async_case
async def test_era_2_imperative_elicit_on_modern_fails_clearly(case: Case, era: str) -> None:
    """ask_imperatively on 2026-07-28 fails (a JSON-RPC error or an error result);
    SHOULD: its text names the era ('2026-07-28' or 'modern')."""
    async with case.peer(era) as peer:
        try:
            result = await peer.call_tool("ask_imperatively", {})
        except RpcError as error:
            result = {"isError": True, "content": [{"type": "text", "text": str(error)}]}
    text = result_text(result)
    check("ERA-2", bool(result.get("isError")), f"ctx.elicit() on a modern connection did not fail: {brief(result)}")
    should("ERA-2/clear", "2026-07-28" in text or "modern" in text.lower(),
           f"the error does not name the era: {brief(text)}")


@pytest.mark.tools("ask_imperatively")
@pytest.mark.checks("ERA-2")
@pytest.mark.revisions(HANDSHAKE)
@async_case
async def test_era_2_imperative_elicit_works_on_the_handshake_era(case: Case, era: str) -> None:
    """ask_imperatively on 2025-11-25 asks 'Where would you like to fly?' with
    `elicitation/create`; answered 'Paris', it returns 'Booked a flight to Paris'."""
    script = Script("ask_imperatively", {}, {"destination": {"accept": "Paris"}})
    async with case.peer(era) as peer:
        run = await drive(peer, "ask_imperatively", {}, script)
    check("ERA-2", run.text == "Booked a flight to Paris" and not run.failed,
          f"ctx.elicit() on {era}, answered 'Paris', ended {brief(run.text)}; it returns 'Booked a flight to Paris'")


@pytest.mark.tools("guard_by_hand")
@pytest.mark.checks("ERA-3", "ERA-3/clear")
@async_case
async def test_era_3_hand_returned_ask_is_gated_by_era(case: Case, era: str) -> None:
    """guard_by_hand, answered 'Paris': on 2026-07-28 it returns 'Booked a flight to
    Paris'. On 2025-11-25 it either does the same after asking 'destination' once
    with `elicitation/create`, or fails; SHOULD: that error names an era
    ('2026-07-28' or '2025-11-25')."""
    script = Script("guard_by_hand", {}, {"destination": {"accept": "Paris"}})
    async with case.peer(era) as peer:
        run = await drive(peer, "guard_by_hand", {}, script)
    # On the handshake era a framework may fail the call, or serve the ask itself
    # over elicitation/create: then it must be the whole, correct exchange.
    served = run.text == "Booked a flight to Paris" and not run.failed
    if era == MODERN:
        check("ERA-3", served, f"the hand-returned ask was mishandled on {era}: the call ended {brief(run.text)}")
    else:
        check("ERA-3", run.failed or (served and run.asked_params == [["destination"]]),
              f"on {era} the call neither failed nor asked 'destination' once and booked Paris: it asked "
              f"{run.asked_params} and ended {brief(run.text)}")
        if run.failed:
            should("ERA-3/clear", "2026-07-28" in run.text or "2025-11-25" in run.text,
                   f"the error does not name the era: {brief(run.text)}")


@pytest.mark.tools("body_runs", "book_destination")
@pytest.mark.checks("ERA-5")
@pytest.mark.revisions(HANDSHAKE)
@pytest.mark.parametrize("declared", list(NO_FORM))
@async_case
async def test_era_5_handshake_client_without_form_elicitation_gets_an_error_not_a_hang(
    case: Case, declared: str, era: str,
) -> None:
    """book_destination on 2025-11-25 from a client that declared no elicitation
    capability, or only `{"url": {}}`: no `elicitation/create` is sent, the call fails
    (a JSON-RPC error or an error result), and its body does not run."""
    ref = f"{case.run_id}-era-5-{declared}"
    result, error = await case.call(era, "book_destination", {"ref": ref}, elicitation=NO_FORM[declared])
    asked = [m for d, m in case.transcript.messages if d == "server->client" and m.get("method") == "elicitation/create"]
    check("ERA-5", not asked, f"sent elicitation/create to a client that declared {declared!r}: {brief(asked)}")
    check("ERA-5", error is not None or bool(result.get("isError")),
          f"the call must fail clearly, but returned {brief(result)}")
    runs = await case.body_runs(ref)
    check("ERA-5", runs == 0, f"the body ran {runs} time(s) for a client that could not be asked")


@pytest.mark.tools("body_runs", "book_destination")
@pytest.mark.checks("ERA-7", "ERA-7/clear", "ERA-7/http")
@pytest.mark.revisions(MODERN)
@pytest.mark.parametrize("declared", list(NO_FORM))
@async_case
async def test_era_7_modern_client_without_form_elicitation_is_not_asked(
    case: Case, declared: str, era: str,
) -> None:
    """book_destination on 2026-07-28 from a client that declared no elicitation
    capability, or only `{"url": {}}`, in its request `_meta`: the answer holds no
    form `elicitation/create` request, the call fails, and its body does not run;
    SHOULD: the refusal is the JSON-RPC error -32021 (missing required client
    capability); over streamable HTTP, a -32021 refusal has the status 400 (ERA-7/http)."""
    ref = f"{case.run_id}-era-7-{declared}"
    case.target.http_statuses.clear()
    result, error = await case.call(era, "book_destination", {"ref": ref}, elicitation=NO_FORM[declared])
    # The status of that call, before body_runs makes another (URL targets only).
    status = next((s for s in reversed(case.target.http_statuses) if s.method == "tools/call"), None)
    forms = [r for r in input_requests(result).values() if r.get("method") == "elicitation/create"
             and (r.get("params") if isinstance(r.get("params"), dict) else {}).get("mode", "form") == "form"]
    check("ERA-7", not forms, f"asked a client that declared {declared!r} a form question: {brief(forms)}")
    check("ERA-7", error is not None or bool(result.get("isError")), f"the call must fail, but returned {brief(result)}")
    runs = await case.body_runs(ref)
    check("ERA-7", runs == 0, f"the body ran {runs} time(s) for a client that could not be asked")
    should("ERA-7/clear", error is not None and error.get("code") == -32021,
           f"the refusal is {brief(error or result)}, not -32021 (missing required client capability)")
    if case.target.kind == "url" and error is not None and error.get("code") == -32021:
        check("ERA-7/http", status is not None and status.code == 400,
              f"the -32021 refusal came over HTTP with {status or 'no status the suite saw'}")


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
