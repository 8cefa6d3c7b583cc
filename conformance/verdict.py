"""Checks as data: every check names the requirement row it proves.

A case states each thing it checks with `check(row, holds, observed)`:
the row of `requirements.toml`, whether the server did what the row requires,
and what the server did, in words. The run's `Ledger` keeps, per case and
per row, "pass", "fail" or "should not met"; the report then says which rows
a case proved and which it never reached, and every failure reads as one
sentence: the row, what the server did, and what the row requires.

The row's level decides what a failed check does: MUST stops the case
(`CheckFailed`), SHOULD warns (`ShouldNotMet`; under `--conformance-strict`
the plugin turns the warning into a failure), INFORMATIONAL never fails.
A SHOULD covers what docs/behaviour.md asks to be *clear* rather than exact
(error wording), where a different but reasonable server must not be failed.
"""

from __future__ import annotations

import functools
import json
import warnings
from dataclasses import dataclass, field
from typing import Any

from elicit_conformance.requirements import Table
from elicit_conformance.status import Status

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


def unwrapped(error: BaseException) -> BaseException:
    """What a case raised, without the task groups a transport wraps around it: the
    verdict (not testable, timed out, a failed check) if there is one, else a lone cause."""
    if not isinstance(error, BaseExceptionGroup):
        return error
    verdicts = error.subgroup((NotTestable, TimedOut, CheckFailed))
    leaves = _leaves(verdicts or error)
    return unwrapped(leaves[0]) if verdicts is not None or len(leaves) == 1 else error


def _leaves(group: BaseExceptionGroup) -> list[BaseException]:
    return [
        leaf
        for exception in group.exceptions
        for leaf in (_leaves(exception) if isinstance(exception, BaseExceptionGroup) else [exception])
    ]


@dataclass
class Ledger:
    """What one case found, row by row: the first sentence of each row's worst result."""

    table: Table
    rows: dict[str, str] = field(default_factory=dict)
    sentences: dict[str, str] = field(default_factory=dict)
    #: What the case saw that explains a failure it causes elsewhere (a question the
    #: suite could not identify, and so cancelled); added to each failed row's sentence.
    notes: dict[str, str] = field(default_factory=dict)

    def note(self, text: str, about: str) -> None:
        """Note `text`, unless a failure's observation already quotes `about`."""
        self.notes.setdefault(text, about)

    def sentence(self, row: str, observed: str) -> str:
        requirement = self.table.rows.get(row)
        required = f" Required: {requirement.checks}" if requirement else ""
        noted = "".join(f" Note: {text}." for text, about in self.notes.items() if about not in observed)
        return f"{row}: {observed.rstrip('. ')}.{noted}{required}"

    def record(self, row: str, holds: bool, observed: str) -> str | None:
        """Record one check; the sentence when it failed."""
        level = self.table.rows[row].level if row in self.table.rows else "MUST"
        if holds:
            self.rows.setdefault(row, Status.PASS)
            return None
        status = Status.SHOULD_NOT_MET if level == "SHOULD" else Status.FAIL
        sentence = self.sentence(row, observed)
        if self.rows.get(row) != Status.FAIL:
            self.rows[row] = status
            self.sentences.setdefault(row, sentence)
        return sentence


@functools.cache
def _packaged() -> Table:
    return Table.load()


#: The ledger of the case running now: one case at a time per process (an xdist
#: worker is a process), and a case's checks may run on a portal's thread.
_current: Ledger | None = None


def begin(table: Table) -> Ledger:
    """Start the ledger of the next case (the plugin calls this at its setup)."""
    global _current
    _current = Ledger(table)
    return _current


def end() -> None:
    global _current
    _current = None


def current() -> Ledger:
    """The running case's ledger; outside a run, a scratch one on the packaged table."""
    return _current if _current is not None else Ledger(_packaged())


def check(row: str, holds: bool, observed: str) -> None:
    """Check requirement row `row`: `holds` is whether the server did what it
    requires, `observed` what it did ("the body ran 1 time before the question
    was answered"). MUST: a failure stops the case. SHOULD: it warns."""
    ledger = current()
    sentence = ledger.record(row, holds, observed)
    if sentence is None:
        return
    if ledger.rows[row] == Status.SHOULD_NOT_MET:
        warnings.warn(ShouldNotMet(sentence), stacklevel=2)
        return
    raise CheckFailed(row, sentence)


def should(row: str, holds: bool, observed: str) -> None:
    """A check of a row the table must list as SHOULD (it warns, never fails)."""
    if row in current().table.rows and current().table.rows[row].level != "SHOULD":
        raise ValueError(f"{row} is not a SHOULD row")
    check(row, holds, observed)


def brief(value: Any, limit: int = 240) -> str:
    """A server's answer (or any value) as a short, readable quote: long strings elided."""
    text = value if isinstance(value, str) else _json(value)
    if len(text) <= limit:
        return repr(text) if isinstance(value, str) else text
    head = text[: limit - 40]
    elided = f"{head}... ({len(text):,} characters)"
    return repr(elided) if isinstance(value, str) else elided


def _json(value: Any) -> str:
    try:
        return json.dumps(_shorten(value), ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        return repr(value)


def _shorten(value: Any, limit: int = 80) -> Any:
    """Long strings inside a structure elided, so one quote stays one line."""
    if isinstance(value, str):
        return value if len(value) <= limit else f"{value[:limit]}... ({len(value):,} characters)"
    if isinstance(value, dict):
        return {k: _shorten(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shorten(v, limit) for v in value]
    return value
