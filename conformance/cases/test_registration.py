"""REG cases and ERA-6, through the target's registration adapter.

A target without `registration()` beside its app reports these skipped, with
the reason; see `conformance/registration.py` for the contract.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.registration import CLEAR_ERRORS, MAY_RAISE, MUST_RAISE, MUST_REGISTER
from conformance.target import Target


def probe(target: Target, probe_id: str) -> Any:
    probes = target.registration_probes()
    if probes is None:
        pytest.skip(f"{target.spec} provides no registration() adapter (conformance/registration.py)")
    if probe_id not in probes:
        pytest.fail(f"Not testable: the registration adapter has no probe {probe_id!r}")
    return probes[probe_id]


@pytest.mark.parametrize("probe_id", MUST_RAISE)
def test_reg_wrong_wiring_fails_at_registration(target: Target, probe_id: str) -> None:
    register = probe(target, probe_id)
    with pytest.raises(CLEAR_ERRORS) as raised:
        register()
    assert str(raised.value).strip(), "the registration error must say what is wrong"


@pytest.mark.parametrize("probe_id", MUST_REGISTER)
def test_reg_9_equivalent_spellings_register_and_hide_the_parameter(target: Target, probe_id: str) -> None:
    schema = probe(target, probe_id)()
    assert "seat" not in schema.get("properties", {}), f"{probe_id}: 'seat' is in the input schema"
    assert "seat" not in schema.get("required", [])


@pytest.mark.parametrize("probe_id", MAY_RAISE)
def test_era_6_prompt_with_elicit_works_or_is_refused_cleanly(target: Target, probe_id: str) -> None:
    register = probe(target, probe_id)
    try:
        register()
    except CLEAR_ERRORS:
        return
    except Exception as error:  # noqa: BLE001 - any other exception is the failure
        pytest.fail(f"registering a prompt with Elicit leaked {type(error).__name__}: {error}")
