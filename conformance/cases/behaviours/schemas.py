"""The behaviour cases of `test_behaviours.py`: what each question requests (its schema,
constraints, labels and defaults), and listings that never ask."""

from __future__ import annotations

from typing import Any

import pytest

from elicit_conformance.catalog import load
from elicit_conformance.connection.wire import missing_tools
from elicit_conformance.grading.checks import LISTING_VARIES, listing, rounds_said, schema_gaps, titled
from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.harness.driver import Run, as_object, tool_entries
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import MODERN
from elicit_conformance.verdict import check, should


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


#: OPT-6's scenarios and the optional questions each asks: strings (book_meal), and a
#: number and a boolean whose defaults are falsy, 0 and false (book_luggage).
DEFAULTED = {"OPT-5": ("meal", "seat"), "TYP-6": ("bags", "fragile")}


@pytest.mark.tools("book_meal", "book_luggage")
@pytest.mark.checks("OPT-6")
@pytest.mark.parametrize("scenario_id", list(DEFAULTED))
@async_case
async def test_opt_6_an_optional_question_offers_its_default(case: Case, scenario_id: str, era: str) -> None:
    """Scenario OPT-5 (book_meal): the optional `meal` question requests a `value`
    whose `default` is `standard`, and `seat` one whose `default` is `any`; scenario
    TYP-6 (book_luggage): `bags` one whose `default` is the number 0, `fragile` the
    boolean false. The parameters' defaults, for the client to pre-fill."""
    run = await case.run(scenario_id, era)
    tool = case.scenario(scenario_id).tool
    questions = load().tools[tool].questions
    asked = {a.param: a for round_ in run.rounds for a in round_ if a.param in DEFAULTED[scenario_id]}
    for param in DEFAULTED[scenario_id]:
        if param not in asked:
            should("OPT-6", False, f"{param!r} was never asked, so it offered no default "
                   f"(the server asked {rounds_said(run, tool)})")
            continue
        value = as_object(as_object(asked[param].schema.get("properties")).get("value"))
        default = questions[param].default
        # JSON's false is not its 0, though Python's False == 0.
        offered = value.get("default") == default and isinstance(value.get("default"), bool) == isinstance(default, bool)
        should("OPT-6", offered, f"{param!r} requested {brief(value)}; its parameter's default {brief(default)} is not "
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
    check("TYP-6", not run.failed, run.ended)
    schemas = _schemas(run)
    for param, question in load().tools["book_luggage"].questions.items():
        value = _value_of("TYP-6", _asked("TYP-6", schemas, question.message, run), question.message)
        # A default offered is OPT-6's, a SHOULD: not this row's.
        wanted = {k: v for k, v in (question.schema() or {})["properties"]["value"].items()
                  if k not in UNSAYABLE and k != "default"}
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
    check("TYP-7", not run.failed, run.ended)
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
    check("TYP-8", not run.failed, run.ended)
    schemas = _schemas(run)
    for param, question in load().tools["book_described"].questions.items():
        asked = _asked("TYP-8", schemas, question.message, run)
        gaps = schema_gaps(asked, question)
        check("TYP-8", not gaps, f"{param}: with Field metadata beside the marker, the requested schema "
              f"{brief(asked)} no longer states {'; '.join(gaps)}")
