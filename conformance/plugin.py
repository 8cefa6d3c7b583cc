"""pytest plugin: the suite's options, its target, and the per-case fixture.

Loaded through the `pytest11` entry point wherever the package is installed.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from conformance import snapshot as snapshot_module
from conformance.case import Case
from conformance.target import DEFAULT_SPEC, Target, TargetError, load_target

ENV_VAR = "ELICIT_SERVER"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("elicit-conformance")
    group.addoption(
        "--server",
        default=None,
        metavar="MODULE:ATTR",
        help=f"Server under test, as module:attribute (also ${ENV_VAR} or the "
        f"'elicit_server' ini key; default {DEFAULT_SPEC}).",
    )
    parser.addini("elicit_server", "Server under test, as module:attribute.", default=None)


def _chosen(config: pytest.Config) -> tuple[str, str]:
    if spec := config.getoption("--server"):
        return spec, "--server"
    if spec := os.environ.get(ENV_VAR):
        return spec, ENV_VAR
    if spec := config.getini("elicit_server"):
        return str(spec), "ini"
    return DEFAULT_SPEC, "default"


def pytest_configure(config: pytest.Config) -> None:
    snapshot_module.SNAPSHOT_ROOT = config.rootpath / "snapshots"
    spec, source = _chosen(config)
    try:
        config.stash[_TARGET] = load_target(spec, source)
    except TargetError as error:
        raise pytest.UsageError(str(error)) from None


def pytest_report_header(config: pytest.Config) -> str:
    target = config.stash[_TARGET]
    return f"elicit-conformance target: {target.spec} (from {target.source})"


_TARGET = pytest.StashKey[Target]()


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Target:
    return pytestconfig.stash[_TARGET]


@pytest.fixture(scope="session")
def run_id() -> str:
    """Unique per session, so server-side records (runs, profiles) never collide."""
    return uuid.uuid4().hex[:10]


@pytest.fixture
def case(target: Target, run_id: str) -> Iterator[Case]:
    yield Case(target, run_id)
