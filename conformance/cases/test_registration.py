"""REG cases and ERA-6, through the target's registration adapter.

An in-process target without `registration()` beside its app fails them as
"Not testable:"; URL and stdio targets skip them, since registration is not on
the wire. See `conformance/registration.py` for the contract.
"""

from __future__ import annotations

from typing import Any

import pytest

from elicit_conformance.checks import names
from elicit_conformance.registration import (
    MAY_RAISE,
    MUST_RAISE,
    MUST_REGISTER,
    NAMED,
    is_refusal,
)
from elicit_conformance.target import Target
from elicit_conformance.verdict import NotTestable, should


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
