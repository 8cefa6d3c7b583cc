"""The cases' fixtures and parametrization, visible to the cases alone.

Living here rather than in the entry-point plugin, `case`, `target` and the
`era` parameter exist only for tests under this folder: a user's fixtures of
the same names are never captured, and nothing is parametrized outside.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from elicit_conformance.connection.target import Target
from elicit_conformance.harness.case import Case
from elicit_conformance.plugin.fixtures import ledger, open_case, parametrize_eras, refuse_blocked_plugin, target

__all__ = ["case", "ledger", "target"]


def pytest_configure(config: pytest.Config) -> None:
    refuse_blocked_plugin(config)


pytest_generate_tests = parametrize_eras


@pytest.fixture
def case(request: pytest.FixtureRequest, target: Target) -> Iterator[Case]:
    yield open_case(request, target)

