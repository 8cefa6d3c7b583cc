"""pytest plugin: options and fixtures of the conformance suite."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("elicit-conformance")
    group.addoption(
        "--server",
        default=None,
        help="Target server as module:attribute (default: the reference app).",
    )
    parser.addini("elicit_server", "Target server as module:attribute.", default=None)
