"""MUST breaks fail the case; SHOULD breaks only warn."""

import pytest

from elicit_conformance.catalog import load
from elicit_conformance.checks import check_outcome
from elicit_conformance.driver import Run
from elicit_conformance.verdict import ShouldNotMet

#: A failure that MUST happen and SHOULD name 'seats'.
SCENARIO = load().scenarios["TYP-3"]
assert SCENARIO.expect.error == () and SCENARIO.expect.error_should == ("seats",)


def failed_with(text: str) -> Run:
    return Run(result={"isError": True, "content": [{"type": "text", "text": text}]})


def test_should_not_met_warns_but_passes() -> None:
    with pytest.warns(ShouldNotMet, match="TYP-3 SHOULD: the error names 'seats'"):
        check_outcome(failed_with("invalid input"), SCENARIO, "TYP-3")


def test_should_met_is_silent(recwarn: pytest.WarningsRecorder) -> None:
    check_outcome(failed_with("'seats' must be > 0"), SCENARIO, "TYP-3")
    assert not [w for w in recwarn if issubclass(w.category, ShouldNotMet)]


def test_must_not_met_fails() -> None:
    completed = Run(result={"content": [{"type": "text", "text": "-1 seats"}]})
    with pytest.raises(AssertionError, match="should have failed"):
        check_outcome(completed, SCENARIO, "TYP-3")
