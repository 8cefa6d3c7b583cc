"""What a conformance run prints: a failure as its one sentence (`Said`, where pytest would
print a traceback) and the run's summary lines (`elicit_conformance.run.summary`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from elicit_conformance.run.summary import Line


@dataclass
class _Where:
    """What pytest reads of a failure's location: its short summary shows `message`."""

    path: str
    lineno: int
    message: str


class Said:
    """A failure report that is one sentence, where pytest would print a traceback."""

    def __init__(self, sentence: str, location: tuple[str, int | None, str]) -> None:
        self.sentence = sentence
        self.reprcrash = _Where(location[0], location[1] or 0, sentence)

    def toterminal(self, out: Any) -> None:
        out.line(self.sentence)

    def __str__(self) -> str:
        return self.sentence


def dress(report: pytest.TestReport, sentence: str | None, stderr: str) -> None:
    """A failed case's report: its sentence for the whole verdict (no traceback of the
    suite's own code), and what a stdio server wrote to stderr while it ran. The log
    lines pytest captured are the MCP client's and the framework's, already in the
    run's client log (`elicit_conformance.run.client_log`): not repeated here."""
    if sentence is not None:
        report.longrepr = Said(sentence, report.location)
    report.sections = [(title, text) for title, text in report.sections if not title.startswith("Captured log")]
    if stderr:
        report.sections.append(("the stdio server's stderr while the case ran", stderr))


def shortened(report: pytest.TestReport, said: tuple[str, list[str]] | None) -> None:
    """Once a failure's report was logged (JUnit's `message` holds the whole sentence),
    what pytest's short summary line quotes (`reprcrash.message`, whole on CI) becomes
    the rows that failed: the sentence is printed once, in the failure's own section.
    `said` is the case's verdict (its sentence and failed rows, `Session.said`), None for a
    failure that is not one. From an xdist worker the sentence arrives as text; it is made
    a `Said` again."""
    if not report.failed or said is None:
        return
    sentence, rows = said
    if report.longrepr == sentence:
        report.longrepr = Said(sentence, report.location)
    if isinstance(report.longrepr, Said):
        report.longrepr.reprcrash.message = ", ".join(rows) if rows else "its sentence is above"


def write(terminalreporter: pytest.TerminalReporter, lines: list[Line]) -> None:
    if lines:
        terminalreporter.section("elicit-conformance")
    for line in lines:
        terminalreporter.line(line.text, **({line.colour: True} if line.colour else {}))


def first_line(report: pytest.TestReport) -> str:
    """A failure's sentence, or its first line in pytest's own words."""
    if isinstance(report.longrepr, Said):
        return report.longrepr.sentence
    crash = getattr(report.longrepr, "reprcrash", None)
    text = (crash.message if crash is not None else str(report.longrepr)).strip()
    return text.splitlines()[0] if text else "failed"


def skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    return str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr)
