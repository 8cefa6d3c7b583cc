"""Every scripted scenario of `fixtures/scenarios.json`, on each revision.

The catalog entry named by the test id is the case: its tool, the user's
replies, the rounds a conforming server asks, and the outcome.
"""

from __future__ import annotations

from typing import Any

import pytest

from elicit_conformance.catalog import load
from elicit_conformance.grading.checks import check_outcome, check_rounds, check_schemas, scenario_checks
from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.revisions import ERAS
from elicit_conformance.verdict import check

SCENARIOS = load().scenarios


def _cases() -> list[Any]:
    return [
        pytest.param(case_id, era, marks=(pytest.mark.checks(*scenario_checks(case_id, era)), _tools(case_id)),
                     id=f"{case_id}-{era}")
        for case_id in SCENARIOS
        for era in ERAS
    ]


def _tools(case_id: str) -> pytest.MarkDecorator:
    """The scenario's tool, and `body_runs` where it counts the body's runs."""
    scenario = SCENARIOS[case_id]
    return pytest.mark.tools(scenario.tool, *(["body_runs"] if scenario.expect.body_runs is not None else []))


@pytest.mark.parametrize(("case_id", "era"), _cases())
@async_case
async def test_scenario(case: Case, case_id: str, era: str) -> None:
    """Every scripted scenario below, on each revision: the rounds asked, the
    requested schemas where it says so, the outcome, and the body runs it lists."""
    scenario = case.scenario(case_id)
    run = await case.run(case_id, era)
    check_rounds(run, scenario, era)
    if scenario.expect.schemas:
        check_schemas(run, scenario, era)
    check_outcome(run, scenario, f"{scenario.family}/clear")
    if scenario.expect.body_runs is not None:
        runs = await case.body_runs(scenario.arguments["ref"])
        check(scenario.family, runs == scenario.expect.body_runs,
              f"the body ran {runs} time(s); the catalog expects {scenario.expect.body_runs}")
