"""A check names its row: MUST fails the case with a sentence, SHOULD only warns,
and the ledger keeps each row's result."""


import pytest

from elicit_conformance import verdict
from elicit_conformance.catalog import load
from elicit_conformance.grading.checks import check_outcome, check_rounds
from elicit_conformance.exceptions import CheckFailed, ShouldNotMet
from elicit_conformance.harness.driver import Asked, Run
from elicit_conformance.quoting import brief
from elicit_conformance.requirements import Table

#: A failure that MUST happen and SHOULD name 'seats'.
SCENARIO = load().scenarios["TYP-3"]
assert SCENARIO.expect.error == () and SCENARIO.expect.error_should == ("seats",)


def failed_with(text: str) -> Run:
    return Run(result={"isError": True, "content": [{"type": "text", "text": text}]})


def test_should_not_met_warns_but_passes(ledger: verdict.Ledger) -> None:
    with pytest.warns(ShouldNotMet, match="TYP-3/clear: the error does not name 'seats'"):
        check_outcome(failed_with("invalid input"), SCENARIO, "TYP-3/clear")
    assert ledger.rows == {"TYP-3": "pass", "TYP-3/clear": "should not met"}


def test_should_met_is_silent(recwarn: pytest.WarningsRecorder, ledger: verdict.Ledger) -> None:
    check_outcome(failed_with("'seats' must be > 0"), SCENARIO, "TYP-3/clear")
    assert not [w for w in recwarn if issubclass(w.category, ShouldNotMet)]
    assert ledger.rows == {"TYP-3": "pass", "TYP-3/clear": "pass"}


def test_must_not_met_fails_with_the_row_what_happened_and_what_it_requires(ledger: verdict.Ledger) -> None:
    completed = Run(result={"content": [{"type": "text", "text": "-1 seats"}]})
    with pytest.raises(CheckFailed) as failed:
        check_outcome(completed, SCENARIO, "TYP-3/clear")
    assert failed.value.row == "TYP-3"
    assert str(failed.value) == (
        "TYP-3: the call completed with '-1 seats', but book_seats_count must fail when answered "
        "seats accepted with -1. Required: "
        + Table.load().rows["TYP-3"].checks
    )
    assert ledger.rows == {"TYP-3": "fail"}


def _asked(*params: str) -> list[Asked]:
    messages = {"destination": "Where would you like to fly?", "date": "When would you like to fly?",
                "cabin": "Which cabin class?"}
    return [Asked(p, p, messages[p], {}) for p in params]


def test_a_round_grouped_right_but_ordered_wrong_warns_on_bat_4_alone(ledger: verdict.Ledger) -> None:
    # The order within a round is BAT-4's, a SHOULD: a JSON object carries no order.
    scenario = load().scenarios["BAT-3"]
    expected = list(scenario.expect.rounds[0])
    with pytest.warns(ShouldNotMet, match=r"^BAT-4: the server asked the round\(s\)"):
        check_rounds(Run(rounds=[_asked(*reversed(expected))]), scenario, "2026-07-28")
    assert ledger.rows == {"BAT-3": "pass", "BAT-4": "should not met"}


def test_a_round_split_in_two_fails_the_family_row_and_never_reaches_bat_4(ledger: verdict.Ledger) -> None:
    scenario = load().scenarios["BAT-3"]
    expected = list(scenario.expect.rounds[0])
    run = Run(rounds=[_asked(expected[0]), _asked(*expected[1:])])
    with pytest.raises(CheckFailed, match=r"^BAT-3: the server asked \[destination\] then \[date, cabin\]"):
        check_rounds(run, scenario, "2026-07-28")
    assert ledger.rows == {"BAT-3": "fail"}


def test_a_message_no_catalog_question_has_is_quoted_with_the_nearest_one(ledger: verdict.Ledger) -> None:
    scenario = load().scenarios["BAT-3"]
    run = Run(rounds=[[Asked("k", None, "Which cabin class would you like?", {}), *_asked("destination", "date")]])
    with pytest.raises(CheckFailed) as failed:
        check_rounds(run, scenario, "2026-07-28")
    assert ("'Which cabin class would you like?' (no catalog question of book_trip reads so; the nearest "
            "is 'cabin': 'Which cabin class?')") in str(failed.value)


def test_a_long_answer_is_quoted_briefly() -> None:
    quoted = brief({"content": [{"text": "x" * 100_000}]})
    assert len(quoted) < 240 and "(100,000 characters)" in quoted
    assert brief("y" * 10_000).endswith("... (10,000 characters)'")
    assert brief("short") == "'short'"


def test_an_error_without_data_reads_as_its_message_alone() -> None:
    """Issue 41: every error without `data` read "... null" in its sentence."""
    from elicit_conformance.harness.driver import Run

    assert Run(error={"code": -32602, "message": "Invalid request parameters"}).text == "Invalid request parameters"
    assert Run(error={"code": -32021, "message": "m", "data": {"a": 1}}).text == 'm {"a": 1}'
