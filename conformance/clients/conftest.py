"""The client cases' fixtures, visible to the client cases alone (as the server cases'
are to theirs): the shared `target` and `ledger`, and `client_case`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from elicit_conformance.connection.target import Target
from elicit_conformance.harness.case import Case
from elicit_conformance.plugin.fixtures import ledger, open_case, parametrize_eras, refuse_blocked_plugin, target

__all__ = ["client_case", "ledger", "target"]


def pytest_configure(config: pytest.Config) -> None:
    refuse_blocked_plugin(config)


pytest_generate_tests = parametrize_eras


@pytest.fixture
def client_case(request: pytest.FixtureRequest, target: Target) -> Iterator[Case]:
    """The case's record: the scenario server writes its transcript (what the client sent,
    what it was answered), which the report keeps and a golden file may pin."""
    yield open_case(request, target)
