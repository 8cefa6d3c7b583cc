"""The reference app: one tool per scenario of `fixtures/scenarios.json`.

Each tool is written the way a server author would write it; the catalog says
what it must ask and answer, and the conformance suite checks it over the wire.
`registration` is the adapter the REG cases call (see conformance/registration.py).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import importlib.util
import os
import time
from datetime import timedelta
from typing import Annotated, Any, Literal

import mcp_types
from fastmcp import Context
from fastmcp.dependencies import Depends
from fastmcp.utilities.tasks import TaskConfig
from pydantic import BaseModel, Field
from typing_extensions import TypeAliasType

from elicit_conformance.reference import DeclarativeFastMCP, Elicit
from elicit_conformance.reference.space import register as register_space

from .official import register as register_official
from .official import register_tasks as register_official_tasks
from .records import ENV_VAR, from_environment, seal_from_environment

#: Body runs per `ref` (BAT-2, SEC-*), home airports per traveller (RES-3),
#: question copy per `ref` (DIG-1) and, where several processes share them, the last
#: rounds that ran (SEC-5): shared by every process of one deployment.
_records = from_environment()

# The last rounds that ran: in the shared records where a deployment shares them (several
# processes), else in the library's own store, what DeclarativeFastMCP() keeps by default.
app = DeclarativeFastMCP("elicit-reference", request_state_security=seal_from_environment(),
                         completions=_records if os.environ.get(ENV_VAR) else None)

# Background tasks need the `tasks` extra (fastmcp-tasks). Without it the tools
# the catalog marks "task" are ordinary tools and the TASK cases read "not implemented".
if importlib.util.find_spec("fastmcp_tasks") is not None:
    from elicit_conformance.reference.tasks import AsksInsideTheTask, DeclarativeTasks

    # A worker that goes away holding a task's message (a process that died; likely
    # also an in-process connection's worker torn down while a read of the shared
    # memory:// store was pending, seen twice under load, not reproduced) leaves the
    # task "working" until the message is redelivered: after 5 minutes by default,
    # long past any client's patience.
    # Docket renews the lease of every task still running, so a short timeout
    # moves only abandoned work, within about 2.5 s.
    app.add_extension(DeclarativeTasks(redelivery_timeout=timedelta(seconds=2)))
    # A short poll interval keeps a tasked call's wall time close to the foreground's:
    # a client polls at what the server says, and every suite run pays one interval per
    # state change of each tasked case (50 ms made the TASK cases 2.0 s of a 6 s run;
    # 5 ms makes them 0.7 s). A deployment with real clients would choose a longer one.
    TASK: TaskConfig | bool = TaskConfig(mode="optional", poll_interval=timedelta(milliseconds=5))
    # One catalog tool makes its task first and asks inside it (also legal), so the in-task
    # path (tasks/get's order, tasks/update in parts) runs on the reference too (TASK-2, TASK-3).
    INSIDE: TaskConfig | bool = AsksInsideTheTask(mode="optional", poll_interval=timedelta(milliseconds=5))
else:
    TASK = INSIDE = False


def _ran(ref: str) -> None:
    _records.count(f"runs:{ref}")


@app.tool
def body_runs(ref: str) -> int:
    """How many times a tool body ran for `ref`."""
    return int(_records.get(f"runs:{ref}") or 0)


@app.tool(task=TASK)
def book_destination(
    ref: str, destination: Annotated[str, Elicit("Where would you like to fly?")]
) -> str:
    """Book a flight; where to is asked of the user."""
    _ran(ref)
    return f"Booked a flight to {destination}"


def _fare_quoted_at() -> float:
    """When the fare was quoted: a value injected anew on every request."""
    return time.time()


def where_to_once() -> Elicit[str]:
    return Elicit("Where would you like to fly?", response_type=str)


@app.tool(task=TASK)
def book_once(
    ref: str,
    # Asked by a plain sync resolver: the engine runs the body of such a leg in the
    # resolver's worker thread, and the last round must run once there too.
    destination: Annotated[str, Elicit(where_to_once)],
    quoted_at: Annotated[float, Depends(_fare_quoted_at)],
) -> str:
    """Book one seat on a one-time fare; where to is asked of the user."""
    # Nothing of its own: every declared tool's last round runs once (reference.once), however
    # its injected arguments (quoted_at differs on every request) vary between the sends.
    _ran(ref)
    return f"Booked one seat to {destination}"


@app.tool(task=INSIDE)
def book_trip(
    ref: str,
    destination: Annotated[str, Elicit("Where would you like to fly?")],
    date: Annotated[str, Elicit("When would you like to fly?")],
    cabin: Annotated[str, Elicit("Which cabin class?")],
) -> str:
    """Book a trip; where, when and in which cabin are asked of the user in one round (BAT-3).
    Tasked, it makes the task first and asks inside it."""
    _ran(ref)
    return f"{destination} on {date} in {cabin}"


def which_airport(destination: str) -> Elicit[str]:
    return Elicit(f"Which airport in {destination}?", response_type=str)


@app.tool(task=TASK)
def book_airport(
    destination: Annotated[str, Elicit("Where would you like to fly?")],
    airport: Annotated[str, Elicit(which_airport)],
) -> str:
    """Book a flight; the airport question quotes the destination answer, so it waits a round (ORD-1)."""
    return f"{destination}/{airport}"


def airport_unless_obvious(destination: str) -> str | Elicit[str]:
    if destination == "London":
        return "LHR"
    return Elicit(f"Which airport in {destination}?", response_type=str)


@app.tool(task=TASK)
def book_from(destination: str, airport: Annotated[str, Elicit(airport_unless_obvious)]) -> str:
    """Book a flight from a given destination; London's airport is known, others are asked (ORD-3, RES-1, RES-2)."""
    return f"{destination}/{airport}"


@app.tool
async def book_from_async(destination: str, airport: Annotated[str, Elicit(airport_unless_obvious)]) -> str:
    """book_from with an async body: its sync resolver may answer without asking, and the
    body must still be awaited (RES-1/async, RES-2/async)."""
    return f"{destination}/{airport}"


def confirm(destination: str, date: str) -> Elicit[bool]:
    return Elicit(f"Book a flight to {destination} on {date}?", response_type=bool)


@app.tool
def book_confirmed(
    destination: Annotated[str, Elicit("Where would you like to fly?")],
    date: Annotated[str, Elicit("When would you like to fly?")],
    proceed: Annotated[bool, Elicit(confirm)],
) -> str:
    """Book after confirming: the confirmation quotes both earlier answers (ORD-4)."""
    return f"Booked {destination} on {date}" if proceed else "Cancelled"


def onward(origin: str) -> Elicit[str]:
    return Elicit(f"Where to from {origin}?", response_type=str)


def coming_back(destination: str) -> Elicit[str]:
    return Elicit(f"When do you return from {destination}?", response_type=str)


@app.tool
def plan_chain(
    origin: Annotated[str, Elicit("Where are you flying from?")],
    destination: Annotated[str, Elicit(onward)],
    return_date: Annotated[str, Elicit(coming_back)],
) -> str:
    """Plan a chain of three questions, each waiting for the one before (ORD-5)."""
    return f"{origin}->{destination}, back {return_date}"


@app.tool(task=TASK)
async def book_seat(seat: Annotated[str | None, Elicit("Window or aisle?")] = None) -> str:
    """Book a seat; the preference is optional and defaults to none (OPT-1, OPT-2)."""
    return f"Seat: {seat or 'no preference'}"


@app.tool
async def book_seat_outside(seat: Annotated[str, Elicit("Window or aisle?")] | None = None) -> str:
    """As book_seat, the optional union written outside Annotated (REG-9)."""
    return f"Seat: {seat or 'no preference'}"


SeatChoice = TypeAliasType("SeatChoice", Annotated[str | None, Elicit("Window or aisle?")])


@app.tool
async def book_seat_alias(seat: SeatChoice = None) -> str:
    """As book_seat, the declaration held in a type alias (REG-9)."""
    return f"Seat: {seat or 'no preference'}"


def seat_to(destination: str) -> Elicit[str]:
    return Elicit(f"Window or aisle on the way to {destination}?")


@app.tool
def book_meal(
    destination: Annotated[str, Elicit("Where would you like to fly?")],
    meal: Annotated[str, Elicit("Which meal would you like?")] = "standard",
    seat: Annotated[str, Elicit(seat_to)] = "any",
) -> str:
    """A declined optional keeps its default while a later round is still to come (OPT-5)."""
    return f"{destination}, meal: {meal}, seat: {seat}"


async def _seat_for(cabin: str, seat: Annotated[str | None, Elicit("Window or aisle?")] = None) -> str:
    return f"Seat: {seat or 'no preference'} ({cabin})"


app.tool(functools.partial(_seat_for, cabin="economy"), name="book_seat_partial",
         description="As book_seat, the tool registered as a functools.partial (REG-9).")


def home_airport(traveller: str) -> str | Elicit[str]:
    if (airport := _records.get(f"home:{traveller}")) is not None:
        return airport
    return Elicit(f"Which airport should we fly you from, {traveller}?", response_type=str)


@app.tool
def save_home_airport(traveller: str, airport: str) -> str:
    """Save a traveller's home airport, which book_profile then uses without asking (RES-3)."""
    _records.put(f"home:{traveller}", airport)
    return f"Saved {airport} for {traveller}"


@app.tool
def book_profile(
    traveller: str,
    date: Annotated[str, Elicit("When would you like to fly?")],
    airport: Annotated[str, Elicit(home_airport)],
) -> str:
    """Book for a traveller; their saved home airport is used, or asked (RES-3)."""
    return f"{traveller} from {airport} on {date}"


class Airport(BaseModel):
    code: str


def pick_airport(destination: str) -> Airport | Elicit[Airport]:
    return Elicit(f"Which airport in {destination}?", response_type=Airport)


@app.tool
def book_typed_airport(destination: str, airport: Annotated[Airport, Elicit(pick_airport)]) -> str:
    """Book with an airport asked as a model by a resolver (TYP-2)."""
    return f"{destination}/{airport.code}"


def house_prefix() -> str:
    return "[ACME]"


def styled_seat(prefix: str = Depends(house_prefix)) -> Elicit[str]:
    return Elicit(f"{prefix} Window or aisle?", response_type=str)


@app.tool
def book_styled(seat: Annotated[str, Elicit(styled_seat)]) -> str:
    """Book a seat asked by a resolver that takes a Depends(...) value (RES-5)."""
    return f"Seat: {seat}"


async def airport_later(destination: str) -> Elicit[str]:
    return Elicit(f"Which airport in {destination}?", response_type=str)


def terminal_now(destination: str) -> Elicit[str]:
    return Elicit(f"Which terminal in {destination}?", response_type=str)


@app.tool
def book_async(
    destination: str,
    airport: Annotated[str, Elicit(airport_later)],
    terminal: Annotated[str, Elicit(terminal_now)],
) -> str:
    """Book with an async and a sync resolver asking in the same call (RES-6)."""
    return f"{destination}/{airport}/{terminal}"


def place_in(destination: str, kind: str) -> Elicit[str]:
    return Elicit(f"Which {kind} in {destination}?")


async def transfer_to(destination: str) -> Elicit[str]:
    return Elicit(f"Which transfer to {destination}?")


class InsuranceQuestion:
    """A callable object whose `__call__` is async: a resolver all the same (RES-2)."""

    async def __call__(self, destination: str) -> Elicit[str]:
        return Elicit(f"Which insurance for {destination}?")


def book_transfer(
    destination: str,
    hotel: Annotated[str, Elicit(functools.partial(place_in, kind="hotel"))],
    transfer: Annotated[str, Elicit(transfer_to)],
    insurance: Annotated[str, Elicit(InsuranceQuestion())],
) -> str:
    """A sync partial, an async and a callable-object resolver in one round."""
    return f"{destination}: {hotel}, {transfer}, {insurance}"


app.add_tool(book_transfer)  # the other way to register a tool, declared all the same


def bags_as_a_number():  # type: ignore[no-untyped-def]  # undeclared: only a call shows the type
    return Elicit("How many bags?", response_type=int)


@app.tool
def book_bags(ref: str, bags: Annotated[str, Elicit(bags_as_a_number)]) -> str:
    """Its resolver asks for an integer the str parameter cannot hold (RES-9)."""
    _ran(ref)
    return f"Bags: {bags}"


#: How long the gated resolver waits for its release. A server that runs it on
#: the event loop never sees the release, so it gives up instead of hanging. A right
#: server is released two round trips after it starts waiting (milliseconds); every
#: wrong one keeps the case waiting this long, per era.
GATE_SECONDS = 3.0


def held_until_released(ref: str) -> str:
    """A sync resolver that blocks its thread until `release(ref)` (RES-6)."""
    _records.put(f"gate:{ref}", "waiting")
    deadline = time.monotonic() + GATE_SECONDS
    while time.monotonic() < deadline:
        if _records.get(f"gate:{ref}") == "released":
            return "released"
        time.sleep(0.01)
    _records.put(f"gate:{ref}", "gave up")
    return "never released"


@app.tool
def book_when_released(ref: str, gate: Annotated[str, Elicit(held_until_released)]) -> str:
    """Book once a sync resolver, blocked until release(ref), returns (RES-6)."""
    return f"Gate: {gate}"


@app.tool
def gate_state(ref: str) -> str:
    """idle, waiting (the resolver is blocked), released, or gave up."""
    return _records.get(f"gate:{ref}") or "idle"


@app.tool
def release(ref: str) -> str:
    """Release the resolver book_when_released is waiting on for ref (RES-6)."""
    _records.put(f"gate:{ref}", "released")
    return "released"


def city_of(destination: str) -> str:
    # Needs a tool argument, which a resolver's own dependency cannot receive.
    return destination


def broken_question(place: str = Depends(city_of)) -> Elicit[str]:
    return Elicit(f"Where in {place}?", response_type=str)


@app.tool
def book_broken_dependency(airport: Annotated[str, Elicit(broken_question)]) -> str:
    """Its resolver depends on a value that cannot be built when it runs, which fails the call (RES-7)."""
    return airport


def nested_question() -> Elicit[str]:
    return Elicit(which_airport, response_type=str)


@app.tool
def book_bad_resolver(airport: Annotated[str, Elicit(nested_question)]) -> str:
    """Its resolver returns a question wrapping another resolver, which fails the call (RES-8)."""
    return airport


class Stop(BaseModel):
    code: str


def labelled_stop() -> Elicit[Stop]:
    # Labels name a question's `value` field, and a model question has none: written on
    # the marker this is refused at registration; returned here, it is seen only now.
    return Elicit("Which stop?", response_type=Stop, title="Stop", description="Where the bus stops")


@app.tool
def book_labelled_stop(ref: str, stop: Annotated[Stop, Elicit(labelled_stop)]) -> str:
    """Its resolver returns a question that cannot be asked as written (RES-8)."""
    _ran(ref)
    return f"Stop: {stop.code}"


def current_copy(ref: str) -> Elicit[str]:
    return Elicit(_records.get(f"copy:{ref}") or "Where would you like to fly?", response_type=str)


@app.tool
def set_copy(ref: str, text: str) -> str:
    """Set the wording book_reworded asks with for ref (DIG-1)."""
    _records.put(f"copy:{ref}", text)
    return "ok"


@app.tool
def book_reworded(
    ref: str,
    destination: Annotated[str, Elicit(current_copy)],
    airport: Annotated[str, Elicit(which_airport)],
) -> str:
    """Book with a question whose wording can change between rounds (DIG-1, DIG-2)."""
    _ran(ref)
    return f"Booked a flight to {destination}/{airport}"


@app.tool
def book_passengers(
    name: Annotated[str, Elicit("Who is travelling?")],
    seats: Annotated[int, Elicit("How many seats?")],
    budget: Annotated[float, Elicit("What is your budget?")],
    insurance: Annotated[bool, Elicit("Add travel insurance?")],
) -> str:
    """Book passengers: a string, an integer, a number and a boolean asked (TYP-1)."""
    return f"{name} x{seats} budget {budget:g} insured {str(insurance).lower()}"


class Meal(enum.Enum):
    VEGETARIAN = "vegetarian"
    STANDARD = "standard"


@dataclasses.dataclass
class Traveller:
    first: str
    last: str


@app.tool
def book_preferences(
    airport: Annotated[Airport, Elicit("Which airport?")],
    cabin: Annotated[Literal["economy", "business"], Elicit("Which cabin?")],
    meal: Annotated[Meal, Elicit("Which meal?")],
    traveller: Annotated[Traveller, Elicit("Who is travelling?")],
) -> str:
    """Book preferences: a model, a Literal, an Enum and a dataclass asked (TYP-2)."""
    return f"{traveller.first} {traveller.last}: {airport.code}, {cabin}, {meal.value}"


@app.tool
def book_seats_count(seats: Annotated[int, Field(gt=0), Elicit("How many seats?")]) -> str:
    """Book seats: Field(gt=0) reaches the schema and is enforced (TYP-3, TYP-4)."""
    return f"{seats} seats"


@app.tool
def book_luggage(
    ref: Annotated[str, Field(description="The booking reference")],
    # Keyword-only, so the defaults of bags and fragile need not move them after weight.
    *,
    bags: Annotated[int, Field(ge=0, le=5), Elicit("How many checked bags?", title="Checked bags", description="Up to five")] = 0,
    weight: Annotated[float, Field(gt=0, le=32), Elicit("How heavy is your heaviest bag, in kg?", title="Heaviest bag")],
    fragile: Annotated[bool, Elicit("Anything fragile in your bags?", title="Fragile items", description="Glass or electronics")] = False,
) -> str:
    """Field constraints and a declared title on every scalar answer type, and a
    title and description on an answer with no Field metadata at all (TYP-6);
    a number's and a boolean's default offered, falsy ones at that (OPT-6)."""
    return f"{bags} bags, heaviest {weight:g} kg, fragile {str(fragile).lower()}"


@app.tool
def book_cabin_extras(
    cabin: Annotated[str, Elicit("Which cabin class would you like?", response_type={
        "economy": {"title": "Economy"}, "business": {"title": "Business class"},
    })],
    extras: Annotated[list[Literal["wifi", "meal", "lounge"]], Elicit("Which extras would you like?")],
) -> str:
    """A titled single choice and a multiple choice (TYP-7)."""
    return f"{cabin} with {', '.join(extras) or 'no extras'}"


@app.tool("book_described", description="Field metadata beside the marker, on every kind of answer (TYP-8).")
def _book_described(
    note: Annotated[str, Field(description="For the crew"), Elicit("Any note for the crew?")],
    window: Annotated[bool, Field(description="A window seat"), Elicit("Would you like a window seat?")],
    cabin: Annotated[Literal["economy", "business"], Field(description="Cabin class"), Elicit("Which cabin do you fly?")],
    meal: Annotated[Meal, Field(title="Meal choice"), Elicit("Which meal do you eat?")],
    extras: Annotated[list[Literal["wifi", "meal", "lounge"]], Field(description="Extras"), Elicit("Which extras do you want?")],
    airport: Annotated[Airport, Field(description="Departure airport"), Elicit("Which airport do you leave from?")],
) -> str:
    return (f"{note}; window {str(window).lower()}; {cabin}; {meal.value}; "
            f"{', '.join(extras)}; {airport.code}")


@app.tool("book_choices", description="One choice in each SEP-1330 enum form (TYP-9).")
def _book_choices(
    seat: Annotated[Literal["window", "aisle"], Elicit("Window or aisle seat?")],
    meal: Annotated[Meal, Elicit("Which meal would you like on board?")],
    cabin: Annotated[str, Elicit("Which cabin would you like to fly?", response_type={
        "economy": {"title": "Economy"}, "business": {"title": "Business class"},
    })],
    # fastmcp's shorthands for a multiple choice, untitled and titled.
    extras: Annotated[list[str], Elicit("Which extras would you like to add?", response_type=[["wifi", "meal", "lounge"]])],
    perks: Annotated[list[str], Elicit("Which perks would you like?", response_type=[{
        "lounge": {"title": "Lounge access"}, "priority": {"title": "Priority boarding"},
    }])],
) -> str:
    return f"{seat}, {meal.value}, {cabin}; extras {', '.join(extras)}; perks {', '.join(perks)}"


def back_from(outbound: str) -> Elicit[str]:
    return Elicit(f"When do you fly back from {outbound}?", response_type=str)


@app.tool()
def book_return_first(
    back: Annotated[str, Elicit(back_from)],
    seat: Annotated[str, Elicit("Window or aisle?")],
    outbound: Annotated[str, Elicit("Where are you flying to?")],
) -> str:
    """A question waiting on a parameter declared after it, with an independent
    one between them: rounds keep signature order, not dependency order (ORD-1, BAT-4)."""
    return f"{outbound} back {back}, {seat}"


def bags_as_text():  # type: ignore[no-untyped-def]  # undeclared: only a call shows the type
    return Elicit("How many bags, in words or digits?", response_type=str)


@app.tool
def book_bag_count(ref: str, bags: Annotated[int, Elicit(bags_as_text)]) -> str:
    """Its resolver asks for text the int parameter cannot hold: "5" is not 5 (RES-9)."""
    _ran(ref)
    return f"Bags: {bags}"


@app.tool
def book_and_guard(ref: str, destination: Annotated[str, Elicit("Where would you like to fly?")]):  # type: ignore[no-untyped-def]
    """No return annotation, and a body that also returns its own ask: two
    channels, seen only when it runs (REG-3)."""
    _ran(ref)
    return mcp_types.InputRequiredResult(request_state="more, please")


@app.tool
async def ask_imperatively(ctx: Context) -> str:
    """Asks with ctx.elicit(): works on the handshake era only (ERA-2)."""
    result = await ctx.elicit("Where would you like to fly?", response_type=str)
    return f"Booked a flight to {result.data}" if result.action == "accept" else "Cancelled"


@app.tool
async def guard_by_hand(ctx: Context) -> str | mcp_types.InputRequiredResult:
    """Returns its own InputRequiredResult: works on the modern era only (ERA-3)."""
    replies = ctx.input_responses or {}
    reply = replies.get("destination")
    if isinstance(reply, mcp_types.ElicitResult) and reply.content:
        return f"Booked a flight to {reply.content.get('value')}"
    schema = {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}
    return mcp_types.InputRequiredResult(
        input_requests={
            "destination": mcp_types.ElicitRequest(
                params=mcp_types.ElicitRequestFormParams(
                    message="Where would you like to fly?", requested_schema=schema
                )
            )
        },
        request_state="guard",
    )


@app.prompt()
def travel_tips(city: str) -> str:
    """An ordinary prompt: refusing markers (ERA-6) leaves prompts without one alone."""
    return f"Three things to do in {city}"


@app.resource("weather://{city}")
def weather(city: str) -> str:
    """An ordinary resource template, for the same reason."""
    return f"Sunny in {city}"


# The declaration space's tools (GEN-1), generated in this same spelling.
register_space(app, _ran)
# The official MCP conformance suite's fixtures for asking (tests/test_official_suite.py).
register_official(app)
if TASK:
    register_official_tasks(app, TASK)


def registration() -> dict[str, Any]:
    """The REG adapter: see `elicit_conformance.registration` for the contract."""
    from .registration_probes import PROBES

    return PROBES
