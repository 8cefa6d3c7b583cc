"""What the specification's schema says of the messages a server sent (WIR-1, TYP-9).

The judge is the revision's JSON Schema itself (`schemas/`, the specification's
published `schema.json`, pinned by commit and digest: `schemas/SOURCE.md`), "the
source of truth for all protocol messages and structures". Not a model generated
from it: `mcp_types`' pydantic models accept `null` where the schema has an
optional object or string, so a server answering `"default": null`, or a -32021
`data` full of nulls, would pass them.

Which definition judges a message is read from the schema too: a request's
method is the `const` of a `*Request` definition's `method`, and its result is
that definition's `*ResultResponse` (2026-07-28, where a call may also answer an
`InputRequiredResult`) or `*Result`; an error is a `JSONRPCErrorResponse`, and a
-32021 on 2026-07-28 a `MissingRequiredClientCapabilityError`, whose `data` names
the missing capabilities as a `ClientCapabilities` object. Each property of a
requested form schema is a `PrimitiveSchemaDefinition`, said of the property.
A method the revision's schema does not define (an extension's, such as the tasks
extension's `tasks/get` on 2026-07-28) is not judged.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from elicit_conformance.quoting import brief
from elicit_conformance.revisions import MODERN

__all__ = ["FORMS", "SCHEMAS", "form_problem", "problems", "result_problems", "result_type_problem",
           "result_type_problems"]

#: The published schema of each revision judged by its own, with its sha256 (SOURCE.md).
SCHEMAS = {
    "2025-11-25": "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7",
    MODERN: "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203",
}
#: Every revision before 2025-11-25 validates against the 2025-11-25 schema.
_LEGACY = "2025-11-25"
#: JSON-RPC "missing required client capability" (2026-07-28).
MISSING_CAPABILITY = -32021

#: The SEP-1330 enum forms, by the definition each revision's schema gives them.
FORMS = {
    "untitled single": "UntitledSingleSelectEnumSchema",
    "titled single": "TitledSingleSelectEnumSchema",
    "untitled multi": "UntitledMultiSelectEnumSchema",
    "titled multi": "TitledMultiSelectEnumSchema",
}


@cache
def _definitions(revision: str) -> dict[str, Any]:
    """The revision's schema definitions, from the pinned file (its digest checked)."""
    name = revision if revision in SCHEMAS else _LEGACY
    raw = resources.files("elicit_conformance.grading").joinpath("schemas", f"{name}.json").read_bytes()
    if hashlib.sha256(raw).hexdigest() != SCHEMAS[name]:
        raise RuntimeError(f"schemas/{name}.json is not the published schema pinned in SOURCE.md: reinstall the suite")
    return dict(json.loads(raw)["$defs"])


@cache
def _validator(revision: str, name: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": _definitions(revision)})


@cache
def _by_method(revision: str) -> dict[str, str]:
    """Each method the schema defines, to the definition of its request or notification."""
    found = {}
    for name, definition in _definitions(revision).items():
        method = (definition.get("properties") or {}).get("method") if isinstance(definition, dict) else None
        if name.endswith(("Request", "Notification")) and isinstance(method, dict) and "const" in method:
            found[method["const"]] = name
    return found


def _result_of(revision: str, method: str) -> tuple[str, bool] | None:
    """The definition judging `method`'s result, and whether it judges the whole message."""
    request = _by_method(revision).get(method)
    if request is None or not request.endswith("Request"):
        return None
    result = request.removesuffix("Request") + "Result"
    definitions = _definitions(revision)
    if result + "Response" in definitions:
        return result + "Response", True
    return (result, False) if result in definitions else None


def _sent(messages: list[tuple[str, dict[str, Any]]]) -> Iterator[tuple[dict[str, Any], str | None]]:
    """Each JSON-RPC message the server sent, with the method of the client request it
    answers (the latest of that id), None for a request or notification of its own."""
    asked: dict[Any, str] = {}
    for direction, message in messages:
        if direction == "client->server":
            if "method" in message and "id" in message:
                asked[message["id"]] = message["method"]
        elif "exception" not in message and "unparsed" not in message:  # not JSON-RPC: the case that met it says so
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


#: The tasks extension's requests about a task, and whether each is answered with a bare acknowledgement.
TASK_REQUESTS = {"tasks/get": False, "tasks/update": True, "tasks/cancel": True}
#: What an empty result may still carry: every result's `_meta`, and its `resultType`.
EMPTY = {"_meta", "resultType"}


def task_answer_problems(messages: list[tuple[str, dict[str, Any]]]) -> Iterator[tuple[str, str]]:
    """Each result answering a `tasks/*` request that is not as the tasks extension says:
    (row, clause), TASK-9 for a `resultType` other than "complete", TASK-10 for an
    acknowledgement (`tasks/update`, `tasks/cancel`) that carries more than an empty result."""
    for message, answering in _sent(messages):
        result = message.get("result")
        if answering not in TASK_REQUESTS or not isinstance(result, dict):
            continue
        if result.get("resultType") != "complete":
            stated = f"resultType {result['resultType']!r}" if "resultType" in result else "no resultType"
            yield "TASK-9", f"the {answering} result (id {message.get('id')!r}) carried {stated}: {brief(result)}"
        extra = sorted(set(result) - EMPTY)
        if TASK_REQUESTS[answering] and extra:
            yield "TASK-10", f"the {answering} acknowledgement (id {message.get('id')!r}) carried {extra}: {brief(result)}"


def result_problems(messages: list[tuple[str, dict[str, Any]]], revision: str) -> Iterator[str]:
    """Each result in `messages` that does not validate as what its `resultType` says it
    is, read as a client reads it ("resultType ... allows the client to determine how to
    parse the result object"): an `InputRequiredResult`, or the method's own result. The
    published schema lets a 2026-07-28 call's result be either (`anyOf`), and its
    `InputRequiredResult` requires nothing but `resultType`, so a malformed finished
    result passes `problems()` as an `InputRequiredResult`. For sentences, not verdicts."""
    definitions = _definitions(revision)
    for message, answering in _sent(messages):
        result, request = message.get("result"), _by_method(revision).get(str(answering))
        if not isinstance(result, dict) or request is None or not request.endswith("Request"):
            continue
        stated = result.get("resultType", "complete")
        if stated not in ("complete", "input_required"):
            continue  # an extension's kind of result (the tasks extension's "task"): not this schema's
        name = "InputRequiredResult" if stated == "input_required" else request.removesuffix("Request") + "Result"
        if name in definitions:
            yield from _refused(f"the {answering} result", revision, name, result)


def _problems_of(message: dict[str, Any], answering: str | None, revision: str) -> Iterator[str]:
    if "error" in message:
        what = f"the error answering {answering or 'a request'}"
        error = message.get("error")
        if revision == MODERN and isinstance(error, dict) and error.get("code") == MISSING_CAPABILITY:
            yield from _refused(f"{what} (-32021)", revision, "MissingRequiredClientCapabilityError", message)
        else:
            yield from _refused(what, revision, "JSONRPCErrorResponse", message)
    elif "result" in message:
        judged = _result_of(revision, answering) if answering is not None else None
        if judged is None:
            return
        what = f"the {answering} result"
        said = list(_requested_schema_problems(what, _input_requests(message["result"]), revision))
        name, whole = judged
        yield from said or _refused(what, revision, name, message if whole else message["result"])
    elif "method" in message and (name := _by_method(revision).get(str(message["method"]))) is not None:
        method = message["method"]
        what = f"the {method} {'request' if 'id' in message else 'notification'}"
        said = list(_requested_schema_problems(what, [message], revision))
        yield from said or _refused(what, revision, name, message)


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
            error = best_match(_validator(revision, "PrimitiveSchemaDefinition").iter_errors(schema))
            if error is not None:
                yield (f"{what} asks {params.get('message')!r} with the property {name!r} as {brief(schema, 160)}, "
                       "which is none of the schema's PrimitiveSchemaDefinitions (a string, number, integer or "
                       f"boolean, or a SEP-1330 enum form; closest: {_said(error)}): a form field holds one flat value")


def form_problem(schema: Any, form: str, revision: str) -> str | None:
    """Why `schema` (a question's value schema) is not in the SEP-1330 enum `form` of
    `revision`'s schema; None when it is. Each form has its own distinguishing key
    (`enum`, `oneOf`, `items.enum`, `items.anyOf`), which must be there; the schema lets
    other keys be, so a legacy choice is recognized by its `enumNames`.
    The legacy titled form (`enum` + `enumNames`, LegacyTitledEnumSchema) is in both
    revisions' schemas: deprecated ("Use TitledSingleSelectEnumSchema instead"), not
    forbidden, so it is a titled single choice too."""
    name = FORMS[form]
    if form == "titled single" and isinstance(schema, dict) and "enumNames" in schema:
        name = "LegacyTitledEnumSchema"  # the schema's other titled single form (deprecated, still allowed)
    error = best_match(_validator(revision, name).iter_errors(schema))
    return None if error is None else f"not the {form} choice form ({name}): {_said(error)}"


def _refused(what: str, revision: str, name: str, instance: Any) -> Iterator[str]:
    error = best_match(_validator(revision, name).iter_errors(instance))
    if error is not None:
        yield f"{what} does not validate against the {revision} schema's {name}: {_said(error)}"


def _said(error: ValidationError) -> str:
    """One finding as a line: where (a JSON path), and what, values quoted as JSON. An
    `anyOf` that no form satisfies is said by the closest form's finding."""
    while error.context:
        error = _closest(error.context)
    where = ".".join(str(part) for part in error.absolute_path) or "the message"
    what, shown = error.message, repr(error.instance)
    if what.startswith(shown):
        value = json.dumps(error.instance, default=repr)
        what = (value if len(value) <= 80 else value[:77] + "...") + what[len(shown):]
    return f"at {where}: {what}"


def _closest(context: list[ValidationError]) -> ValidationError:
    """The finding of the form that came nearest: the fewest findings, then the deepest."""
    forms: dict[Any, list[ValidationError]] = {}
    for error in context:
        forms.setdefault(error.relative_schema_path[0], []).append(error)
    nearest = min(forms.values(), key=lambda found: (len(found), -max(len(e.absolute_path) for e in found)))
    return best_match(nearest) or nearest[0]


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

