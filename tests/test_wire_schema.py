"""The wire-schema judge (WIR-1, TYP-9's forms) on messages written here: what it
refuses, what it leaves alone, and that nothing a server sends makes it raise."""

from __future__ import annotations

from typing import Any

import pytest

from elicit_conformance.grading.checks import titled
from elicit_conformance.grading.wire_schema import FORMS, form_problem, problems, result_type_problem

MODERN, HANDSHAKE = "2026-07-28", "2025-11-25"
ASK = {"method": "elicitation/create", "params": {"message": "Where to?", "requestedSchema": {
    "type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}}}


def exchange(method: str, answer: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [("client->server", {"jsonrpc": "2.0", "id": 7, "method": method, "params": {}}),
            ("server->client", {"jsonrpc": "2.0", "id": 7, **answer})]


def test_a_conforming_round_and_result_pass() -> None:
    round_ = {"resultType": "input_required", "inputRequests": {"destination": ASK}, "requestState": "s"}
    done = {"resultType": "complete", "content": [{"type": "text", "text": "Paris"}]}
    assert not list(problems(exchange("tools/call", {"result": round_}) + exchange("tools/call", {"result": done}), MODERN))


@pytest.mark.parametrize(("revision", "answer", "said"), [
    (MODERN, {"result": {"content": [{"type": "text", "text": "x"}]}}, "at result: 'resultType' is a required property"),
    (MODERN, {"result": {"resultType": "input_required", "inputRequests": {"d": {**ASK, "params": {
        **ASK["params"], "requestedSchema": {"type": "object", "properties": {"value": {"$ref": "#/$defs/E"}}}}}}}},
     "none of the schema's PrimitiveSchemaDefinitions"),
    (MODERN, {"error": {"code": -32021, "message": "m", "data": {"requiredCapabilities": ["elicitation"]}}},
     "requiredCapabilities"),
    (MODERN, {"error": {"code": "bad", "message": "m"}}, "error.code"),
    (HANDSHAKE, {"result": {"tools": [{"name": 5}]}}, "the tools/list result does not validate"),
    # What mcp_types' models let through: null where the schema has an optional string or object.
    (MODERN, {"result": {"resultType": "input_required", "inputRequests": {"d": {**ASK, "params": {
        **ASK["params"], "requestedSchema": {"type": "object", "properties": {
            "value": {"type": "string", "default": None}}}}}}}}, "closest: at default: null is not of type 'string'"),
    (MODERN, {"error": {"code": -32021, "message": "m", "data": {"requiredCapabilities": {
        "elicitation": {"form": {}, "url": None}, "sampling": None}}}},
     "null is not of type 'object'"),
])
def test_each_kind_of_wrong_message_is_named(revision: str, answer: dict[str, Any], said: str) -> None:
    method = "tools/list" if "tools" in answer.get("result", {}) else "tools/call"
    found = list(problems(exchange(method, answer), revision))
    assert len(found) == 1 and said in found[0], found


def test_a_handshake_request_is_judged_with_its_schema() -> None:
    wrong = {**ASK, "params": {"message": "Where?", "requestedSchema": {"type": "object", "properties": {
        "value": {"type": "object", "properties": {}}}}}}
    found = list(problems([("server->client", {"jsonrpc": "2.0", "id": 1, **wrong})], HANDSHAKE))
    assert len(found) == 1 and found[0].startswith("the elicitation/create request asks 'Where?'"), found


def test_methods_outside_the_revision_are_not_judged() -> None:
    assert not list(problems(exchange("tasks/get", {"result": {"anything": True}}), MODERN))


@pytest.mark.parametrize("answer", [
    {"result": "text"}, {"result": None}, {"result": {"inputRequests": {"k": "not a request"}}},
    {"result": {"inputRequests": {"k": {"method": "elicitation/create", "params": {"requestedSchema": {"properties": 5}}}}}},
    {"error": None}, {"error": {"code": -32021}}, {"method": "elicitation/create", "params": ["list"]},
    {"exception": "ConnectionResetError()"},
])
def test_no_answer_makes_the_judge_raise(answer: dict[str, Any]) -> None:
    for revision in (MODERN, HANDSHAKE):
        list(problems(exchange("tools/call", answer), revision))


@pytest.mark.parametrize(("form", "schema"), [
    ("untitled single", {"type": "string", "enum": ["a", "b"]}),
    ("titled single", {"type": "string", "oneOf": [{"const": "a", "title": "A"}]}),
    ("untitled multi", {"type": "array", "items": {"type": "string", "enum": ["a"]}}),
    ("titled multi", {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}),
])
def test_each_form_is_told_apart(form: str, schema: dict[str, Any]) -> None:
    for revision in (MODERN, HANDSHAKE):
        assert form_problem(schema, form, revision) is None
        assert all(form_problem(schema, other, revision) for other in FORMS if other != form), form


def test_the_legacy_titled_choice_is_a_titled_single_choice_on_both_revisions() -> None:
    """LegacyTitledEnumSchema is deprecated but in both schemas: no keyword forbids it."""
    legacy = {"type": "string", "enum": ["a"], "enumNames": ["A"]}
    for revision in (HANDSHAKE, MODERN):
        assert form_problem(legacy, "titled single", revision) is None
    assert titled(legacy) == {("a", "A")}
    # An untitled enum is still no titled choice, nor are names that are not a list.
    assert "'oneOf' is a required property" in (form_problem({"type": "string", "enum": ["a"]}, "titled single", MODERN) or "")
    assert form_problem({**legacy, "enumNames": "A"}, "titled single", MODERN) is not None


def test_result_type() -> None:
    assert result_type_problem("tools/call", {"resultType": "complete", "content": []}) is None
    assert result_type_problem("tools/call", {"resultType": "input_required", "inputRequests": {}}) is None
    assert "no resultType" in (result_type_problem("tools/list", {"tools": []}) or "")
    assert "says 'input_required'" in (result_type_problem("tools/call", {"resultType": "complete", "requestState": "s"}) or "")


def test_the_judge_is_the_published_schema_pinned_by_digest() -> None:
    """Each revision's schema is the file SOURCE.md names, byte for byte: a copy that
    drifted would judge by something the specification never said."""
    from importlib import resources
    import hashlib

    from elicit_conformance.grading.wire_schema import SCHEMAS

    folder = resources.files("elicit_conformance.grading").joinpath("schemas")
    for revision, digest in SCHEMAS.items():
        assert hashlib.sha256(folder.joinpath(f"{revision}.json").read_bytes()).hexdigest() == digest, revision
        assert f"`{revision}.json` | `schema/{revision}/schema.json` | `{digest}`" in folder.joinpath("SOURCE.md").read_text()


def test_a_failure_names_the_result_its_schema_refuses() -> None:
    """A case that fails on a malformed result says what is malformed, not only what the
    case made of it; WIR-1's own sentence is left as it is."""
    from elicit_conformance.exceptions import CheckFailed
    from elicit_conformance.run.judging import noted

    messages = [
        ("client->server", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                            "params": {"name": "book_destination", "arguments": {}}}),
        ("server->client", {"jsonrpc": "2.0", "id": 1, "result": {"content": 7, "resultType": "complete"}}),
    ]
    said = noted("BAT-1: the call returned ''.", CheckFailed("BAT-1", "x"), messages, "2026-07-28")
    assert said.startswith("BAT-1: the call returned ''. Note: the tools/call result does not validate against the "
                           "2026-07-28 schema's "), said
    assert "content" in said and "\n" not in said
    assert noted("WIR-1: x.", CheckFailed("WIR-1", "x"), messages, "2026-07-28") == "WIR-1: x."
    well_formed = [messages[0], ("server->client", {"jsonrpc": "2.0", "id": 1, "result": {
        "content": [{"type": "text", "text": "ok"}], "resultType": "complete"}})]
    assert noted("BAT-1: x.", CheckFailed("BAT-1", "x"), well_formed, "2026-07-28") == "BAT-1: x."
