"""The behaviour cases of `test_behaviours.py`: what `tools/list` shows of a declared tool:
the parameters it hides, the description it keeps."""

from __future__ import annotations

import pytest

from elicit_conformance.catalog import load
from elicit_conformance.connection.wire import missing_tools
from elicit_conformance.grading.checks import LISTING_VARIES
from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.harness.driver import as_object, tool_entries
from elicit_conformance.quoting import brief
from elicit_conformance.verdict import check


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
