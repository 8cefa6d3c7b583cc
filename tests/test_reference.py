"""The reference engine, driven through the real fastmcp Client on both eras.

Each test names the case (docs/behaviour.md) it pins. These are the reference's own tests;
the conformance cases in `conformance/cases` hold any server to the same behaviour
over the wire.
"""


import re
import threading
from typing import Annotated, Any

import mcp_types
import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware.middleware import Middleware
from fastmcp.tools.base import InputRequiredToolResult

from elicit_conformance.reference import DeclarativeFastMCP, Elicit, RegistrationError
from elicit_conformance.reference.app.tools import airport_unless_obvious, confirm, which_airport
from elicit_conformance.reference.questions import read_questions
from elicit_conformance.reference.app.registration_probes import PROBES
from elicit_conformance.reference.rounds import (
    STATE_VERSION,
    Ask,
    Complete,
    ElicitationFailed,
    Leg,
    LegProtocolError,
    State,
)

MODES = ["auto", "legacy"]


class RecordRounds(Middleware):
    """The keys asked on each modern leg of a call."""

    def __init__(self) -> None:
        self.rounds: list[list[str]] = []

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        result = await call_next(context)
        if isinstance(result, InputRequiredToolResult):
            self.rounds.append(list(result.input_required.input_requests))
        return result


def answering(answers: dict[str, Any], asked: list[str] | None = None) -> Any:
    """A client handler answering each question by a substring of its message."""

    async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        if asked is not None:
            asked.append(message)
        for marker, value in answers.items():
            if marker in message:
                if isinstance(value, str) and value in ("decline", "cancel"):
                    return ElicitResult(action=value)
                return ElicitResult(action="accept", content=response_type(value=value))
        raise AssertionError(f"unexpected question: {message}")

    return handler


def server() -> tuple[DeclarativeFastMCP, RecordRounds]:
    mcp = DeclarativeFastMCP("t")
    recorder = RecordRounds()
    mcp.add_middleware(recorder)
    return mcp, recorder


async def call(mcp: Any, mode: str, tool: str, args: dict[str, Any], handler: Any) -> Any:
    async with Client(mcp, mode=mode, elicitation_handler=handler) as client:
        return await client.call_tool(tool, args)


def counting_book(mcp: DeclarativeFastMCP) -> list[str]:
    """Register `book(destination)`; the returned list records each body run."""
    runs: list[str] = []

    @mcp.tool
    def book(destination: Annotated[str, Elicit("Where?")]) -> str:
        runs.append(destination)
        return destination

    return runs


# SCH ---------------------------------------------------------------------------


async def test_sch_1_elicited_parameter_leaves_the_schema() -> None:
    mcp, _ = server()

    @mcp.tool
    def book(seats: int, destination: Annotated[str, Elicit("Where to?")]) -> str:
        return destination

    tool = await mcp.get_tool("book")
    assert list(tool.parameters["properties"]) == ["seats"]
    assert tool.parameters["required"] == ["seats"]


async def test_sch_2_optional_elicited_parameter_leaves_the_schema() -> None:
    mcp, _ = server()

    @mcp.tool
    def book(seat: Annotated[str | None, Elicit("Window or aisle?")] = None) -> str:
        return seat or "none"

    tool = await mcp.get_tool("book")
    assert tool.parameters.get("properties", {}) == {}


# BAT / ORD -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_bat_1_bat_2_single_question_runs_body_once(mode: str) -> None:
    mcp, recorder = server()
    runs: list[str] = []

    @mcp.tool
    def book(destination: Annotated[str, Elicit("Where would you like to fly?")]) -> str:
        runs.append(destination)
        return f"Booked {destination}"

    result = await call(mcp, mode, "book", {}, answering({"Where": "Paris"}))
    assert result.data == "Booked Paris"
    assert runs == ["Paris"]
    assert recorder.rounds == ([["destination"]] if mode == "auto" else [])


async def test_bat_3_bat_4_independent_questions_share_a_round_in_signature_order() -> None:
    mcp, recorder = server()

    @mcp.tool
    def book(
        destination: Annotated[str, Elicit("Where?")],
        date: Annotated[str, Elicit("When?")],
        seat: Annotated[str, Elicit("Window or aisle?")],
    ) -> str:
        return f"{destination}/{date}/{seat}"

    handler = answering({"Where": "Paris", "When": "2026-08-01", "Window": "window"})
    result = await call(mcp, "auto", "book", {}, handler)
    assert result.data == "Paris/2026-08-01/window"
    assert recorder.rounds == [["destination", "date", "seat"]]


@pytest.mark.parametrize("mode", MODES)
async def test_ord_1_ord_2_ord_7_dependent_question_waits_and_quotes(mode: str) -> None:
    mcp, recorder = server()
    asked: list[str] = []

    @mcp.tool
    def book(
        airport: Annotated[str, Elicit(which_airport)],
        destination: Annotated[str, Elicit("Where to?")],
    ) -> str:
        return f"{destination}/{airport}"

    handler = answering({"Where": "Paris", "Which airport": "CDG"}, asked)
    result = await call(mcp, mode, "book", {}, handler)
    assert result.data == "Paris/CDG"
    assert asked == ["Where to?", "Which airport in Paris?"]
    if mode == "auto":
        assert recorder.rounds == [["destination"], ["airport"]]


async def test_ord_3_question_from_a_tool_argument_goes_first() -> None:
    mcp, recorder = server()
    asked: list[str] = []

    @mcp.tool
    def book(destination: str, airport: Annotated[str, Elicit(which_airport)]) -> str:
        return f"{destination}/{airport}"

    result = await call(
        mcp, "auto", "book", {"destination": "Paris"}, answering({"Which": "ORY"}, asked)
    )
    assert (result.data, asked, recorder.rounds) == ("Paris/ORY", ["Which airport in Paris?"], [["airport"]])


@pytest.mark.parametrize("mode", MODES)
async def test_ord_4_confirmation_waits_for_what_it_quotes(mode: str) -> None:
    mcp, recorder = server()
    asked: list[str] = []

    @mcp.tool
    def book(
        destination: Annotated[str, Elicit("Where?")],
        date: Annotated[str, Elicit("When?")],
        proceed: Annotated[bool, Elicit(confirm)],
    ) -> str:
        return f"Booked {destination}" if proceed else "Cancelled"

    handler = answering({"Where": "Paris", "When": "2026-08-01", "Book": True}, asked)
    result = await call(mcp, mode, "book", {}, handler)
    assert result.data == "Booked Paris"
    assert asked[-1] == "Book a flight to Paris on 2026-08-01?"
    if mode == "auto":
        assert recorder.rounds == [["destination", "date"], ["proceed"]]


@pytest.mark.parametrize("mode", MODES)
async def test_ord_5_ord_6_chain_asks_each_question_once(mode: str) -> None:
    mcp, recorder = server()

    def second(a: str) -> Elicit[str]:
        return Elicit(f"second, given {a}?", response_type=str)

    def third(b: str) -> Elicit[str]:
        return Elicit(f"third, given {b}?", response_type=str)

    @mcp.tool
    def chain(
        a: Annotated[str, Elicit("first?")],
        b: Annotated[str, Elicit(second)],
        c: Annotated[str, Elicit(third)],
    ) -> str:
        return f"{a}{b}{c}"

    asked: list[str] = []

    async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        asked.append(message)
        return ElicitResult(action="accept", content=response_type(value=str(len(asked))))

    result = await call(mcp, mode, "chain", {}, handler)
    assert result.data == "123"
    assert asked == ["first?", "second, given 1?", "third, given 2?"]
    if mode == "auto":
        assert recorder.rounds == [["a"], ["b"], ["c"]]  # rounds == depth of the graph


# OPT -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_opt_1_opt_2_default_survives_a_refusal(mode: str, action: str) -> None:
    mcp, _ = server()

    @mcp.tool
    def book(seat: Annotated[str | None, Elicit("Window or aisle?")] = None) -> str:
        return seat or "no preference"

    result = await call(mcp, mode, "book", {}, answering({"Window": action}))
    assert result.data == "no preference"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_opt_3_opt_4_required_refusal_fails_naming_the_parameter(mode: str, action: str) -> None:
    mcp, _ = server()
    runs = counting_book(mcp)

    past = {"decline": "declined", "cancel": "cancelled"}[action]
    with pytest.raises(ToolError, match=f"without 'destination'.*the user {past} the question"):
        await call(mcp, mode, "book", {}, answering({"Where": action}))
    assert runs == []


# RES -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_res_1_res_2_resolver_asks_only_when_it_must(mode: str) -> None:
    mcp, recorder = server()

    @mcp.tool
    def book(destination: str, airport: Annotated[str, Elicit(airport_unless_obvious)]) -> str:
        return f"{destination}/{airport}"

    known = await call(mcp, mode, "book", {"destination": "London"}, answering({}))
    assert (known.data, recorder.rounds) == ("London/LHR", [])
    asked = await call(mcp, mode, "book", {"destination": "Paris"}, answering({"Which": "CDG"}))
    assert asked.data == "Paris/CDG"


async def test_res_3_resolver_value_on_a_later_round_beats_the_echoed_answer() -> None:
    mcp, _ = server()
    known: list[str] = []

    def airport(destination: str) -> str | Elicit[str]:
        return known[0] if known else Elicit(f"Which airport in {destination}?", response_type=str)

    @mcp.tool
    def book(
        destination: str,
        date: Annotated[str, Elicit("When?")],
        airport: Annotated[str, Elicit(airport)],
    ) -> str:
        return f"{destination}/{airport}/{date}"

    async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        if "Which airport" in message:
            known.append("LHR")
            return ElicitResult(action="accept", content=response_type(value="CDG"))
        return ElicitResult(action="accept", content=response_type(value="2026-08-01"))

    result = await call(mcp, "auto", "book", {"destination": "Paris"}, handler)
    assert result.data == "Paris/LHR/2026-08-01"


@pytest.mark.parametrize("mode", MODES)
async def test_res_4_explicit_response_type_sets_the_schema(mode: str) -> None:
    from elicit_conformance.reference.app.tools import Airport, pick_airport

    mcp, _ = server()
    schemas: list[dict[str, Any]] = []

    @mcp.tool
    def book(destination: str, airport: Annotated[Airport, Elicit(pick_airport)]) -> str:
        return airport.code

    async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        schemas.append(params.requested_schema)
        return ElicitResult(action="accept", content=response_type(code="CDG"))

    result = await call(mcp, mode, "book", {"destination": "Paris"}, handler)
    assert result.data == "CDG"
    assert list(schemas[0]["properties"]) == ["code"]


@pytest.mark.parametrize("mode", MODES)
async def test_res_5_resolver_resolves_its_own_depends(mode: str) -> None:
    from elicit_conformance.reference.app.tools import styled_seat

    mcp, _ = server()
    asked: list[str] = []

    @mcp.tool
    def seat(choice: Annotated[str, Elicit(styled_seat)]) -> str:
        return choice

    result = await call(mcp, mode, "seat", {}, answering({"Window": "aisle"}, asked))
    assert (result.data, asked) == ("aisle", ["[ACME] Window or aisle?"])


@pytest.mark.parametrize("mode", MODES)
async def test_res_6_async_resolvers_work_and_sync_ones_leave_the_event_loop(mode: str) -> None:
    mcp, _ = server()
    threads: list[str] = []

    async def later(destination: str) -> Elicit[str]:
        return Elicit(f"Which airport in {destination}?", response_type=str)

    def now(destination: str) -> Elicit[str]:
        threads.append(threading.current_thread().name)
        return Elicit(f"Which terminal in {destination}?", response_type=str)

    @mcp.tool
    def book(
        destination: str,
        airport: Annotated[str, Elicit(later)],
        terminal: Annotated[str, Elicit(now)],
    ) -> str:
        return f"{airport}/{terminal}"

    handler = answering({"airport": "CDG", "terminal": "2E"})
    result = await call(mcp, mode, "book", {"destination": "Paris"}, handler)
    assert result.data == "CDG/2E"
    assert threads and threading.main_thread().name not in threads


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("resolver", "error"),
    [("broken_question", "resolver for 'airport'.*'place'"), ("nested_question", "wrapping a callable")],
    ids=["RES-7", "RES-8"],
)
async def test_res_7_res_8_broken_resolvers_fail_clearly(mode: str, resolver: str, error: str) -> None:
    import elicit_conformance.reference.app.tools

    mcp, _ = server()

    @mcp.tool
    def book(airport: Annotated[str, Elicit(getattr(elicit_conformance.reference.app.tools, resolver))]) -> str:
        return airport

    with pytest.raises(ToolError, match=error):
        await call(mcp, mode, "book", {}, answering({}))


# DIG: the engine itself, with no transport ------------------------------------------


def questions_of(message: str) -> Any:
    def book(seat: Annotated[str, Elicit(message)]) -> str:
        return seat

    return read_questions(book)


def run_leg(questions: Any, state: State, replies: dict[str, Any]) -> Ask | Complete:
    leg = Leg(questions, {}, state, replies)
    assert leg.next_resolver() is None  # fixed text: nothing for the caller to run
    return leg.outcome()


def test_a_leg_refuses_to_be_driven_out_of_order() -> None:
    """The engine's protocol: one resolver at a time, decided before the next,
    and no outcome while anything is pending (else "run the body with nothing")."""

    def chain(
        origin: Annotated[str, Elicit(lambda: Elicit("From?"))],
        destination: Annotated[str, Elicit(lambda origin: Elicit(f"From {origin} to?"))],
    ) -> str:
        return destination

    questions = read_questions(chain)
    leg = Leg(questions, {}, State(), {})
    with pytest.raises(LegProtocolError, match="before every resolver ran"):
        leg.outcome()
    first = leg.next_resolver()
    assert first is not None and first.name == "origin"
    with pytest.raises(LegProtocolError, match="decide\\('origin', ...\\) before"):
        leg.next_resolver()
    with pytest.raises(LegProtocolError, match="before every resolver ran"):
        leg.outcome()
    with pytest.raises(LegProtocolError, match="out of turn: 'origin' is pending"):
        leg.decide(questions[1], "Paris")
    leg.decide(first, Elicit("From?"))
    # The dependent question waits a round: it is never handed out this leg.
    assert leg.next_resolver() is None
    outcome = leg.outcome()
    assert isinstance(outcome, Ask) and list(outcome.requests) == ["origin"]
    with pytest.raises(LegProtocolError, match="out of turn: nothing is pending"):
        leg.decide(first, "Lyon")


def accept(value: Any) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content={"value": value})


def test_dig_1_dig_2_answers_are_pinned_to_the_wording_shown() -> None:
    first = run_leg(questions_of("Window or aisle?"), State(), {})
    assert isinstance(first, Ask)
    reply = {"seat": accept("window")}
    same = run_leg(questions_of("Window or aisle?"), first.state, reply)
    assert same == Complete({"seat": "window"})
    reworded = run_leg(questions_of("Which seat would you prefer?"), first.state, reply)
    assert isinstance(reworded, Ask)
    assert reworded.requests["seat"].params.message == "Which seat would you prefer?"


@pytest.mark.parametrize(
    "carried",
    ["", "not json", "[]", '{"v": 999, "answers": {}, "asked": {}}', '{"v": 1, "answers": 3}'],
)
def test_dig_3_unreadable_state_is_no_progress(carried: str) -> None:
    outcome = run_leg(questions_of("Window or aisle?"), State.decode(carried), {"seat": accept("x")})
    assert isinstance(outcome, Ask)


def test_dig_3_state_round_trips_at_this_version() -> None:
    first = run_leg(questions_of("Window or aisle?"), State(), {})
    assert isinstance(first, Ask)
    assert State.decode(first.state.encode()) == first.state
    assert f'"v":{STATE_VERSION}' in first.state.encode()


def test_dig_4_reply_under_a_key_not_asked_is_not_credited() -> None:
    def book(a: Annotated[str, Elicit("A?")], b: Annotated[str, Elicit("B?")]) -> str:
        return a + b

    questions = read_questions(book)
    first = run_leg(questions, State(), {})
    assert isinstance(first, Ask)
    only_a = State(answers={}, asked={"a": first.state.asked["a"]})
    outcome = run_leg(questions, only_a, {"a": accept("1"), "b": accept("2")})
    assert isinstance(outcome, Ask) and list(outcome.requests) == ["b"]


# TYP -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
async def test_typ_3_field_constraints_reach_the_schema(mode: str) -> None:
    from pydantic import Field

    mcp, _ = server()
    schemas: list[dict[str, Any]] = []

    @mcp.tool
    def book(seats: Annotated[int, Field(gt=0), Elicit("How many seats?")]) -> str:
        return f"{seats} seats"

    async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
        schemas.append(params.requested_schema)
        return mcp_types.ElicitResult(action="accept", content={"value": 2})

    assert (await call(mcp, mode, "book", {}, handler)).data == "2 seats"
    assert schemas[0]["properties"]["value"]["exclusiveMinimum"] == 0


def test_typ_3_typ_4_typ_5_answers_are_checked_by_the_server_too() -> None:
    """A client need not validate; the engine enforces the schema itself."""
    from pydantic import Field

    def book(seats: Annotated[int, Field(gt=0), Elicit("How many seats?")]) -> str:
        return str(seats)

    questions = read_questions(book)
    first = run_leg(questions, State(), {})
    assert isinstance(first, Ask)
    for reply, error in [
        (accept(-1), "'seats' does not match"),
        (accept("many"), "'seats' does not match"),
        (mcp_types.ElicitResult(action="accept"), "'seats' was accepted but carries no content"),
    ]:
        with pytest.raises(ElicitationFailed, match=error):
            run_leg(questions, first.state, {"seats": reply})
    assert run_leg(questions, first.state, {"seats": accept(3)}) == Complete({"seats": 3})


def test_a_resolver_asking_an_unaskable_question_fails_naming_the_parameter() -> None:
    """Labels on a model question are refused at registration when written on the
    marker; returned by a resolver they are seen only when it runs (found by the
    GEN-1 declaration space): the call fails naming the parameter, not with
    fastmcp's bare TypeError."""
    from pydantic import BaseModel

    class Stop(BaseModel):
        code: str

    def labelled_stop() -> Elicit[Stop]:
        return Elicit("Which stop?", response_type=Stop, title="Your pick")

    def book(stop: Annotated[Stop, Elicit(labelled_stop)]) -> str:
        return stop.code

    leg = Leg(read_questions(book), {}, State(), {})
    pending = leg.next_resolver()
    assert pending is not None and pending.name == "stop"
    with pytest.raises(ElicitationFailed, match=r"^'stop' cannot be asked this way: response_title"):
        leg.decide(pending, labelled_stop())


@pytest.mark.parametrize("mode", MODES)
async def test_typ_1_typ_2_natural_schemas(mode: str) -> None:
    from elicit_conformance.reference.app import app

    # Both tools ask "Who is travelling?": a traveller model, and a plain name.
    seen: dict[str, dict[str, dict[str, Any]]] = {"book_preferences": {}, "book_passengers": {}}

    for tool, schemas in seen.items():

        async def handler(message: str, response_type: Any, params: Any, ctx: Any) -> Any:
            schemas[message] = params.requested_schema
            return ElicitResult(action="decline")

        with pytest.raises(ToolError):
            await call(app, mode, tool, {}, handler)
    preferences, passengers = seen["book_preferences"], seen["book_passengers"]
    assert preferences["Which cabin?"]["properties"]["value"]["enum"] == ["economy", "business"]
    assert set(preferences["Who is travelling?"]["properties"]) == {"first", "last"}
    assert set(passengers["Who is travelling?"]["properties"]) == {"value"}
    assert passengers["How many seats?"]["properties"]["value"]["type"] == "integer"


# ERA -----------------------------------------------------------------------------


async def test_era_5_handshake_client_without_elicitation_gets_a_clear_error() -> None:
    mcp, _ = server()

    @mcp.tool
    def book(destination: Annotated[str, Elicit("Where?")]) -> str:
        return destination

    async with Client(mcp, mode="legacy") as client:
        with pytest.raises(ToolError, match="elicitation capability"):
            await client.call_tool("book", {})


async def test_era_3_body_returning_its_own_ask_beside_declared_questions_fails() -> None:
    mcp, _ = server()

    @mcp.tool
    def book(destination: Annotated[str, Elicit("Where?")]):  # no annotation: runtime check
        return mcp_types.InputRequiredResult(input_requests={}, request_state="x")

    with pytest.raises(ToolError, match="one channel"):
        await call(mcp, "auto", "book", {}, answering({"Where": "Paris"}))


# SEC -----------------------------------------------------------------------------


async def test_sec_1_tampered_state_never_runs_the_body() -> None:
    from fastmcp.client.transports.memory import FastMCPTransport

    mcp, _ = server()
    runs = counting_book(mcp)

    async def never_called(context: Any, params: Any) -> Any:  # declares form elicitation (ERA-7)
        raise AssertionError("a 2026-07-28 server sends no elicitation/create")

    async with FastMCPTransport(mcp).connect_session(elicitation_callback=never_called) as session:
        await session.discover()
        ask = await session.call_tool("book", {}, allow_input_required=True)
        token = ask.request_state
        for forged in (token[:-4] + "AAAA", token[: len(token) // 2], "v1.", token + "x"):
            with pytest.raises(Exception, match="Invalid or expired requestState"):
                await session.call_tool(
                    "book",
                    {},
                    allow_input_required=True,
                    input_responses={"destination": accept("Paris")},
                    request_state=forged,
                )
    assert runs == []


# REG -----------------------------------------------------------------------------


REG_ERRORS = {
    "REG-1": "takes 'nonexistent', which is not a parameter of the tool",
    "REG-1/no-signature": "The resolver for 'seat' of 'book' has no readable signature",
    "REG-1/not-callable": "The question for 'seat' of 'book' must be a string or a resolver function, not int",
    "REG-2": "in a cycle: outbound -> inbound -> outbound",
    "REG-3": "also returns an InputRequiredResult",
    "REG-4/union": "'destination' of 'book' has Elicit(...) buried",
    "REG-4/list": "'destinations' of 'book' has Elicit(...) buried",
    "REG-4/list-alias": "'destinations' of 'book' has Elicit(...) buried",
    "REG-4/list-described": "'destinations' of 'book' has Elicit(...) buried",
    "REG-5": "declares it elicits <class 'int'>, but the parameter is annotated <class 'str'>",
    "REG-6": "both elicited and filled by Depends(...)",
    "REG-7": "takes 'ctx', which the framework injects only after elicitation",
    "REG-7/depends": "takes 'home', which the framework injects only after elicitation",
    "REG-5/plain": "declares it elicits <class 'int'>, but the parameter is annotated <class 'str'>",
    "REG-8": "but its Elicit asks for <class 'str'>, which the parameter cannot hold",
    "REG-8/generic": "'seats' of 'book' is annotated list[str] but its Elicit asks for <class 'int'>",
    "REG-8/literal": "'seats' of 'book' is annotated typing.Literal['one', 'two'] but its Elicit asks for <class 'int'>",
    "REG-8/generic-arm": "'seats' of 'book' is annotated list[str] but its Elicit asks for <class 'int'>",
    "REG-10/name": "cannot be resolved (name 'NotImported' is not defined), so the Elicit markers of 'seat'",
    "REG-10/type": "cannot be resolved (unsupported operand type(s) for |: 'type' and 'str'), so the Elicit markers of 'seat'",
    "REG-11": "Parameter 'seat' of 'book' cannot be asked as typing.Union[int, str]",
    "REG-10/prebuilt": "Tool 'book' was built from 'book' without reading its Elicit(...) parameters, so 'seat'",
    "ERA-6": "a prompt has no channel to ask the user",
    "ERA-6/prompt-called": "The prompt 'greet' declares Elicit(...) on 'name'",
    "ERA-6/prompt-named": "The prompt 'greet' declares Elicit(...) on 'name'",
    "ERA-6/resource": "a resource has no channel to ask the user",
}
#: Probes whose wiring is right: they register and hide `seat`.
REGISTERS = ("REG-5/literal-value", "REG-8/fits-", "REG-9", "RES-2/partial", "REG-11/resolver", "ERA-6/plain")


@pytest.mark.parametrize("case", list(REG_ERRORS))
def test_reg_1_to_reg_11_era_6_wrong_wiring_fails_at_registration(case: str) -> None:
    # The exact reason matters: a probe that fails for another reason proves nothing.
    with pytest.raises(RegistrationError, match=re.escape(REG_ERRORS[case])):
        PROBES[case]()


def test_every_failing_probe_has_its_reason() -> None:
    assert set(REG_ERRORS) == {c for c in PROBES if not c.startswith(REGISTERS)}


def test_every_probe_is_named_by_its_declaration_in_verdicts() -> None:
    from elicit_conformance.registration import DECLARES

    assert set(DECLARES) == set(PROBES)


@pytest.mark.parametrize("case", [c for c in PROBES if c.startswith(REGISTERS)])
def test_reg_8_reg_9_right_wirings_register_and_hide_the_parameter(case: str) -> None:
    assert "seat" not in PROBES[case]().get("properties", {})


def test_reg_4_optional_spelling_is_not_mistaken_for_a_buried_marker() -> None:
    def book(seat: Annotated[str, Elicit("Window or aisle?")] | None = None) -> str:
        return seat or ""

    assert [q.name for q in read_questions(book)] == ["seat"]


async def test_every_tool_prompt_and_template_the_reference_lists_has_a_description() -> None:
    """A deployable example: clients (and the official suite's tools-list scenario)
    show each entry by its description."""
    from elicit_conformance.reference.app import app

    async with Client(app) as client:
        listed = [*await client.list_tools(), *await client.list_prompts(), *await client.list_resource_templates()]
    assert len(listed) > 50
    assert not [entry.name for entry in listed if not (entry.description or "").strip()]
