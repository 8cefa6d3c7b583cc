"""Every scripted scenario of `fixtures/scenarios.json`, on each revision.

The catalog entry named by the test id is the case: its tool, the user's
replies, the rounds a conforming server asks, and the outcome.
"""

from __future__ import annotations

from typing import Any

import pytest

from elicit_conformance.case import Case, async_case
from elicit_conformance.checks import check_outcome, check_rounds
from elicit_conformance.catalog import load
from elicit_conformance.verdict import check
from elicit_conformance.wire import ERAS, MODERN

SCENARIOS = load().scenarios


def _checks(case_id: str, era: str) -> list[str]:
    """The requirement rows one scenario checks on one revision."""
    scenario = SCENARIOS[case_id]
    checks = [scenario.family]
    if era == MODERN and any(len(round_) > 1 for round_ in scenario.expect.rounds):
        checks.append("BAT-4")  # signature order within a round
    if era != MODERN and scenario.expect.rounds:
        checks.append("ORD-7")  # each question once, after what it quotes
    if scenario.expect.error_should:
        checks.append(f"{checks[0]}/clear")
    return checks


def _cases() -> list[Any]:
    return [
        pytest.param(case_id, era, marks=pytest.mark.checks(*_checks(case_id, era)), id=f"{case_id}-{era}")
        for case_id in SCENARIOS
        for era in ERAS
    ]


@pytest.mark.parametrize(("case_id", "era"), _cases())
@async_case
async def test_scenario(case: Case, snapshot: Any, case_id: str, era: str) -> None:
    """Every scripted scenario below, on each revision: the rounds asked, the
    outcome, and the body runs it lists."""
    scenario = case.scenario(case_id)
    run = await case.run(case_id, era)
    check_rounds(run, scenario, era)
    check_outcome(run, scenario, f"{scenario.family}/clear")
    if scenario.expect.body_runs is not None:
        runs = await case.body_runs(scenario.arguments["ref"])
        check(scenario.family, runs == scenario.expect.body_runs,
              f"the body ran {runs} time(s); the catalog expects {scenario.expect.body_runs}")
    case.assert_snapshot(snapshot)
