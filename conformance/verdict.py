"""How a check's outcome is graded: MUST fails, SHOULD warns, and "not testable".

A SHOULD covers what docs/behaviour.md asks to be *clear* rather than exact (error
wording), where a different but reasonable server must not be failed. Under
`--conformance-strict` the plugin turns `ShouldNotMet` into an error, so a
broken SHOULD fails its case.
"""

from __future__ import annotations

import warnings

NOT_TESTABLE = "Not testable:"


class ShouldNotMet(UserWarning):
    """A SHOULD-level check did not hold; the case still passes."""


class NotTestable(Exception):
    """The target lacks what a case needs (a scenario tool, the REG adapter).

    A failure, never a skip: a server that implements nothing must not pass.
    """

    def __str__(self) -> str:
        return f"{NOT_TESTABLE} {super().__str__()}"


class TimedOut(Exception):
    """The server did not answer a request in time: the case fails as "timed out"."""


def should(condition: bool, requirement: str, message: str) -> None:
    """Check the SHOULD row `requirement` of the requirement table."""
    if not condition:
        warnings.warn(ShouldNotMet(f"{requirement} SHOULD: {message}"), stacklevel=2)
