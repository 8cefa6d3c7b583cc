"""The fixtures every case folder shares (the server cases' and the client cases'):
each folder's conftest imports them, so they exist for its cases alone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from elicit_conformance.connection.target import Target
from elicit_conformance.harness.case import Case
from elicit_conformance.plugin.hooks import CASE, LEDGER, current
from elicit_conformance.revisions import ERAS
from elicit_conformance.verdict import Ledger, recording


def refuse_blocked_plugin(config: pytest.Config) -> None:
    """The cases need the plugin; collected without a conformance option or path (a
    parent folder), the run is a conformance run all the same."""
    if config.pluginmanager.is_blocked("elicit_conformance"):
        raise pytest.UsageError(
            "the conformance cases need the elicit_conformance plugin, which this run "
            "disables (-p no:elicit_conformance): drop that option to run them."
        )
    current(config)


def parametrize_eras(metafunc: pytest.Metafunc) -> None:
    """Cases that take `era` run once per revision (those their `revisions` mark names),
    the revision in their ID."""
    if "era" not in metafunc.fixturenames or any(
        "era" in str(m.args[0]) for m in metafunc.definition.iter_markers("parametrize")
    ):
        return
    marker = metafunc.definition.get_closest_marker("revisions")
    metafunc.parametrize("era", marker.args if marker else ERAS)


def open_case(request: pytest.FixtureRequest, target: Target) -> Case:
    """A new case's record, where the hooks find it: its transcript, kept by the report
    and compared with a golden file unless the case is marked `transcript_varies`."""
    session = current(request.config)
    case = Case(target, session.case_id(), timeout=session.timeout)
    case.pinned = request.node.get_closest_marker("transcript_varies") is None
    request.node.stash[CASE] = case
    return case


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Target:
    return current(pytestconfig).target


@pytest.fixture(autouse=True)
def ledger(request: pytest.FixtureRequest) -> Iterator[Ledger]:
    """The case's ledger: every check it makes, row by row, recorded while it runs and
    handed to the session with the case's end."""
    ledger = request.node.stash[LEDGER] = Ledger(current(request.config).table)
    with recording(ledger):
        yield ledger
