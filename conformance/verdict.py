"""MUST and SHOULD: a broken MUST fails the case, a broken SHOULD warns.

A SHOULD covers what the brief asks to be *clear* rather than exact (error
wording), where a different but reasonable server must not be failed.
"""

from __future__ import annotations

import warnings


class ShouldNotMet(UserWarning):
    """A SHOULD-level check of the brief did not hold; the case still passes."""


def should(condition: bool, case_id: str, message: str) -> None:
    if not condition:
        warnings.warn(ShouldNotMet(f"{case_id} SHOULD: {message}"), stacklevel=2)
