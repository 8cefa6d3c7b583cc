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


#: The longest files, longest first. Under `-n 2 --dist loadfile` a worker takes a whole
#: file at a time, in collection order: test_mutants.py (about 7 minutes on 2 cores)
#: handed out halfway through kept one worker busy long after the other had finished.
LONGEST = ("test_mutants.py", "test_misbehaving.py", "test_mcp_sdk_peer.py", "test_stateless.py",
           "test_transports.py", "test_wheel.py", "test_typescript_peer.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        return LONGEST.index(item.path.name) if item.path.name in LONGEST else len(LONGEST)

    items.sort(key=rank)  # stable: each file's own order is kept
