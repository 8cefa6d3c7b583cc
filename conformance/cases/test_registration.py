"""REG cases and ERA-6, through the target's registration adapter.

Registration is not on the wire: URL and stdio targets skip the REG cases, and
so does an in-process target without `registration()` beside its app (the same
server scores the same in-process as over the wire). An adapter that lacks one
probe makes that case "not testable". See `conformance/registration.py` for the
contract. ERA-6 is also judged on the wire: a catalog prompt the target exposes
is rendered on both eras.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest

from elicit_conformance.catalog import Prompt, Reply, load
from elicit_conformance.grading.checks import LISTING_VARIES, listing, names
from elicit_conformance.connection.target import Target
from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.harness.driver import Run, Script, drive, result_text
from elicit_conformance.registration import (
    AT_FAULT,
    INTERNAL_ERRORS,
    MAY_RAISE,
    MUST_RAISE,
    MUST_REGISTER,
    NAMED,
    PLAIN_PROMPTS,
    REFUSED_OR_HONOURED,
    SPELLINGS,
    is_refusal,
    said,
)
from elicit_conformance.exceptions import NotTestable
from elicit_conformance.quoting import brief
from elicit_conformance.verdict import check, should


def probe(target: Target, probe_id: str) -> Any:
    if target.kind != "module":
        pytest.skip(
            "registration happens at import, not on the wire: REG cases need an "
            "in-process target (--server=module:app)"
        )
    probes = target.registration_probes()
    if probes is None:
        pytest.skip(
            f"{target.spec} provides no registration() adapter beside the app "
            "(conformance/registration.py): registration errors are not on the wire"
        )
    if probe_id not in probes:
        raise NotTestable(f"the registration adapter has no probe {probe_id!r}",
                          cause="the registration adapter lacks the probe")
    return probes[probe_id]


def _attempt(probe_id: str, register: Any, what: str, row: str) -> Exception | None:
    """Register; the deliberate refusal if there was one. A crash fails `row`."""
    try:
        register()
    except Exception as error:  # noqa: BLE001 - which exception is the verdict
        refusal: Exception | None = error
    else:
        refusal = None
    check(row, refusal is None or is_refusal(refusal, probe_id),
          f"{what} raised {type(refusal).__name__} ({brief(str(refusal), 160)}): "
          + ("an internal error" if isinstance(refusal, INTERNAL_ERRORS) else
             f"a crash, not a deliberate registration error, for it names none of {', '.join(AT_FAULT[probe_id])}"))
    return refusal


def _params(probe_ids: tuple[str, ...], *also: str) -> list[Any]:
    return [pytest.param(p, marks=pytest.mark.checks(p.split("/")[0], *also), id=p) for p in probe_ids]


@pytest.mark.parametrize("probe_id", _params(MUST_RAISE, "REG/refusal", "REG/clear"))
def test_reg_wrong_wiring_fails_at_registration(target: Target, probe_id: str) -> None:
    """In-process, through the registration adapter: each wrong wiring raises a
    deliberate registration error (see conformance/registration.py); SHOULD: its
    message names what is at fault."""
    row = probe_id.split("/")[0]
    refusal = _attempt(probe_id, probe(target, probe_id), f"registering {said(probe_id)}", "REG/refusal")
    check(row, refusal is not None, f"{said(probe_id)} registered without an error; that wiring must be refused at registration")
    message = str(refusal)
    for name in NAMED[probe_id]:
        should("REG/clear", names(message, name), f"{said(probe_id)}: the error does not name {name!r}: {brief(message)}")


@pytest.mark.parametrize("probe_id", _params(REFUSED_OR_HONOURED, "REG/refusal", "REG/clear"))
def test_reg_10_a_prebuilt_tool_object_is_refused_or_keeps_its_marker(target: Target, probe_id: str) -> None:
    """In-process, through the registration adapter: `book(ref, seat)` with `seat`
    marked, built into a tool object by the framework's plain builder and added:
    either a deliberate registration error (SHOULD: naming `seat`), or the tool is
    listed as every other spelling lists it, with `ref` and without `seat`. Never
    listed with `seat`, the marker silently lost."""
    row = probe_id.split("/")[0]
    register = probe(target, probe_id)
    listed: list[Any] = []
    refusal = _attempt(probe_id, lambda: listed.append(register()), f"registering {said(probe_id)}", "REG/refusal")
    if refusal is not None:
        for name in NAMED[probe_id]:
            should("REG/clear", names(str(refusal), name),
                   f"{said(probe_id)}: the error does not name {name!r}: {brief(str(refusal))}")
        return
    properties = (listed[0].get("properties") if isinstance(listed[0], dict) else None) or {}
    check(row, "ref" in properties and "seat" not in properties,
          f"{said(probe_id)}: registered without an error and listed as {brief(listed[0])}: the marker on 'seat' was "
          "lost; refuse the prebuilt tool, or honour the marker as the other spellings do")


@pytest.mark.parametrize("probe_id", _params(MUST_REGISTER))
def test_reg_9_equivalent_spellings_register_and_hide_the_parameter(target: Target, probe_id: str) -> None:
    """In-process, through the registration adapter: each right wiring registers,
    and `seat` is not in the input schema it returns."""
    row = probe_id.split("/")[0]
    register = probe(target, probe_id)
    try:
        schema = register()
    except Exception as error:  # noqa: BLE001 - the verdict is that it raised
        check(row, False, f"{said(probe_id)}: the right wiring was refused: {type(error).__name__}: {brief(str(error), 200)}")
    schema = schema if isinstance(schema, dict) else {}
    check(row, "seat" not in (schema.get("properties") or {}) and "seat" not in (schema.get("required") or []),
          f"{said(probe_id)}: 'seat' is in the input schema {brief(schema)}")


@pytest.mark.parametrize("probe_id", _params(SPELLINGS))
def test_reg_9_every_registration_spelling_lists_the_tool_and_hides_the_parameter(target: Target, probe_id: str) -> None:
    """In-process, through the registration adapter: `book(ref, seat)` registered
    each documented way is listed with `ref` in its input schema and without `seat`."""
    register = probe(target, probe_id)
    try:
        schema = register()
    except Exception as error:  # noqa: BLE001 - the verdict is that it raised
        check("REG-9", False, f"{said(probe_id)}: registering this way failed: {type(error).__name__}: {brief(str(error), 200)}")
    properties = (schema.get("properties") if isinstance(schema, dict) else None) or {}
    check("REG-9", "ref" in properties, f"{said(probe_id)}: the listed tool lost its argument 'ref': {brief(schema)}")
    check("REG-9", "seat" not in properties, f"{said(probe_id)}: 'seat' is in the listed input schema {brief(schema)}")


@pytest.mark.parametrize("probe_id", _params(MAY_RAISE))
def test_era_6_prompt_with_elicit_works_or_is_refused_cleanly(target: Target, probe_id: str) -> None:
    """In-process, through the registration adapter: a prompt, and a resource
    template, declaring a question either register or raise a deliberate
    registration error."""
    _attempt(probe_id, probe(target, probe_id), f"registering {said(probe_id)}", "ERA-6")


@pytest.mark.parametrize("probe_id", _params(PLAIN_PROMPTS))
def test_era_6_an_ordinary_prompt_registers_and_is_listed(target: Target, probe_id: str) -> None:
    """In-process, through the registration adapter: a prompt `tips(city)` with no
    marker, registered each documented way, registers and is listed with its argument
    `city`: refusing markers on prompts leaves ordinary prompts alone."""
    register = probe(target, probe_id)
    try:
        listed = register()
    except Exception as error:  # noqa: BLE001 - the verdict is that it raised
        check("ERA-6", False, f"{said(probe_id)}: an ordinary prompt with no marker was refused: "
              f"{type(error).__name__}: {brief(str(error), 200)}")
    listed = listed if isinstance(listed, dict) else {}
    check("ERA-6", "tips" in listed, f"{said(probe_id)}: the prompt 'tips', registered without an error and without any "
          f"marker, is not listed: the server lists {sorted(listed) or 'no prompt'}")
    check("ERA-6", "city" in (listed["tips"] or ()), f"{said(probe_id)}: the prompt 'tips' is listed without its argument "
          f"'city' (arguments {listed['tips']})")


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.checks(declared.row), id=name)
                                  for name, declared in load().refused.items()])
@pytest.mark.transcript_varies(LISTING_VARIES)
@async_case
async def test_reg_6_reg_7_a_wiring_that_must_be_refused_is_not_served(case: Case, era: str, name: str) -> None:
    """`tools/list`: a declaration its row requires the framework to refuse at
    registration (the contract's refused declarations: an `Elicit` parameter whose
    default is a `Depends`, a resolver taking the tool's `Context`) is not listed. Not
    listed, it is judged at registration (the row's probe, in-process). A target that
    lists it accepted the wiring: the case calls it, answering as the catalog says, and
    the row fails with what calling it did (the dependency's value in place of the
    answer, a crash)."""
    declared = load().refused[name]
    async with case.peer(era) as peer:
        if not any(entry.get("name") == name for entry in await _listed(peer, "tools/list", "tools")):
            pytest.skip(f"not listed: {name} is judged where its registration is, by the {declared.row} probe")
        replies = {param: Reply("accept", {"value": value}) for param, value in declared.answer.items()}
        run = await drive(peer, name, {}, Script(name, {}, replies))
    expected = declared.returns.format(**declared.answer)
    asked = [a.message for round_ in run.rounds for a in round_]
    returned = result_text(run.result or {})
    if run.failed:
        did = f"failed: {brief(run.text)}"
    elif returned == expected and asked:
        did = f"asked {asked} and returned {expected!r} (the answer, this time; the registration error is still owed)"
    else:
        did = (f"{'asked ' + str(asked) if asked else 'asked nothing'} and returned "
               f"{brief(returned)}, where the user's answer was {dict(declared.answer)}")
    check(declared.row, False, f"the target lists {name!r}, declared {declared.declares}: its framework accepted "
          f"a wiring {declared.row} requires it to refuse at registration, and calling it {did}")


@pytest.mark.checks("ERA-6")
@async_case
async def test_era_6_a_prompt_with_a_declared_parameter_renders_or_was_refused(
    case: Case, era: str
) -> None:
    """`prompts/list`: if the prompt greeting is listed, `name` is not one of its
    arguments, and `prompts/get` with city Lisbon (answering 'Ada' if asked) renders
    its template with the answer or the default. If it is not listed, its framework
    must refuse the marker at registration (ERA-6 probe)."""
    prompt = load().prompts["greeting"]
    arguments = {"city": "Lisbon"}
    async with case.peer(era) as peer:
        listed = await _listed(peer, "prompts/list", "prompts")
        entry = next((p for p in listed if p.get("name") == prompt.name), None)
        if entry is None:
            _refused_at_registration(case.target, prompt.name)
            return
        arguments_listed = entry.get("arguments") if isinstance(entry.get("arguments"), list) else []
        leaked = [a.get("name") for a in arguments_listed if isinstance(a, dict) and a.get("name") in prompt.questions]
        check("ERA-6", not leaked, f"the marker was ignored: {leaked} listed as arguments of prompt {prompt.name!r}")
        script = Script(prompt.name, arguments, {"name": Reply("accept", {"value": "Ada"})})
        run = await drive(peer, prompt.name, arguments, script, method="prompts/get")
    _answered_or_defaulted(run, f"rendering prompt {prompt.name!r}", prompt, arguments, {"name": "Ada"})


@pytest.mark.checks("ERA-6")
@async_case
async def test_era_6_a_resource_template_with_a_declared_parameter_reads_or_was_refused(
    case: Case, era: str
) -> None:
    """`resources/templates/list`: if the template forecast (`forecast://{city}`) is
    listed, `units` is not a variable of its URI template, and `resources/read` of
    `forecast://Lisbon` (answering 'fahrenheit' if asked) reads 'Forecast for Lisbon
    in fahrenheit', or 'in celsius' when nothing was asked. If it is not listed, its
    framework must refuse the marker at registration (ERA-6/resource probe)."""
    template = load().resources["forecast"]
    async with case.peer(era) as peer:
        listed = await _listed(peer, "resources/templates/list", "resourceTemplates")
        entry = next((t for t in listed if t.get("name") == template.name
                      or str(t.get("uriTemplate", "")).startswith(template.uri.split("{", 1)[0])), None)
        if entry is None:
            _refused_at_registration(case.target, template.name, "ERA-6/resource", "resource template")
            return
        variables = re.findall(r"[{,]\W?(\w+)", str(entry.get("uriTemplate", "")))
        leaked = [v for v in variables if v in template.questions]
        check("ERA-6", not leaked, f"the marker was ignored: {leaked} is a variable of the URI template "
              f"{entry.get('uriTemplate')!r} of {template.name!r}")
        replies = {param: Reply("accept", {"value": value}) for param, value in template.answer.items()}
        script = Script(template.name, template.read_at, replies)
        run = await drive(peer, template.read_uri, {}, script, method="resources/read")
    _answered_or_defaulted(run, f"reading {template.read_uri!r}", template, template.read_at, template.answer)


async def _listed(peer: Any, method: str, key: str) -> list[dict[str, Any]]:
    """The entries a listing method answers with; none when the target lacks the
    capability ("method not found"). Any other error is a listing that failed."""
    listed = (await listing(peer, method, "ERA-6") or {}).get(key)
    return [entry for entry in listed if isinstance(entry, dict)] if isinstance(listed, list) else []


def _answered_or_defaulted(
    run: Run, what: str, declared: Prompt, known: Mapping[str, Any], answer: Mapping[str, Any]
) -> None:
    """`what` (a prompt rendered, a template read) succeeded and gave its text with
    the answer if the question was asked, the default if it was not."""
    check("ERA-6", not run.failed, f"{what} failed: {brief(run.text)}")
    asked = any(a.param in declared.questions for round_ in run.rounds for a in round_)
    expected = declared.returns.format(**known, **(answer if asked else declared.defaults))
    text = result_text(run.result or {})
    check("ERA-6", expected in text, f"{what} gave {brief(text)}, expected {expected!r} "
          + ("(the answer given)" if asked else "(nothing was asked, so the default)"))


def _refused_at_registration(target: Target, name: str, probe_id: str = "ERA-6", kind: str = "prompt") -> None:
    """An absent prompt or template passes only if the target's framework refuses the marker."""
    if target.kind != "module":
        pytest.skip(
            f"the target exposes no {kind} {name!r}; whether its framework refuses the marker "
            f"is judged at registration, in-process ({probe_id} probe)"
        )
    refusal = _attempt(probe_id, probe(target, probe_id), f"registering a {kind} with Elicit", "ERA-6")
    check("ERA-6", refusal is not None,
          f"a {kind} declaring Elicit registers without error, but the target lists no "
          f"{kind} {name!r}: it vanished (or the contract's {kind} is not implemented)")
