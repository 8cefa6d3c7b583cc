"""REG cases and ERA-6, through the target's registration adapter.

An in-process target without `registration()` beside its app fails them as
"Not testable:"; URL and stdio targets skip them, since registration is not on
the wire. See `conformance/registration.py` for the contract. ERA-6 is also
judged on the wire: a catalog prompt the target exposes is rendered on both eras.
"""

from __future__ import annotations

from typing import Any

import pytest

from elicit_conformance.case import Case, async_case
from elicit_conformance.catalog import Reply, load
from elicit_conformance.checks import names
from elicit_conformance.driver import Script, drive, result_text
from elicit_conformance.registration import (
    MAY_RAISE,
    MUST_RAISE,
    MUST_REGISTER,
    NAMED,
    is_refusal,
)
from elicit_conformance.target import Target
from elicit_conformance.verdict import NotTestable, should
from elicit_conformance.wire import RpcError


def probe(target: Target, probe_id: str) -> Any:
    if target.kind != "module":
        pytest.skip(
            "registration happens at import, not on the wire: REG cases need an "
            "in-process target (--server=module:app)"
        )
    probes = target.registration_probes()
    if probes is None:
        raise NotTestable(f"{target.spec} provides no registration() adapter (conformance/registration.py)")
    if probe_id not in probes:
        raise NotTestable(f"the registration adapter has no probe {probe_id!r}")
    return probes[probe_id]


def _attempt(register: Any, what: str) -> Exception | None:
    """Register; the deliberate refusal if there was one. An internal error leaking is a failure."""
    try:
        register()
    except Exception as error:  # noqa: BLE001 - which exception is the verdict
        assert is_refusal(error), f"{what} leaked {type(error).__name__}: {error}"
        return error
    return None


def _params(probe_ids: tuple[str, ...], *also: str) -> list[Any]:
    return [pytest.param(p, marks=pytest.mark.checks(p.split("/")[0], *also), id=p) for p in probe_ids]


@pytest.mark.parametrize("probe_id", _params(MUST_RAISE, "REG/clear"))
def test_reg_wrong_wiring_fails_at_registration(target: Target, probe_id: str) -> None:
    refusal = _attempt(probe(target, probe_id), probe_id)
    if refusal is None:
        pytest.fail(f"{probe_id}: the wrong wiring registered without an error")
    message = str(refusal)
    for name in NAMED[probe_id]:
        should(names(message, name), "REG/clear", f"{probe_id}: the error names {name!r}: {message!r}")


@pytest.mark.parametrize("probe_id", _params(MUST_REGISTER))
def test_reg_9_equivalent_spellings_register_and_hide_the_parameter(target: Target, probe_id: str) -> None:
    schema = probe(target, probe_id)()
    assert "seat" not in schema.get("properties", {}), f"{probe_id}: 'seat' is in the input schema"
    assert "seat" not in schema.get("required", [])


@pytest.mark.parametrize("probe_id", _params(MAY_RAISE))
def test_era_6_prompt_with_elicit_works_or_is_refused_cleanly(target: Target, probe_id: str) -> None:
    _attempt(probe(target, probe_id), "registering a prompt with Elicit")


@pytest.mark.checks("ERA-6")
@async_case
async def test_era_6_a_prompt_with_a_declared_parameter_renders_or_was_refused(
    case: Case, snapshot: Any, era: str
) -> None:
    prompt = load().prompts["greeting"]
    arguments = {"city": "Lisbon"}
    async with case.peer(era) as peer:
        try:
            listed = (await peer.request("prompts/list", {})).get("prompts", [])
        except RpcError:  # no prompts capability: nothing is exposed
            listed = []
        entry = next((p for p in listed if p.get("name") == prompt.name), None)
        if entry is None:
            _refused_at_registration(case.target, prompt.name)
            case.assert_snapshot(snapshot)
            return
        leaked = [a.get("name") for a in entry.get("arguments") or [] if a.get("name") in prompt.questions]
        assert not leaked, f"the marker was ignored: {leaked} listed as arguments of prompt {prompt.name!r}"
        script = Script(prompt.name, arguments, {"name": Reply("accept", {"value": "Ada"})})
        run = await drive(peer, prompt.name, arguments, script, method="prompts/get")
    assert not run.failed, f"rendering prompt {prompt.name!r} failed: {run.text}"
    asked = any(a.param == "name" for round_ in run.rounds for a in round_)
    expected = prompt.returns.format(**arguments, **({"name": "Ada"} if asked else prompt.defaults))
    rendered = result_text(run.result or {})
    assert expected in rendered, (
        f"prompt {prompt.name!r} rendered {rendered!r}, expected {expected!r} "
        + ("(the answer given)" if asked else "(nothing was asked, so the default)")
    )
    case.assert_snapshot(snapshot)


def _refused_at_registration(target: Target, name: str) -> None:
    """An absent prompt passes only if the target's framework refuses the marker."""
    if target.kind != "module":
        pytest.skip(
            f"the target exposes no prompt {name!r}; whether its framework refuses the marker "
            "is judged at registration, in-process (ERA-6 probe)"
        )
    if _attempt(probe(target, "ERA-6"), "registering a prompt with Elicit") is None:
        pytest.fail(
            f"a prompt declaring Elicit registers without error, but the target lists no "
            f"prompt {name!r}: the prompt vanished (or the contract's prompt is not implemented)"
        )
