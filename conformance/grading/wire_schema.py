"""What the specification's schema says of the messages a server sent (WIR-1, TYP-9).

The judge is `mcp_types`, the MCP Python SDK's generated wire types, one package
per schema revision: the suite never writes a message's shape by hand. Its public
surface (`mcp_types.methods`) validates each method's result, request and
notification for a revision; two things it leaves loose are taken from the
revision's own package, where `mcp_types` defines them as the schema does:

- a requested schema's `properties` are `dict[str, Any]` on the surface, but the
  specification types each one as a `PrimitiveSchemaDefinition`;
- a -32021 error is a generic JSON-RPC error there, but the 2026-07-28 schema
  defines it as `MissingRequiredClientCapabilityError`, whose `data` names the
  missing capabilities as a `ClientCapabilities` object.

A method the revision's schema does not define (an extension's, such as the tasks
extension's `tasks/get`) is not judged.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

import mcp_types._v2025_11_25 as v2025
import mcp_types._v2026_07_28 as v2026
from mcp_types import jsonrpc, methods
from pydantic import TypeAdapter, ValidationError

from elicit_conformance.quoting import brief
from elicit_conformance.revisions import MODERN

__all__ = ["FORMS", "form_problem", "problems", "result_type_problem", "result_type_problems"]

_PACKAGES = {MODERN: v2026}
#: Every revision before 2026-07-28 validates against the 2025-11-25 schema.
_LEGACY = v2025
#: JSON-RPC "missing required client capability" (2026-07-28).
MISSING_CAPABILITY = -32021

#: The SEP-1330 enum forms, by the model each revision's schema gives them.
FORMS = {
    "untitled single": "UntitledSingleSelectEnumSchema",
    "titled single": "TitledSingleSelectEnumSchema",
    "untitled multi": "UntitledMultiSelectEnumSchema",
    "titled multi": "TitledMultiSelectEnumSchema",
}


def _package(revision: str) -> Any:
    return _PACKAGES.get(revision, _LEGACY)


@cache
def _adapter(revision: str, name: str) -> TypeAdapter[Any]:
    return TypeAdapter(getattr(_package(revision), name))


def _sent(messages: list[tuple[str, dict[str, Any]]]) -> Iterator[tuple[dict[str, Any], str | None]]:
    """Each JSON-RPC message the server sent, with the method of the client request it
    answers (the latest of that id), None for a request or notification of its own."""
    asked: dict[Any, str] = {}
    for direction, message in messages:
        if direction == "client->server":
            if "method" in message and "id" in message:
                asked[message["id"]] = message["method"]
        elif "exception" not in message:  # not JSON-RPC at all: the case that met it says so
            yield message, asked.get(message.get("id"))


def problems(messages: list[tuple[str, dict[str, Any]]], revision: str) -> Iterator[str]:
    """Each message the server sent in `messages` that the revision's schema refuses,
    as a clause naming the message and what the schema refuses of it."""
    for message, answering in _sent(messages):
        yield from _problems_of(message, answering, revision)


def result_type_problems(messages: list[tuple[str, dict[str, Any]]]) -> Iterator[str]:
    """Each 2026-07-28 result in `messages` whose `resultType` is wrong (WIR-2)."""
    for message, answering in _sent(messages):
        if answering is not None and isinstance(message.get("result"), dict):
            if (problem := result_type_problem(answering, message["result"])) is not None:
                yield problem


def _problems_of(message: dict[str, Any], answering: str | None, revision: str) -> Iterator[str]:
    if "error" in message:
        yield from _error_problems(message, answering, revision)
    elif "result" in message:
        if answering is None or (answering, revision) not in methods.SERVER_RESULTS:
            return
        what = f"the {answering} result"
        yield from _refused(what, lambda: methods.validate_server_result(answering, revision, message["result"]))
        yield from _requested_schema_problems(what, _input_requests(message["result"]), revision)
    elif "id" in message and "method" in message:
        method = message["method"]
        if (method, revision) not in methods.SERVER_REQUESTS:
            return
        what = f"the {method} request"
        yield from _refused(what, lambda: methods.parse_server_request(method, revision, message.get("params")))
        yield from _requested_schema_problems(what, [message], revision)
    elif "method" in message and (message["method"], revision) in methods.SERVER_NOTIFICATIONS:
        method = message["method"]
        yield from _refused(f"the {method} notification",
                            lambda: methods.parse_server_notification(method, revision, message.get("params")))


def _error_problems(message: dict[str, Any], answering: str | None, revision: str) -> Iterator[str]:
    what = f"the error answering {answering or 'a request'}"
    yield from _refused(what, lambda: jsonrpc.JSONRPCError.model_validate(message))
    error = message.get("error")
    if revision == MODERN and isinstance(error, dict) and error.get("code") == MISSING_CAPABILITY:
        yield from _refused(f"{what} (-32021, MissingRequiredClientCapabilityError)",
                            lambda: _adapter(revision, "MissingRequiredClientCapabilityError").validate_python(message))


def _input_requests(result: Any) -> list[dict[str, Any]]:
    requests = result.get("inputRequests") if isinstance(result, dict) else None
    return [r for r in requests.values() if isinstance(r, dict)] if isinstance(requests, dict) else []


def _requested_schema_problems(what: str, requests: list[dict[str, Any]], revision: str) -> Iterator[str]:
    """Each property of a form request's requested schema as a `PrimitiveSchemaDefinition`."""
    for request in requests:
        params = request.get("params")
        if request.get("method") != "elicitation/create" or not isinstance(params, dict):
            continue
        if params.get("mode", "form") != "form" or not isinstance(params.get("requestedSchema"), dict):
            continue
        properties = params["requestedSchema"].get("properties")
        for name, schema in (properties.items() if isinstance(properties, dict) else ()):
            try:
                _adapter(revision, "PrimitiveSchemaDefinition").validate_python(schema)
            except ValidationError:
                yield (f"{what} asks {params.get('message')!r} with the property {name!r} as {brief(schema, 160)}, "
                       "which is none of the schema's PrimitiveSchemaDefinitions (a string, number, integer or "
                       "boolean, or a SEP-1330 enum form): a form field holds one flat value")


def form_problem(schema: Any, form: str, revision: str) -> str | None:
    """Why `schema` (a question's value schema) is not in the SEP-1330 enum `form` of
    `revision`'s schema; None when it is. Each form has its own distinguishing key
    (`enum`, `oneOf`, `items.enum`, `items.anyOf`), which must be there: the models
    ignore keys they do not define, so a legacy choice is recognized by its `enumNames`.
    The legacy titled form (`enum` + `enumNames`, LegacyTitledEnumSchema) is in both
    revisions' schemas: deprecated ("Use TitledSingleSelectEnumSchema instead"), not
    forbidden, so it is a titled single choice too."""
    name = FORMS[form]
    if form == "titled single" and isinstance(schema, dict) and "enumNames" in schema:
        name = "LegacyTitledEnumSchema"  # the schema's other titled single form (deprecated, still allowed)
    try:
        _adapter(revision, name).validate_python(schema)
    except ValidationError as error:
        return f"not the {form} choice form ({name}): {_said(error)}"
    return None


def _refused(what: str, validate: Any) -> Iterator[str]:
    try:
        validate()
    except ValidationError as error:
        yield f"{what} does not validate: {_said(error)}"


def _said(error: ValidationError, limit: int = 3) -> str:
    """pydantic's findings as one line: where, and what, for the first few."""
    found = [f"{'.'.join(str(p) for p in e['loc']) or 'the message'}: {e['msg']}" for e in error.errors()[:limit]]
    more = error.error_count() - limit
    return "; ".join(found) + (f" (and {more} more)" if more > 0 else "")


def result_type_problem(method: str, result: Mapping[str, Any]) -> str | None:
    """Why a 2026-07-28 result's `resultType` is wrong (WIR-2); None when it is right:
    `input_required` for a round of questions, `complete` for anything else (`task` for
    a tasked call, which the sweep does not make)."""
    stated = result.get("resultType")
    asks = "inputRequests" in result or "requestState" in result
    wanted = "input_required" if asks else "complete"
    if stated == wanted:
        return None
    shown = "no resultType" if "resultType" not in result else f"resultType {stated!r}"
    return f"the {method} result carries {shown}; a {'round of questions' if asks else 'finished answer'} says {wanted!r}"

