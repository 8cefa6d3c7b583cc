"""Checks as data: every check names the requirement row it proves.

A case states each thing it checks with `check(row, holds, observed)`:
the row of `requirements.toml`, whether the server did what the row requires,
and what the server did, in words. The case's `Ledger` keeps, per
row, "pass", "fail" or "should not met"; the report then says which rows
a case proved and which it never reached, and every failure reads as one
sentence: the row, what the server did, and what the row requires.

The row's level decides what a failed check does: MUST stops the case
(`CheckFailed`), SHOULD warns (`ShouldNotMet`; under `--conformance-strict`
the plugin turns the warning into a failure), INFORMATIONAL never fails.
A SHOULD covers what docs/behaviour.md asks to be *clear* rather than exact
(error wording), where a different but reasonable server must not be failed.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from elicit_conformance.exceptions import CheckFailed, NotTestable, ShouldNotMet, TimedOut
from elicit_conformance.requirements import Table
from elicit_conformance.status import Status


def innermost(error: BaseException) -> BaseException:
    """The first cause, without the task groups wrapped around it."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


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


#: The ledger recording now: the running case's, which its fixture owns and sets for
#: the case's duration (`recording`). One case runs at a time per process (an xdist
#: worker is a process). A pointer, not a context variable: a case's checks may run on
#: a blocking portal's thread, which starts with a context of its own.
_recording: Ledger | None = None


@contextmanager
def recording(ledger: Ledger) -> Iterator[Ledger]:
    """Record in `ledger` every check made while the block runs."""
    global _recording
    previous, _recording = _recording, ledger
    try:
        yield ledger
    finally:
        _recording = previous


def current() -> Ledger:
    """The running case's ledger.

    Raises:
        RuntimeError: no ledger is recording: a check made outside a case (or outside a
            `recording` block a tool opens for its own checks) would be judged nowhere.
    """
    if _recording is None:
        raise RuntimeError("a check was made outside a case: its verdict would be recorded nowhere; run it "
                           "in a case, or inside `with verdict.recording(Ledger(table)):`")
    return _recording


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
