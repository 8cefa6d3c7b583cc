"""The normative checks a scripted scenario's run must pass, each on its own row.

A scenario claims its family's row (BAT-3, ORD-1, OPT-3, ...) and, where it
applies, BAT-4 (order within a round) and ORD-7 (handshake order). Each check
below is attributed to exactly one of them, so a server that groups rounds
right but orders them wrong fails BAT-4 alone, and the other way round.
"""

from __future__ import annotations

import re
from typing import Any

from elicit_conformance.catalog import Question, Reply, Scenario, load
from elicit_conformance.connection.wire import METHOD_NOT_FOUND
from elicit_conformance.exceptions import RpcError
from elicit_conformance.harness.driver import Asked, Run, as_object, result_text, unknown_message
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import MODERN
from elicit_conformance.verdict import check
from .wire_schema import form_problem


def scenario_checks(case_id: str, era: str) -> list[str]:
    """The requirement rows one scenario checks on one revision."""
    scenario = load().scenarios[case_id]
    checks = [scenario.family]
    if era == MODERN and any(len(round_) > 1 for round_ in scenario.expect.rounds):
        checks.append("BAT-4")  # signature order within a round
    if era != MODERN and scenario.expect.rounds:
        checks.append("ORD-7")  # each question once, after what it quotes
    if scenario.expect.error_should:
        checks.append(f"{checks[0]}/clear")
    return checks


def check_rounds(run: Run, scenario: Scenario, era: str) -> None:
    """Modern: exactly the expected rounds (the family's row), each in signature
    order (BAT-4). Handshake: each expected question (the family's row), each once
    and none before what it quotes (ORD-7); a call that must fail may stop asking
    at its first bad answer."""
    family = scenario.family
    expected = [list(round_) for round_ in scenario.expect.rounds]
    asked = run.asked_params
    if era == MODERN:
        grouped = [sorted(r, key=str) for r in asked] == [sorted(r) for r in expected]
        check(family, grouped, f"the server asked {rounds_said(run, scenario.tool)}; "
              f"the catalog's rounds for {scenario.tool} are {expected}")
        if any(len(r) > 1 for r in expected):
            check("BAT-4", asked == expected,
                  f"the server asked the round(s) {asked} in that order; signature order is {expected}")
        return
    flat = [param for round_ in asked for param in round_]
    wanted = [param for round_ in expected for param in round_]
    said = rounds_said(run, scenario.tool)
    if scenario.expect.result is None and flat:
        # A call bound to fail may stop at the first bad answer: asked one by one,
        # the questions after it need never go out.
        check(family, set(flat) <= set(wanted),
              f"the server asked {said}; the catalog's questions are some of {wanted}")
    else:
        check(family, set(flat) == set(wanted), f"the server asked {said}; the catalog expects each of {wanted}")
    if not expected:
        return
    repeated = sorted({p for p in flat if flat.count(p) > 1}, key=str)
    check("ORD-7", not repeated, f"the server asked {repeated} more than once ({said})")
    questions = load().tools[scenario.tool].questions
    for index, param in enumerate(flat):
        for need in questions[param].needs if param in questions else ():
            if need in questions:
                check("ORD-7", need in flat[:index],
                      f"{param!r} was asked before {need!r}, whose answer its message quotes ({said})")
    # Outside what a question quotes, signature order: a question declared earlier that
    # waits on nothing a later one does not is askable whenever that one is, so it goes first.
    position, waits = {name: index for index, name in enumerate(questions)}, _waits_on(questions)
    for index, param in enumerate(flat):
        ahead = [p for p in flat[index + 1:] if p in position and param in position
                 and position[p] < position[param] and waits[p] <= waits[param]]
        check("ORD-7", not ahead,
              f"{param!r} was asked before {ahead[0]!r} ({said}), which is declared before it and waits on "
              f"nothing {param!r} does not: apart from what a question quotes, questions go out in signature order"
              if ahead else "")


def _waits_on(questions: dict[str, Question]) -> dict[str, set[str]]:
    """Each question's parameter, with every question it waits on, directly or not."""
    def closure(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        needs = [n for n in questions[name].needs if n in questions and n not in seen]
        return set(needs).union(*(closure(n, seen | {name}) for n in needs))
    return {name: closure(name) for name in questions}


def rounds_said(run: Run, tool: str) -> str:
    """The rounds as a person reads them: each question by its catalog parameter,
    and a message no catalog question of `tool` has, quoted with the nearest one;
    then how a call that failed ended."""
    if not run.rounds:
        return f"no question (the call ended: {brief(run.text)})"
    said = " then ".join("[" + ", ".join(_said(a, tool) for a in r) + "]" for r in run.rounds)
    return f"{said}, and {run.ended}" if run.failed else said


def _said(asked: Asked, tool: str) -> str:
    if asked.param is not None:
        return asked.param
    return f"{brief(asked.message, 120)} ({unknown_message(asked.message, tool)})"


def check_missing_form_elicitation(error: dict[str, Any] | None, result: Any, refused: str) -> None:
    """ERA-7/code: `refused` (what the call needed, said) is -32021, whose
    data.requiredCapabilities lists elicitation, the capability the client left out."""
    check("ERA-7/code", error is not None and error.get("code") == -32021,
          f"{refused} was refused with {refusal_said(error, result)}; it needs form elicitation, which the "
          "client did not declare, so it is refused with -32021 (missing required client capability)")
    # Whether elicitation is named, as an object's member or a list's item: the
    # shape (the schema's ClientCapabilities object) is WIR-1's to judge, not this row's.
    required = as_object(as_object(error).get("data")).get("requiredCapabilities")
    check("ERA-7/code", isinstance(required, (dict, list)) and "elicitation" in required,
          f"the -32021 refusal's data.requiredCapabilities is {brief(required)}; it lists what is missing, "
          "elicitation (with form)")


def refusal_said(error: dict[str, Any] | None, result: Any) -> str:
    """How a call was refused, as a person reads it: the JSON-RPC error's code and
    message, or the tool error result's text, or the result it returned instead."""
    if error is not None:
        return f"the JSON-RPC error {error.get('code')} {brief(str(error.get('message', '')), 160)}"
    result = as_object(result)
    if result.get("isError"):
        return f"a tool error result, not a JSON-RPC error: {brief(result_text(result), 160)}"
    return f"no refusal: the call returned {brief(result, 160)}"


def names(text: str, name: str) -> bool:
    """Whether `text` names `name` as a word of its own: the tool `book_destination`
    in a generic error does not name the parameter `destination`."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def must_fail(scenario: Scenario) -> str:
    """Why the call must fail, in what was declared: the catalog's sentence for a tool
    that always fails (it names the type asked and the parameter's), else the answers."""
    tool = load().tools[scenario.tool]
    if tool.returns.startswith("fails"):
        return f"{tool.name} {tool.returns}"
    answers = ", ".join(f"{param} {_reply_said(reply)}" for param, reply in scenario.answers.items())
    return f"{tool.name} must fail when answered {answers}"


def _reply_said(reply: Reply) -> str:
    if reply.action != "accept":
        return {"decline": "declined", "cancel": "cancelled"}[reply.action]
    return "accepted without content" if reply.content is None else f"accepted with {brief(reply.value, 80)}"


def check_outcome(run: Run, scenario: Scenario, clear: str) -> None:
    """The family's row: the result text, or a failed call naming `error`'s names.
    The SHOULD row `clear`: a failure also names `error_should`'s names."""
    expect, family = scenario.expect, scenario.family
    if expect.result is not None:
        check(family, not run.failed, run.ended)
        check(family, run.text == expect.result,
              f"the call returned {brief(run.text)}; the catalog's result is {expect.result!r}")
        return
    check(family, run.failed and not run.gave_up, f"{run.ended}, but {must_fail(scenario)}")
    for name in expect.error:
        check(family, names(run.text, name), f"the error does not name {name!r}: {brief(run.text)}")
    for name in expect.error_should:
        check(clear, names(run.text, name), f"the error does not name {name!r}: {brief(run.text)}")


def schema_gaps(schema: Any, question: Question) -> list[str]:
    """What of the catalog's schema for `question` the requested `schema` does not
    state: a model's fields; a scalar's one `value` field with its type, choices
    (`enum`, titled `oneOf`/`anyOf` pairs, an array's items, in any order), the bounds
    the form-mode schema can say, the title and description the question declares.
    Other labels are free; a default offered is OPT-6's to judge, a SHOULD.
    Empty when nothing is missing."""
    wanted = question.schema() or {}
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return [f"an object schema with properties (got {brief(schema)})"]
    if question.type == "object":
        return [] if set(properties) == set(question.fields) else [f"the fields {list(question.fields)}"]
    value = properties.get("value")
    if list(properties) != ["value"] or not isinstance(value, dict):
        return ["exactly one property, 'value'"]
    expected = wanted["properties"]["value"]
    labels = {"title": question.title, "description": question.description}
    expected = {**expected, **{k: v for k, v in labels.items() if v is not None}}
    gaps = [f"{key}: {expected[key]!r}" for key in ("type", "minimum", "maximum", "title", "description")
            if key in expected and value.get(key) != expected[key]]
    if question.enum and choices(value.get("enum")) != set(question.enum):
        gaps.append(f"enum: {list(question.enum)}")
    if question.one_of and titled(value) != set(question.one_of):
        gaps.append(f"oneOf: {[{'const': c, 'title': t} for c, t in question.one_of]}")
    items = value.get("items") if isinstance(value.get("items"), dict) else {}
    if question.item_titles and titled(items) != set(question.item_titles):
        gaps.append(f"items: anyOf {[{'const': c, 'title': t} for c, t in question.item_titles]}")
    elif question.items and not question.item_titles:
        listed = items.get("enum") or [o.get("const") for o in items.get("anyOf") or [] if isinstance(o, dict)]
        if choices(listed) != set(question.items):
            gaps.append(f"items: {list(question.items)}")
    return gaps


def choices(listed: Any) -> set[Any] | None:
    """A listed set of choices (`enum`, `items.enum`), or None when it is not a list of scalars."""
    return set(listed) if isinstance(listed, list) and all(isinstance(i, (str, int, float)) for i in listed) else None


def titled(value: dict[str, Any]) -> set[tuple[Any, Any]]:
    """A titled choice's (const, title) pairs, from `oneOf` or `anyOf`, or from the
    legacy `enum` with `enumNames` the 2026-07-28 schema still defines
    (LegacyTitledEnumSchema: deprecated, but no keyword forbids it)."""
    if legacy_titled(value):
        return set(zip(value["enum"], value["enumNames"], strict=True))
    options = value.get("oneOf") or value.get("anyOf") or []
    return {(o.get("const"), o.get("title")) for o in options if isinstance(o, dict)} if isinstance(options, list) else set()


def legacy_titled(value: Any) -> bool:
    """Whether `value` is a titled single choice in the legacy form: `enum` with
    `enumNames`, one title per value."""
    if not isinstance(value, dict):
        return False
    names, values = value.get("enumNames"), value.get("enum")
    return isinstance(names, list) and isinstance(values, list) and len(names) == len(values)


def check_schemas(run: Run, scenario: Scenario, era: str) -> None:
    """The family's row: every question asked requests the schema the catalog gives it,
    a choice in its SEP-1330 enum form as `era`'s schema defines it."""
    questions = load().tools[scenario.tool].questions
    for asked in (a for round_ in run.rounds for a in round_ if a.param in questions):
        question = questions[asked.param]
        gaps = schema_gaps(asked.schema, question)
        check(scenario.family, not gaps, f"{asked.param} ({asked.message!r}) requested {brief(asked.schema, 300)}; "
              f"the catalog's schema also states {'; '.join(gaps)}")
        if question.choice_form is not None:
            value = as_object(as_object(asked.schema).get("properties")).get("value")
            problem = form_problem(value, question.choice_form, era)
            check(scenario.family, problem is None,
                  f"{asked.param} ({asked.message!r}) requested the value {brief(value, 300)}: {problem}")


#: Why a case that reads a whole listing has no golden transcript: what a server lists
#: may depend on how it was installed (the reference lists the tasks extension's tools
#: and task support only with its extra), which is not a behaviour change.
LISTING_VARIES = "it reads the whole listing, which may depend on the server's installation"


async def listing(peer: Any, method: str, row: str) -> dict[str, Any] | None:
    """A listing method's raw result; None when the target does not offer it (JSON-RPC
    -32601 "method not found"). Any other error fails `row`: a listing that failed is
    not one that is absent."""
    try:
        return as_object(await peer.request(method, {}))
    except RpcError as error:
        check(row, error.error.get("code") == METHOD_NOT_FOUND, error.said())
        return None
