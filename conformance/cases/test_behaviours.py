"""Cases that need more than a scripted reply: the client changes the world
between rounds, edits what it sends, or reads the schema.

Each test is named after the case (docs/behaviour.md) it checks.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import anyio
import pytest

from elicit_conformance.case import Case, async_case
from elicit_conformance.catalog import Reply, load
from elicit_conformance.driver import Run, Script, drive, result_text
from elicit_conformance.verdict import NotTestable, should
from elicit_conformance.wire import HANDSHAKE, MODERN, RpcError

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


@pytest.mark.checks("SCH-1", "SCH-2")
@async_case
async def test_sch_1_sch_2_elicited_parameters_leave_the_input_schema(
    case: Case, snapshot: Any, era: str
) -> None:
    async with case.peer(era) as peer:
        listed = await peer.request("tools/list", {})
    schemas = {tool["name"]: tool.get("inputSchema", {}) for tool in listed["tools"]}
    leaked = [
        f"{tool}.{name}"
        for tool, hidden in ELICITED.items()
        for name in hidden
        if name in schemas.get(tool, {}).get("properties", {}) or name in schemas.get(tool, {}).get("required", [])
    ]
    assert not leaked, f"elicited parameters in the input schema: {', '.join(leaked)}"
    # What is there is judged first; a missing core tool leaves the rest unproven. A
    # Python-spelling tool may be absent: its own (REG-9) scenario says so.
    tools = load().tools
    if missing := [tool for tool in ELICITED if tool not in schemas and tools[tool].profile == "core"]:
        raise NotTestable(f"the target has no tool {missing[0]!r}" + (f" (nor {missing[1:]})" if missing[1:] else ""))
    assert set(schemas["book_destination"].get("properties", {})) == {"ref"}
    assert schemas["book_destination"].get("required") == ["ref"]
    assert set(schemas["book_from"].get("properties", {})) == {"destination"}


@pytest.mark.checks("SCH-3")
@async_case
async def test_sch_3_hiding_parameters_keeps_the_tool_description(case: Case, era: str) -> None:
    async with case.peer(era) as peer:
        listed = await peer.request("tools/list", {})
    described = {tool["name"]: (tool.get("description") or "").strip() for tool in listed["tools"]}
    for name, tool in load().tools.items():
        if tool.description is not None and name in described:
            assert described[name] == tool.description, (
                f"{name} is listed with description {described[name]!r}; its author wrote {tool.description!r}"
            )
    if missing := [n for n, t in load().tools.items() if t.description is not None and n not in described]:
        raise NotTestable(f"the target has no tool {missing[0]!r}")


@pytest.mark.checks("BAT-2")
@pytest.mark.revisions(MODERN)
@async_case
async def test_bat_2_body_runs_once_and_only_after_every_answer(case: Case, snapshot: Any, era: str) -> None:
    scenario = case.scenario("BAT-3")
    ref = scenario.arguments["ref"]
    seen: list[int] = []

    async def count(number: int, run: Run, params: dict[str, Any]) -> dict[str, Any]:
        seen.append(await case.body_runs(ref))
        return params

    run = await case.run("BAT-3", era, on_round=count)
    assert not run.failed, run.text
    assert seen and set(seen) == {0}, f"the body ran before every question was answered: {seen}"
    assert await case.body_runs(ref) == 1, "the body must run exactly once"
    case.assert_snapshot(snapshot)


@pytest.mark.checks("ORD-2", "ORD-6")
@async_case
async def test_ord_2_ord_6_dependent_question_quotes_the_answer_it_waited_for(
    case: Case, snapshot: Any, era: str
) -> None:
    run = await case.run("ORD-1", era)
    messages = [a.message for r in run.rounds for a in r]
    assert messages == ["Where would you like to fly?", "Which airport in Paris?"]
    assert run.text == "Paris/CDG", "the round-1 answer was lost in round 2"
    case.assert_snapshot(snapshot)


@pytest.mark.checks("DIG-4", "ORD-6")
@pytest.mark.revisions(MODERN)
@async_case
async def test_ord_6_dig_4_earlier_answers_survive_and_unasked_keys_are_not_credited(
    case: Case, snapshot: Any, era: str,
) -> None:
    """Round 2 re-sends round 1's key with another value and adds a key never
    asked: neither may change what the call ends with."""

    async def meddle(number: int, run: Run, params: dict[str, Any]) -> dict[str, Any]:
        responses = dict(params["inputResponses"])
        for key in ("destination", "airport"):
            responses.setdefault(key, {"action": "accept", "content": {"value": "Rome"}})
        return {**params, "inputResponses": responses}

    run = await case.run("ORD-1", era, on_round=meddle)
    assert run.asked_params == [["destination"], ["airport"]], run.asked_params
    assert run.text == "Paris/CDG"
    case.assert_snapshot(snapshot)


@pytest.mark.checks("RES-3", "BAT-3")
@pytest.mark.revisions(MODERN)
@async_case
async def test_res_3_resolver_value_on_a_later_round_wins(case: Case, snapshot: Any, era: str) -> None:
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
    assert sorted(p for r in run.asked_params for p in r) == ["airport", "date"], run.asked_params
    assert run.text == f"{traveller} from LHR on 2026-08-01", run.text
    case.assert_snapshot(snapshot)


@pytest.mark.checks("DIG-1", "DIG-2")
@pytest.mark.revisions(MODERN)
@async_case
async def test_dig_1_dig_2_answer_to_a_reworded_question_is_dropped(case: Case, snapshot: Any, era: str) -> None:
    """New copy is deployed mid-call: once while a reply is in flight, once after
    the answer was carried into a later round. Both times the old answer must
    not be credited to the new wording."""
    reworded = "Where are you flying to?"
    answers = {"destination": {"accept": "Paris"}, "airport": {"accept": "CDG"}}

    async with case.peer(era) as peer:
        same = await drive(
            peer, "book_reworded", {"ref": f"{case.run_id}-dig-2"}, Script("book_reworded", {}, answers)
        )
        assert same.text == "Booked a flight to Paris/CDG" and len(same.rounds) == 2  # DIG-2

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
            assert reworded in messages[reword_after + 1], (
                f"after rewording, the old answer was credited: rounds {messages}"
            )
            assert run.text.startswith("Booked a flight to Oslo/"), run.text
    case.assert_snapshot(snapshot)


@pytest.mark.checks("DIG-5")
@pytest.mark.revisions(MODERN)
@async_case
async def test_dig_5_changed_argument_never_credits_the_old_answer(case: Case, snapshot: Any, era: str) -> None:
    async with case.peer(era) as peer:
        first = await peer.call_tool("book_from", {"destination": "Paris"})
        assert first.get("resultType") == "input_required"
        (key,) = first["inputRequests"]
        try:
            retry = await peer.call_tool(
                "book_from", {"destination": "Rome"},
                inputResponses={key: {"action": "accept", "content": {"value": "CDG"}}},
                requestState=first["requestState"],
            )
        except RpcError:
            return case.assert_snapshot(snapshot)  # stale state rejected: conforming
    if retry.get("isError"):  # rejected as a tool error: conforming too, unless CDG got through
        text = result_text(retry)
        assert "CDG" not in text, f"the answer for Paris was credited to Rome: {text!r}"
        return case.assert_snapshot(snapshot)
    assert retry.get("resultType") == "input_required", (
        f"the answer for Paris was credited to Rome: {retry}"
    )
    messages = [r["params"]["message"] for r in retry["inputRequests"].values()]
    assert messages == ["Which airport in Rome?"]
    case.assert_snapshot(snapshot)


#: How often to look for the gated resolver before concluding it never started.
GATE_POLLS = 1000


@pytest.mark.checks("RES-6")
@async_case
async def test_res_6_a_blocked_sync_resolver_leaves_the_server_answering(case: Case, era: str) -> None:
    """While a sync resolver holds its thread, a second request on the same
    connection is answered: it finds the resolver waiting and releases it. A
    server that runs the resolver on its event loop answers nothing until the
    resolver gives up. (No snapshot: the number of looks varies from run to run.)"""
    ref = f"{case.run_id}-res-6-{era}"
    held: dict[str, Any] = {}
    async with case.peer(era) as peer:

        async def call() -> None:
            held["result"] = await peer.call_tool("book_when_released", {"ref": ref})

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            state = "idle"
            for _ in range(GATE_POLLS):
                state = result_text(await peer.call_tool("gate_state", {"ref": ref}))
                if state != "idle":
                    break
                await anyio.sleep(0.01)
            blocked = "the sync resolver blocked the server until it gave up"
            assert state == "waiting", blocked if state == "gave up" else f"the gate was {state!r}, never 'waiting'"
            await peer.call_tool("release", {"ref": ref})
    assert result_text(held["result"]) == "Gate: released", held["result"]


def _schemas(run: Run) -> dict[str, dict[str, Any]]:
    return {a.message: a.schema for r in run.rounds for a in r}


def _asked(schemas: dict[str, dict[str, Any]], message: str, run: Run) -> dict[str, Any]:
    assert message in schemas, f"{message!r} was never asked (asked {list(schemas)}; {run.text[:200]})"
    return schemas[message]


def _value_of(schema: dict[str, Any]) -> dict[str, Any]:
    assert schema.get("type") == "object" and list(schema.get("properties", {})) == ["value"], schema
    return schema["properties"]["value"]


@pytest.mark.checks("TYP-1")
@async_case
async def test_typ_1_scalars_are_asked_as_one_value_field(case: Case, snapshot: Any, era: str) -> None:
    run = await case.run("TYP-1", era)
    schemas = _schemas(run)
    for message, json_type in [("Who is travelling?", "string"), ("How many seats?", "integer"),
                               ("What is your budget?", "number"), ("Add travel insurance?", "boolean")]:
        assert _value_of(_asked(schemas, message, run)).get("type") == json_type, schemas[message]
    case.assert_snapshot(snapshot)


@pytest.mark.checks("TYP-2")
@async_case
async def test_typ_2_models_literals_and_enums_keep_their_schemas(case: Case, snapshot: Any, era: str) -> None:
    run = await case.run("TYP-2", era)
    schemas = _schemas(run)
    assert list(_asked(schemas, "Which airport?", run)["properties"]) == ["code"]
    assert _value_of(_asked(schemas, "Which cabin?", run)).get("enum") == ["economy", "business"]
    assert set(_value_of(_asked(schemas, "Which meal?", run)).get("enum", [])) == {"vegetarian", "standard"}
    assert set(_asked(schemas, "Who is travelling?", run)["properties"]) == {"first", "last"}
    case.assert_snapshot(snapshot)


@pytest.mark.checks("TYP-3")
@async_case
async def test_typ_3_field_constraints_reach_the_schema(case: Case, snapshot: Any, era: str) -> None:
    run = await case.run("TYP-3", era)
    seats = _value_of(_asked(_schemas(run), "How many seats?", run))
    assert seats.get("exclusiveMinimum") == 0 or seats.get("minimum") == 1, (
        f"Field(gt=0) did not reach the schema: {seats}"
    )
    case.assert_snapshot(snapshot)


#: Bounds the form-mode schema has no word for: its NumberSchema states `minimum` and
#: `maximum` only. A server may still send them (pydantic renders `gt=0` so), but one
#: that keeps to the schema cannot, so TYP-6 asks only for what the schema can say
#: (book_luggage's weight: its `maximum`) and TYP-3 takes `minimum: 1` for an integer.
UNSAYABLE = ("exclusiveMinimum", "exclusiveMaximum")


@pytest.mark.checks("TYP-6")
@async_case
async def test_typ_6_constraints_and_labels_reach_every_scalar_type(case: Case, snapshot: Any, era: str) -> None:
    run = await case.run("TYP-6", era)
    assert not run.failed, run.text
    schemas = _schemas(run)
    for param, question in load().tools["book_luggage"].questions.items():
        value = _value_of(_asked(schemas, question.message, run))
        wanted = {k: v for k, v in _value_of(question.schema() or {}).items() if k not in UNSAYABLE}
        declared = {"title": question.title, "description": question.description}
        wanted.update({k: v for k, v in declared.items() if v is not None})
        lost = {k: v for k, v in wanted.items() if value.get(k) != v}
        assert not lost, f"{param}: the requested schema {value} lost {lost} of its declaration"
    case.assert_snapshot(snapshot)


@pytest.mark.checks("TYP-7")
@async_case
async def test_typ_7_titled_and_multiple_choices_keep_their_schemas(case: Case, snapshot: Any, era: str) -> None:
    run = await case.run("TYP-7", era)
    assert not run.failed, run.text
    schemas = _schemas(run)
    questions = load().tools["book_cabin_extras"].questions
    cabin = _value_of(_asked(schemas, questions["cabin"].message, run))
    titled = {(o.get("const"), o.get("title")) for o in cabin.get("oneOf") or cabin.get("anyOf") or []}
    assert titled == set(questions["cabin"].one_of), f"the titled choices are lost: {cabin}"
    extras = _value_of(_asked(schemas, questions["extras"].message, run))
    items = extras.get("items") or {}
    offered = set(items.get("enum") or [o.get("const") for o in items.get("anyOf") or []])
    assert extras.get("type") == "array" and offered == set(questions["extras"].items), (
        f"the multiple choice is not an array of the listed items: {extras}"
    )
    case.assert_snapshot(snapshot)


@pytest.mark.checks("ERA-1", "ERA-4")
@async_case
async def test_era_1_era_4_one_declared_tool_same_result_on_both_eras(
    case: Case, snapshot: Any, era: str
) -> None:
    run = await case.run("ORD-4", era)
    assert run.text == "Booked Paris on 2026-08-01"
    case.assert_snapshot(snapshot)


@pytest.mark.checks("ERA-2", "ERA-2/clear")
@pytest.mark.revisions(MODERN)
@async_case
async def test_era_2_imperative_elicit_on_modern_fails_clearly(case: Case, snapshot: Any, era: str) -> None:
    async with case.peer(era) as peer:
        try:
            result = await peer.call_tool("ask_imperatively", {})
        except RpcError as error:
            result = {"isError": True, "content": [{"text": str(error)}]}
    text = result_text(result)
    assert result.get("isError"), f"ctx.elicit() on a modern connection did not fail: {result}"
    should("2026-07-28" in text or "modern" in text.lower(), "ERA-2/clear", f"the error names the era: {text!r}")
    case.assert_snapshot(snapshot)


@pytest.mark.checks("ERA-2")
@pytest.mark.revisions(HANDSHAKE)
@async_case
async def test_era_2_imperative_elicit_works_on_the_handshake_era(case: Case, snapshot: Any, era: str) -> None:
    script = Script("ask_imperatively", {}, {"destination": {"accept": "Paris"}})
    async with case.peer(era) as peer:
        run = await drive(peer, "ask_imperatively", {}, script)
    assert not run.failed, run.text
    assert run.text == "Booked a flight to Paris"
    case.assert_snapshot(snapshot)


@pytest.mark.checks("ERA-3", "ERA-3/clear")
@async_case
async def test_era_3_hand_returned_ask_is_gated_by_era(case: Case, snapshot: Any, era: str) -> None:
    script = Script("guard_by_hand", {}, {"destination": {"accept": "Paris"}})
    async with case.peer(era) as peer:
        run = await drive(peer, "guard_by_hand", {}, script)
    if era == MODERN or not run.failed:
        # On the handshake era a framework may also serve the ask itself, over
        # elicitation/create: then it must be the whole, correct exchange.
        assert run.text == "Booked a flight to Paris", f"the hand-returned ask was mishandled: {run.text!r}"
        if era != MODERN:
            assert run.asked_params == [["destination"]], f"answered without asking: {run.asked_params}"
    else:
        should("2026-07-28" in run.text or "2025-11-25" in run.text, "ERA-3/clear", f"the error names the era: {run.text!r}")
    case.assert_snapshot(snapshot)


#: What a client that cannot take a form question declares.
NO_FORM = {"none": (), "url-only": ("url",)}


async def _book_without_form(
    case: Case, era: str, declared: str, ref: str
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """`book_destination` called by a client that declared `NO_FORM[declared]`:
    the result, or the JSON-RPC error."""
    async with case.peer(era, elicitation=NO_FORM[declared]) as peer:
        try:
            return await peer.call_tool("book_destination", {"ref": ref}), None
        except RpcError as error:
            return {}, error.error


@pytest.mark.checks("ERA-5")
@pytest.mark.revisions(HANDSHAKE)
@pytest.mark.parametrize("declared", list(NO_FORM))
@async_case
async def test_era_5_handshake_client_without_form_elicitation_gets_an_error_not_a_hang(
    case: Case, snapshot: Any, declared: str, era: str,
) -> None:
    ref = f"{case.run_id}-era-5-{declared}"
    result, error = await _book_without_form(case, era, declared, ref)
    asked = [m for d, m in case.transcript.messages if d == "server->client" and m.get("method") == "elicitation/create"]
    assert not asked, f"sent elicitation/create to a client that declared {declared}: {asked}"
    assert error is not None or result.get("isError"), f"the call should fail clearly: {result}"
    assert await case.body_runs(ref) == 0
    case.assert_snapshot(snapshot)


@pytest.mark.checks("ERA-7", "ERA-7/clear")
@pytest.mark.revisions(MODERN)
@pytest.mark.parametrize("declared", list(NO_FORM))
@async_case
async def test_era_7_modern_client_without_form_elicitation_is_not_asked(
    case: Case, snapshot: Any, declared: str, era: str,
) -> None:
    ref = f"{case.run_id}-era-7-{declared}"
    result, error = await _book_without_form(case, era, declared, ref)
    requests = (result.get("inputRequests") or {}).values()
    forms = [r for r in requests if r.get("method") == "elicitation/create"
             and (r.get("params") or {}).get("mode", "form") == "form"]
    assert not forms, f"asked a client that declared {declared} a form question: {forms}"
    assert error is not None or result.get("isError"), f"the call should fail: {result}"
    assert await case.body_runs(ref) == 0
    should(error is not None and error.get("code") == -32021, "ERA-7/clear",
           f"the refusal is -32021, missing required client capability: {error or result}")
    case.assert_snapshot(snapshot)


def _forgeries(state: str) -> dict[str, str]:
    flipped = state[:-3] + ("A" if state[-3] != "A" else "B") + state[-2:]
    return {"flipped": flipped, "truncated": state[: len(state) // 2], "forged": "v1.AAAAAAAA", "empty": ""}


@pytest.mark.checks("SEC-1")
@pytest.mark.revisions(MODERN)
@pytest.mark.parametrize("kind", ["flipped", "truncated", "forged", "empty"])
@async_case
async def test_sec_1_tampered_state_is_rejected_and_the_body_does_not_run(
    case: Case, snapshot: Any, kind: str, era: str,
) -> None:
    async def forge(number: int, run: Run, params: dict[str, Any]) -> dict[str, Any]:
        return {**params, "requestState": _forgeries(params.get("requestState", ""))[kind]}

    scenario = case.scenario("BAT-1")
    run = await case.run("BAT-1", era, on_round=forge)
    if kind == "empty":
        # No state is "no progress": the question is asked again, never answered.
        assert run.failed or len(run.rounds) > 1, run.text
    else:
        assert run.failed, f"a {kind} request_state was accepted: {run.text}"
    assert await case.body_runs(scenario.arguments["ref"]) == 0
    case.assert_snapshot(snapshot)


@pytest.mark.checks("SEC-2")
@pytest.mark.revisions(MODERN)
@async_case
async def test_sec_2_state_replayed_on_another_tool_or_arguments_is_rejected(
    case: Case, snapshot: Any, era: str,
) -> None:
    ref = f"{case.run_id}-sec-2"
    async with case.peer(era) as peer:
        first = await peer.call_tool("book_destination", {"ref": ref})
        (key,) = first["inputRequests"]
        answer = {key: {"action": "accept", "content": {"value": "Paris"}}}
        for tool, arguments in [("book_destination", {"ref": f"{ref}-other"}), ("book_trip", {"ref": ref})]:
            try:
                result = await peer.call_tool(
                    tool, arguments, inputResponses=answer, requestState=first["requestState"]
                )
            except RpcError:
                continue
            assert result.get("resultType") == "input_required" or result.get("isError"), (
                f"state from book_destination({ref}) completed {tool}({arguments}): {result}"
            )
    assert await case.body_runs(ref) == 0
    assert await case.body_runs(f"{ref}-other") == 0
    case.assert_snapshot(snapshot)


MALFORMED = {
    "wrong-kind": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"},
    "wrong-type": {"action": "accept", "content": {"value": ["Paris"]}},
    "no-content": {"action": "accept"},
    "unknown-action": {"action": "maybe", "content": {"value": "Paris"}},
    "huge": {"action": "accept", "content": {"value": "x" * 200_000}},
    "not-an-object": "Paris",
}


@pytest.mark.checks("SEC-3")
@pytest.mark.revisions(MODERN)
@pytest.mark.parametrize("kind", list(MALFORMED))
@async_case
async def test_sec_3_malformed_replies_never_reach_the_body(case: Case, snapshot: Any, kind: str, era: str) -> None:
    scenario = case.scenario("BAT-1")
    ref = scenario.arguments["ref"] + f"-{kind}"

    async def garble(number: int, run: Run, params: dict[str, Any]) -> dict[str, Any]:
        keys = list(params["inputResponses"]) or ["destination"]
        return {**params, "inputResponses": {keys[0]: MALFORMED[kind]}}

    async with case.peer(era) as peer:
        run = await drive(peer, "book_destination", {"ref": ref}, Script("book_destination", {}, {}), on_round=garble)
    runs = await case.body_runs(ref)
    if kind == "huge" and not run.failed:
        assert runs == 1 and run.text == "Booked a flight to " + "x" * 200_000
    else:
        assert runs == 0, f"the body ran on a {kind} reply: {run.text[:200]}"
        # Round 1 is the question; a second round is the question asked again.
        assert run.failed or len(run.rounds) > 1, "a malformed reply must fail clearly or be asked again"
    if kind != "huge":
        case.assert_snapshot(snapshot)
