"""Every scripted scenario of `fixtures/scenarios.json`, on each era it applies to.

The catalog entry named by the test id is the case: its tool, the user's
replies, the rounds a conforming server asks, and the outcome.
"""

from __future__ import annotations

import pytest

from conformance.case import Case
from conformance.checks import check_outcome, check_rounds
from conformance.driver import catalog
from conformance.wire import ERAS

SCENARIOS = catalog()["scenarios"]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("case_id", list(SCENARIOS))
async def test_scenario(case: Case, snapshot, case_id: str, era: str) -> None:
    scenario = case.scenario(case_id)
    run = await case.run(case_id, era)
    check_rounds(run, scenario, era)
    check_outcome(run, scenario, case_id)
    if "body_runs" in scenario["expect"]:
        runs = await case.body_runs(scenario["arguments"]["ref"])
        assert runs == scenario["expect"]["body_runs"], "the body ran on a failed call"
    case.assert_snapshot(snapshot)
