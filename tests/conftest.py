"""Fixtures and hooks the repository's own tests share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from elicit_conformance.requirements import Table
from elicit_conformance.verdict import Ledger, recording

from tests.cost import Cost
from tests.suite import FUZZ, QUICK, stop_warm


@pytest.fixture
def quick_attacks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Child suite runs that test grading and reporting, not hostile input, run the
    generated attacks on their `quick` profile (`ELICIT_FUZZ`, which the children
    inherit). The full `ci` profile judges the reference in test_transports.py and
    every mutant that claims a SEC row in test_mutants.py."""
    monkeypatch.setenv(FUZZ, QUICK[FUZZ])


@pytest.fixture
def ledger() -> Iterator[Ledger]:
    """What a test that makes the cases' checks outside a case records them in (a check with
    no ledger recording raises)."""
    with recording(Ledger(Table.load())) as ledger:
        yield ledger


@pytest.fixture(scope="session")
def typescript_client(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The TypeScript SDK client's adapter, installed with `npm ci`: its command."""
    from tests.typescript import install_client

    return install_client(tmp_path_factory.mktemp("typescript-client"))


@pytest.fixture(scope="session")
def official(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The official MCP conformance suite, installed with `npm ci` (tests/official.py): its folder."""
    from tests.official import install

    return install(tmp_path_factory.mktemp("official"))


#: The files that run whole suites in child processes or start real components (a wheel
#: in a fresh venv, node, HAProxy, Redis), longest first (by the wall seconds of the
#: per-file table at the end of a run; budget in docs/benchmarks.md). They are marked
#: `slow`: the inner loop, `pytest -m "not slow" -n 2`, leaves them to `.ci/run`. Under `-n 2 --dist loadfile` a
#: worker takes a whole file at a time, in collection order, so the longest go first: one
#: handed out halfway through would keep a worker busy long after the other had finished.
SLOW = ("test_mutants.py", "test_wheel.py", "test_grading.py", "test_stateless.py", "test_misbehaving.py",
        "test_transports.py", "test_variants.py", "test_typescript_peer.py", "test_mutate.py", "test_xdist.py",
        "test_stdio.py", "test_mcp_sdk_peer.py", "test_compare.py", "test_snapshots.py", "test_official_suite.py",
        "test_contract_server.py", "test_no_false_failures.py", "test_bench.py", "test_partial.py")


@pytest.hookimpl(tryfirst=True)  # before -m reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        return SLOW.index(item.path.name) if item.path.name in SLOW else len(SLOW)

    for item in items:
        if item.path.name in SLOW:
            item.add_marker(pytest.mark.slow)
    items.sort(key=rank)  # stable: each file's own order is kept


def pytest_configure(config: pytest.Config) -> None:
    # Registered, not defined here: conftest hooks would see only the items under tests/.
    config.pluginmanager.register(Cost(), "elicit-test-cost")


def pytest_sessionfinish() -> None:
    stop_warm()
