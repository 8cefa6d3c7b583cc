"""Fixtures the repository's own tests share."""

from __future__ import annotations

import pytest


@pytest.fixture
def quick_attacks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Child suite runs that test grading and reporting, not hostile input, run the
    generated attacks on their `quick` profile (`ELICIT_FUZZ`, which the children
    inherit). The full `ci` profile judges the reference in test_transports.py and
    every mutant that claims a SEC row in test_mutants.py."""
    monkeypatch.setenv("ELICIT_FUZZ", "quick")
