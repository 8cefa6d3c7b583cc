"""Every exception of the suite, in one place (as starlette keeps its own).

What a case raises is its verdict: a failed check (`CheckFailed`, `Broken`), a SHOULD
not met (`ShouldNotMet`, a warning), a target that lacks what the case needs
(`NotTestable`, `NotOffered`), a server too slow (`TimedOut`), or a JSON-RPC error
where the case needed a result (`RpcError`). What stops a run before any case: a
bad target, table, catalog, baseline, declaration or report, an unreachable target,
a case claiming a row the table lacks (`UsageProblem` and the errors it wraps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from elicit_conformance.quoting import brief

# -- what a case raises ---------------------------------------------------------------

#: How a "not testable" verdict's sentence begins.
NOT_TESTABLE = "Not testable:"


class ShouldNotMet(UserWarning):
    """A SHOULD-level check did not hold; the case still passes."""


class NotTestable(Exception):
    """The target lacks what a case needs (a scenario tool, the REG adapter).

    A failure, never a skip: a server that implements nothing must not pass.
    `cause` is the short reason many cases share ("book_profile missing"), by
    which the report rolls them up.
    """

    def __init__(self, message: str, cause: str | None = None, tools: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.cause = cause or message
        #: The contract's tools the target lacks, when that is the reason.
        self.tools = tools

    def __str__(self) -> str:
        return f"{NOT_TESTABLE} {super().__str__()}"


class NotOffered(NotTestable):
    """The target's own capabilities say it does not offer an optional extension a
    case needs (background tasks): the case ends "not implemented" and does not
    fail the run, as a case needing only tools declared not implemented does."""


class TimedOut(Exception):
    """The server did not answer a request in time: the case fails as "timed out"."""


class CheckFailed(Exception):
    """A MUST check did not hold; `str()` is the whole verdict sentence."""

    def __init__(self, row: str | None, sentence: str) -> None:
        super().__init__(sentence)
        self.row = row
        self.sentence = sentence


class Broken(CheckFailed):
    """The server broke the exchange itself (closed the connection, answered
    something that is not JSON-RPC): no row's own check could run, so the
    case's first row carries the failure."""

    def __init__(self, observed: str) -> None:
        super().__init__(None, observed)


@dataclass
class RpcError(Exception):
    """A JSON-RPC error response, kept raw."""

    error: dict[str, Any]
    #: The request it answered.
    method: str = ""

    def __str__(self) -> str:
        return str(self.error.get("message"))

    def said(self) -> str:
        """The error as a clause: where a case expected a result, this is what came."""
        return (f"the server answered {self.method or 'a request'} with the JSON-RPC error "
                f"{self.error.get('code')} {brief(self.error.get('message'), 160)}")


# -- what stops a run before any case ---------------------------------------------------


class TargetError(Exception):
    """The target option does not name a usable server; the message says how to fix it."""


class TableError(Exception):
    """The requirement table, or a case's claim on it, is inconsistent."""


class CatalogError(Exception):
    """The catalog contradicts itself; the message names the entry."""


class BaselineError(Exception):
    """The baseline file cannot be read; the message gives the file and line."""


class DeclarationError(Exception):
    """The not-implemented declaration file cannot be read; the message gives the file and line."""


class Unreachable(Exception):
    """The target cannot be connected to; the message says what was tried."""


class UsageProblem(Exception):
    """The run cannot go on as asked (a bad target, table, baseline or declaration; a
    case claiming a row the table lacks; a target that does not answer)."""


class ReportError(Exception):
    """A directory holds no readable report; the message says what is missing."""
