"""The pytest11 entry point: the suite's options, and nothing else until asked.

pytest loads this module in every project where the package is installed, so
it imports nothing but pytest and the standard library and does nothing at all
unless the run is a conformance run: an elicit-conformance option was given,
or the paths (or `--pyargs` modules) to test reach into the cases. Only then
is the target loaded and the run's hooks (`hooks`) registered over a session
(`elicit_conformance.run`). The fixtures live in `cases/conftest.py`, so they exist only for
the cases and can never capture a user's fixture of the same name.
"""

from __future__ import annotations

import pytest

from .options import pytest_addoption
from .selection import wanted

__all__ = ["pytest_addoption", "pytest_configure"]


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("conformance_contract") is not None:
        _write_contract(config)
    if wanted(config):
        from .hooks import current

        current(config)


def _write_contract(config: pytest.Config) -> None:
    """--conformance-contract: the contract (or its changes since an older one), then exit."""
    from elicit_conformance.contract.page import write_contract
    from elicit_conformance.exceptions import DeclarationError

    try:
        write_contract(config.getoption("conformance_contract"), config.getoption("conformance_contract_since"))
    except DeclarationError as error:
        raise pytest.UsageError(str(error)) from None
    pytest.exit("contract written", returncode=pytest.ExitCode.OK)
