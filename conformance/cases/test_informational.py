"""INFORMATIONAL rows: facts in which right servers differ, recorded, never judged.

They land in the report's `facts` and as JUnit properties, so a framework sees
how its choices compare (key naming, how much state a client carries).
"""

from __future__ import annotations

import pytest

from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.revisions import MODERN


@pytest.mark.tools("book_confirmed")
@pytest.mark.checks("INFO/keys", "INFO/state-bytes")
@pytest.mark.revisions(MODERN)
@async_case
async def test_info_key_naming_and_state_size(case: Case, era: str) -> None:
    """Scenario ORD-4 on 2026-07-28: records the `inputRequests` keys of each round
    and the size of each requestState. Never fails for what it records."""
    run = await case.run("ORD-4", era)
    # Whatever the rounds were (ORD-4 judges them), they are the facts; a
    # target that never asks has none to report.
    assert run.rounds, f"ORD-4 asked nothing: {run.text}"
    case.inform("INFO/keys", [[a.key for a in r] for r in run.rounds])
    case.inform("INFO/state-bytes", [len(state.encode()) for state in run.states])
