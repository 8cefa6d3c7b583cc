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
from elicit_conformance.plugin.hooks import CASE, LEDGER, current
from elicit_conformance.revisions import ERAS
from elicit_conformance.verdict import Ledger, recording


def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.is_blocked("elicit_conformance"):
        raise pytest.UsageError(
            "the conformance cases need the elicit_conformance plugin, which this run "
            "disables (-p no:elicit_conformance): drop that option to run them."
        )
    # Collected without a conformance option or path (e.g. a parent folder):
    # the run is a conformance run all the same.
    current(config)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Cases that take `era` run once per revision, the revision in their ID."""
    if "era" not in metafunc.fixturenames or any(
        "era" in str(m.args[0]) for m in metafunc.definition.iter_markers("parametrize")
    ):
        return
    marker = metafunc.definition.get_closest_marker("revisions")
    metafunc.parametrize("era", marker.args if marker else ERAS)


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Target:
    return current(pytestconfig).target


@pytest.fixture
def case(request: pytest.FixtureRequest, target: Target) -> Iterator[Case]:
    session = current(request.config)
    case = Case(target, session.case_id(), timeout=session.timeout)
    case.pinned = request.node.get_closest_marker("transcript_varies") is None
    request.node.stash[CASE] = case
    yield case


@pytest.fixture(autouse=True)
def ledger(request: pytest.FixtureRequest) -> Iterator[Ledger]:
    """The case's ledger: every check it makes, row by row, recorded while it runs and
    handed to the session with the case's end."""
    ledger = request.node.stash[LEDGER] = Ledger(current(request.config).table)
    with recording(ledger):
        yield ledger
