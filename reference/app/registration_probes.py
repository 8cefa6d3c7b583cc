"""Registration probes for the REG cases, written against the reference.

Each probe registers one tool (or prompt) on a fresh server and returns the
registered tool's input schema; the REG cases expect the wrong wirings to raise.
"""

import asyncio
import functools
from collections.abc import Callable
from typing import Annotated, Any, Literal, Optional

import mcp_types
from fastmcp.dependencies import Depends
from pydantic import BaseModel, Field
from typing_extensions import TypeAliasType

from fastmcp.tools.function_tool import FunctionTool

from elicit_conformance.reference import DeclarativeFastMCP, Elicit, declared


def _schema_of(fn: Callable[..., Any], **kwargs: Any) -> dict[str, Any]:
    """Register `fn` as `DeclarativeFastMCP.tool` would; return its input schema."""
    return FunctionTool.from_function(declared(fn), **kwargs).parameters


def unknown_name() -> dict[str, Any]:
    def ask(nonexistent: str) -> Elicit[str]:
        return Elicit(nonexistent, response_type=str)

    def book(airport: Annotated[str, Elicit(ask)]) -> str:
        return airport

    return _schema_of(book)


def not_a_question() -> dict[str, Any]:
    def book(seat: Annotated[str, Elicit(42)]) -> str:  # type: ignore[arg-type]
        return seat

    return _schema_of(book)


def cycle() -> dict[str, Any]:
    def after_inbound(inbound: str) -> Elicit[str]:
        return Elicit(f"Out, given {inbound}?", response_type=str)

    def after_outbound(outbound: str) -> Elicit[str]:
        return Elicit(f"Back, given {outbound}?", response_type=str)

    def book(
        outbound: Annotated[str, Elicit(after_inbound)],
        inbound: Annotated[str, Elicit(after_outbound)],
    ) -> str:
        return outbound + inbound

    return _schema_of(book)


def two_channels() -> dict[str, Any]:
    def book(
        destination: Annotated[str, Elicit("Where to?")],
    ) -> str | mcp_types.InputRequiredResult:
        return destination

    return _schema_of(book)


def buried_in_union() -> dict[str, Any]:
    def book(destination: Annotated[str, Elicit("Where to?")] | int) -> str:
        return str(destination)

    return _schema_of(book)


def buried_in_list() -> dict[str, Any]:
    def book(destinations: list[Annotated[str, Elicit("Where to?")]]) -> str:
        return ",".join(destinations)

    return _schema_of(book)


def buried_under_field() -> dict[str, Any]:
    def book(destinations: Annotated[list[Annotated[str, Elicit("Where to?")]], Field(description="Stops")]) -> str:
        return ",".join(destinations)

    return _schema_of(book)


Destination = TypeAliasType("Destination", Annotated[str, Elicit("Where to?")])


def buried_in_list_of_alias() -> dict[str, Any]:
    def book(destinations: list[Destination]) -> str:
        return ",".join(destinations)

    return _schema_of(book)


def declared_type_contradicts() -> dict[str, Any]:
    def ask(destination: str) -> int | Elicit[int]:
        return Elicit("How many?", response_type=int)

    def book(destination: str, airport: Annotated[str, Elicit(ask)]) -> str:
        return airport

    return _schema_of(book)


def declared_type_contradicts_alone() -> dict[str, Any]:
    def ask(destination: str) -> Elicit[int]:
        return Elicit("How many?", response_type=int)

    def book(destination: str, airport: Annotated[str, Elicit(ask)]) -> str:
        return airport

    return _schema_of(book)


def resolver_without_signature() -> dict[str, Any]:
    # A C builtin: inspect.signature cannot read it.
    def book(seat: Annotated[str, Elicit(max)]) -> str:
        return seat

    return _schema_of(book)


def literal_value_or_question() -> dict[str, Any]:
    def ask(destination: str) -> Literal["window", "aisle"] | Elicit[str]:
        return Elicit(f"Which seat to {destination}?")

    def book(destination: str, seat: Annotated[str, Elicit(ask)]) -> str:
        return seat

    return _schema_of(book)


def elicit_and_depends() -> dict[str, Any]:
    def provider() -> str:
        return "CDG"

    def book(airport: Annotated[str, Elicit("Which airport?")] = Depends(provider)) -> str:
        return airport

    return _schema_of(book)


def resolver_takes_context() -> dict[str, Any]:
    from fastmcp import Context

    def ask(ctx: Context) -> Elicit[str]:
        return Elicit("Where?", response_type=str)

    def book(ctx: Context, destination: Annotated[str, Elicit(ask)]) -> str:
        return destination

    return _schema_of(book)


def resolver_takes_a_dependency() -> dict[str, Any]:
    def home_airport() -> str:
        return "LIS"

    def ask(home: str) -> Elicit[str]:
        return Elicit(f"Which airport, if not {home}?", response_type=str)

    def book(airport: Annotated[str, Elicit(ask)], home: str = Depends(home_airport)) -> str:
        return airport

    return _schema_of(book)


def resolver_asks_an_arm() -> dict[str, Any]:
    def ask():  # type: ignore[no-untyped-def]  # undeclared: its question type shows when it runs
        return Elicit("Which seat number?", response_type=int)

    def book(seat: Annotated[int | str, Elicit(ask)]) -> str:
        return str(seat)

    return _schema_of(book)


def response_type_does_not_fit() -> dict[str, Any]:
    def book(seats: Annotated[int, Elicit("How many seats?", response_type=str)]) -> str:
        return str(seats)

    return _schema_of(book)


def response_type_does_not_fit_a_generic() -> dict[str, Any]:
    def book(seats: Annotated[list[str], Elicit("Which seats?", response_type=int)]) -> str:
        return ",".join(seats)

    return _schema_of(book)


def response_type_does_not_fit_a_literal() -> dict[str, Any]:
    def book(seats: Annotated[Literal["one", "two"], Elicit("How many seats?", response_type=int)]) -> str:
        return seats

    return _schema_of(book)


def response_type_does_not_fit_a_generic_arm() -> dict[str, Any]:
    def book(seats: Annotated[list[str] | None, Elicit("Which seats?", response_type=int)] = None) -> str:
        return ",".join(seats or [])

    return _schema_of(book)


def generic_response_type_fits() -> dict[str, Any]:
    extras = list[Literal["wifi", "meal"]]

    def book(seat: Annotated[extras, Elicit("Which extras?", response_type=extras)]) -> str:
        return ",".join(seat)

    return _schema_of(book)


class Place(BaseModel):
    name: str


class Terminal(Place):
    gate: str


def response_type_is_an_arm() -> dict[str, Any]:
    def book(seat: Annotated[int | str, Elicit("Which seat?", response_type=int)]) -> str:
        return str(seat)

    return _schema_of(book)


def response_type_is_a_subclass() -> dict[str, Any]:
    def book(seat: Annotated[Place, Elicit("Which seat?", response_type=Terminal)]) -> str:
        return seat.name

    return _schema_of(book)


def anything_fits_any() -> dict[str, Any]:
    def book(seat: Annotated[Any, Elicit("Which seat?", response_type=int)]) -> str:
        return str(seat)

    return _schema_of(book)


def cannot_be_asked() -> dict[str, Any]:
    def book(seat: Annotated[int | str | None, Elicit("Which seat?")] = None) -> str:
        return str(seat)

    return _schema_of(book)


def choices_fit_a_list() -> dict[str, Any]:
    # fastmcp's shorthands for a multiple choice: untitled, and titled.
    def book(
        seat: Annotated[list[str], Elicit("Which extras?", response_type=[["wifi", "meal"]])],
        extras: Annotated[list[str], Elicit("Which more?", response_type=[{"lounge": {"title": "Lounge"}}])],
    ) -> str:
        return ",".join([*seat, *extras])

    return _schema_of(book)


def unresolvable_name() -> dict[str, Any]:
    def book(seat: "Annotated[str, Elicit('Window or aisle?')] | NotImported") -> str:  # noqa: F821
        return str(seat)

    return _schema_of(book)


def unresolvable_expression() -> dict[str, Any]:
    # `str | 'Seat'` raises TypeError when evaluated: a forward reference in a `|` union.
    def book(seat: "Annotated[str | 'Seat', Elicit('Window or aisle?')]") -> str:
        return str(seat)

    return _schema_of(book)


def optional_union() -> dict[str, Any]:
    def book(seat: Annotated[Optional[str], Elicit("Window or aisle?")] = None) -> str:  # noqa: UP045 - the spelling under test
        return seat or "none"

    return _schema_of(book)


def choice_fits_a_string() -> dict[str, Any]:
    # fastmcp's shorthand for a single choice: a list of the options.
    def book(seat: Annotated[str, Elicit("Window or aisle?", response_type=["window", "aisle"])]) -> str:
        return seat

    return _schema_of(book)


def optional_outside() -> dict[str, Any]:
    def book(seat: Annotated[str, Elicit("Window or aisle?")] | None = None) -> str:
        return seat or "none"

    return _schema_of(book)


def optional_inside() -> dict[str, Any]:
    def book(seat: Annotated[str | None, Elicit("Window or aisle?")] = None) -> str:
        return seat or "none"

    return _schema_of(book)


Seat = TypeAliasType("Seat", Annotated[str | None, Elicit("Window or aisle?")])


def type_alias() -> dict[str, Any]:
    def book(seat: Seat = None) -> str:
        return seat or "none"

    return _schema_of(book)


def partial_tool() -> dict[str, Any]:
    def book(cabin: str, seat: Annotated[str, Elicit("Window or aisle?")]) -> str:
        return f"{cabin}/{seat}"

    return _schema_of(functools.partial(book, cabin="economy"), name="book")


def _listed(server: DeclarativeFastMCP) -> dict[str, Any]:
    """The input schema `server` lists for its tool `book`, as a client would see it."""
    for tool in asyncio.run(server.list_tools()):
        if tool.name == "book":
            return tool.parameters
    raise LookupError("the server lists no tool 'book' after it was registered")


def _seat_booking() -> Callable[..., str]:
    def book(ref: str, seat: Annotated[str, Elicit("Window or aisle?")]) -> str:
        return f"{ref}: {seat}"

    return book


def spelled_bare() -> dict[str, Any]:
    server = DeclarativeFastMCP("probe")
    server.tool(_seat_booking())  # what `@server.tool` does
    return _listed(server)


def spelled_called() -> dict[str, Any]:
    server = DeclarativeFastMCP("probe")
    server.tool()(_seat_booking())  # `@server.tool()`
    return _listed(server)


def spelled_named() -> dict[str, Any]:
    server = DeclarativeFastMCP("probe")
    server.tool("book", description="Book a seat.")(_seat_booking())  # `@server.tool("book", description=...)`
    return _listed(server)


def spelled_keyword() -> dict[str, Any]:
    server = DeclarativeFastMCP("probe")
    server.tool(name="book")(_seat_booking())  # `@server.tool(name="book")`
    return _listed(server)


def spelled_added() -> dict[str, Any]:
    server = DeclarativeFastMCP("probe")
    server.add_tool(_seat_booking())
    return _listed(server)


def spelled_as_tool_object() -> dict[str, Any]:
    server = DeclarativeFastMCP("probe")
    # fastmcp's `app.add_tool(Tool.from_function(fn))`, the function declared first.
    server.add_tool(FunctionTool.from_function(declared(_seat_booking()), name="book"))
    return _listed(server)


def prebuilt_without_declaring() -> dict[str, Any]:
    server = DeclarativeFastMCP("probe")
    # A tool object built by fastmcp alone from a function with a marker.
    server.add_tool(FunctionTool.from_function(_seat_booking(), name="book"))
    return _listed(server)


def _ask_kind(kind: str, ref: str) -> Elicit[str]:
    return Elicit(f"Which {kind} for {ref}?", response_type=str)


def partial_resolver() -> dict[str, Any]:
    def book(ref: str, seat: Annotated[str, Elicit(functools.partial(_ask_kind, "seat"))]) -> str:
        return seat

    return _schema_of(book)


def keyword_partial_resolver() -> dict[str, Any]:
    def book(ref: str, seat: Annotated[str, Elicit(functools.partial(_ask_kind, kind="seat"))]) -> str:
        return seat

    return _schema_of(book)


def _greeting() -> Callable[..., str]:
    def greet(name: Annotated[str, Elicit("What is your name?")]) -> str:
        return f"Hello {name}"

    return greet


def on_prompt() -> dict[str, Any]:
    DeclarativeFastMCP("probe").prompt(_greeting())  # `@server.prompt`
    return {}


def on_prompt_called() -> dict[str, Any]:
    DeclarativeFastMCP("probe").prompt()(_greeting())  # `@server.prompt()`
    return {}


def on_prompt_named() -> dict[str, Any]:
    DeclarativeFastMCP("probe").prompt("greet", description="Greets.")(_greeting())  # `@server.prompt("greet", ...)`
    return {}


def _tips() -> Callable[..., str]:
    def tips(city: str) -> str:
        return f"Three things to do in {city}"

    return tips


def _prompts_listed(server: DeclarativeFastMCP) -> dict[str, Any]:
    """The prompts `server` lists, by name with their arguments, as a client would see them."""
    return {prompt.name: [argument.name for argument in prompt.arguments or ()]
            for prompt in asyncio.run(server.list_prompts())}


def plain_prompt() -> dict[str, Any]:
    server = DeclarativeFastMCP("probe")
    server.prompt(_tips())  # `@server.prompt`
    return _prompts_listed(server)


def plain_prompt_called() -> dict[str, Any]:
    server = DeclarativeFastMCP("probe")
    server.prompt()(_tips())  # `@server.prompt()`
    return _prompts_listed(server)


def plain_prompt_named() -> dict[str, Any]:
    server = DeclarativeFastMCP("probe")
    server.prompt("tips")(_tips())  # `@server.prompt("tips")`
    return _prompts_listed(server)


def on_resource() -> dict[str, Any]:
    server = DeclarativeFastMCP("probe")

    @server.resource("weather://{city}")
    def weather(city: str, units: Annotated[str, Elicit("Celsius or Fahrenheit?")] = "celsius") -> str:
        return f"{city} in {units}"

    return {}


PROBES: dict[str, Callable[[], dict[str, Any]]] = {
    "REG-1": unknown_name,
    "REG-1/no-signature": resolver_without_signature,
    "REG-1/not-callable": not_a_question,
    "REG-2": cycle,
    "REG-3": two_channels,
    "REG-4/union": buried_in_union,
    "REG-4/list": buried_in_list,
    "REG-4/list-alias": buried_in_list_of_alias,
    "REG-4/list-described": buried_under_field,
    "REG-5": declared_type_contradicts,
    "REG-5/plain": declared_type_contradicts_alone,
    "REG-5/literal-value": literal_value_or_question,
    "REG-6": elicit_and_depends,
    "REG-7": resolver_takes_context,
    "REG-7/depends": resolver_takes_a_dependency,
    "REG-8": response_type_does_not_fit,
    "REG-8/generic": response_type_does_not_fit_a_generic,
    "REG-8/literal": response_type_does_not_fit_a_literal,
    "REG-8/generic-arm": response_type_does_not_fit_a_generic_arm,
    "REG-8/fits-generic": generic_response_type_fits,
    "REG-8/fits-arm": response_type_is_an_arm,
    "REG-8/fits-subclass": response_type_is_a_subclass,
    "REG-8/fits-any": anything_fits_any,
    "REG-8/fits-choices": choices_fit_a_list,
    "REG-8/fits-choice": choice_fits_a_string,
    "REG-9/optional-inside": optional_inside,
    "REG-9/optional-union": optional_union,
    "REG-9/optional-outside": optional_outside,
    "REG-9/type-alias": type_alias,
    "REG-9/partial": partial_tool,
    "REG-9/spelling-bare": spelled_bare,
    "REG-9/spelling-called": spelled_called,
    "REG-9/spelling-named": spelled_named,
    "REG-9/spelling-keyword": spelled_keyword,
    "REG-9/spelling-added": spelled_added,
    "REG-9/spelling-tool-object": spelled_as_tool_object,
    "RES-2/partial": partial_resolver,
    "RES-2/partial-keyword": keyword_partial_resolver,
    "REG-10/name": unresolvable_name,
    "REG-10/type": unresolvable_expression,
    "REG-10/prebuilt": prebuilt_without_declaring,
    "REG-11": cannot_be_asked,
    "REG-11/resolver": resolver_asks_an_arm,
    "ERA-6": on_prompt,
    "ERA-6/prompt-called": on_prompt_called,
    "ERA-6/prompt-named": on_prompt_named,
    "ERA-6/resource": on_resource,
    "ERA-6/plain": plain_prompt,
    "ERA-6/plain-called": plain_prompt_called,
    "ERA-6/plain-named": plain_prompt_named,
}
