"""How a case's ending reads: its status and sentence (`judged`), and what it found
for each row it claims (`row_results`). Pure functions of what the case raised and
what its ledger recorded."""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any

from elicit_conformance import verdict
from elicit_conformance.exceptions import Broken, CheckFailed, NotTestable, RpcError, ShouldNotMet, TimedOut
from elicit_conformance.grading import wire_schema
from elicit_conformance.quoting import brief
from elicit_conformance.reporting.report import Outcome
from elicit_conformance.status import Status


def judged(error: BaseException | None, first_row: str) -> tuple[Status, str | None]:
    """A failed case's status and its sentence; None where the suite has no sentence
    (`error` None: the test runner's own failure, which keeps its report)."""
    if isinstance(error, NotTestable):
        return Status.NOT_TESTABLE, str(error)
    if isinstance(error, TimedOut):
        return Status.TIMED_OUT, str(error)
    if isinstance(error, Broken):
        return Status.FAIL, f"{first_row}: {error.sentence.rstrip('. ')}."
    if isinstance(error, RpcError):  # an error where the case needed a result
        return Status.FAIL, f"{first_row}: {error.said()}, where the case needed a result."
    if isinstance(error, (CheckFailed, ShouldNotMet)):  # a SHOULD under --conformance-strict
        return Status.FAIL, str(error)
    if error is None:
        return Status.FAIL, None
    return Status.FAIL, (
        f"internal error of elicit-conformance, not a verdict on the server: {type(error).__name__} "
        f"({brief(str(error), 160)}) at {_suite_frame(error)}. Please report it with this case's transcript."
    )


#: The row that judges a case's messages by the revision's schema: its sentence says already
#: what `noted` would add.
SCHEMA_ROW = "WIR-1"


def noted(sentence: str, error: BaseException | None, messages: list[tuple[str, dict[str, Any]]],
          revision: str | None) -> str:
    """The sentence of a failure (`error`), with the first result of the case that is not
    what its `resultType` says it is, by the revision's schema, named after it: a malformed
    result explains a failure better than what the case made of it."""
    if revision is None or (isinstance(error, CheckFailed) and error.row == SCHEMA_ROW):
        return sentence
    first = next(iter(wire_schema.result_problems(messages, revision)), None)
    return sentence if first is None else f"{sentence} Note: {first}."


def _suite_frame(error: BaseException) -> str:
    """The innermost frame of the suite's own code that the error passed through."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if "elicit_conformance" in f.filename
              or "/conformance/" in f.filename]
    frame = frames[-1] if frames else None
    return f"{Path(frame.filename).name}:{frame.lineno}" if frame else "an unknown place"


#: A row the case never reached, by the case's status: why it proved nothing of it.
_UNREACHED = {
    Status.NOT_TESTABLE: Status.NOT_TESTABLE, Status.NOT_IMPLEMENTED: Status.NOT_IMPLEMENTED,
    Status.TIMED_OUT: Status.TIMED_OUT, Status.SKIPPED: Status.SKIPPED, Status.PASS: Status.NOT_EVALUATED,
    Status.STALE: Status.NOT_EVALUATED,
}


#: A case that ended so stopped at its first failing check, before the checks after it
#: (not a SHOULD failed under --conformance-strict: that is judged once every check ran).
_STOPPED = (Status.FAIL, Status.TIMED_OUT, Status.EXPECTED)


def row_results(outcome: Outcome, ledger: verdict.Ledger | None, error: BaseException | None) -> dict[str, dict[str, str]]:
    """What the case found for each row it claims (docs/reading.md, "The conformance report").

    A row the case checked reads as its worst check; a row it never reached reads
    as why: the case was not testable, timed out, failed earlier, or passed without
    the check ever applying ("not evaluated", e.g. a SHOULD about an error that
    never came). A row whose checks held until the case stopped at another row's
    failure reads "not reached", never "pass": its later checks never ran."""
    found = dict(ledger.rows) if ledger else {}
    sentences = dict(ledger.sentences) if ledger else {}
    first = outcome.checks[0]
    if isinstance(error, (Broken, RpcError)):
        found[first], sentences[first] = Status.FAIL, outcome.message
    elif isinstance(error, ShouldNotMet) and ledger:  # strict: the SHOULD failed its case
        for row, status in found.items():
            if status == Status.SHOULD_NOT_MET:
                found[row] = Status.FAIL
    unreached = _UNREACHED.get(outcome.status, Status.NOT_REACHED)
    results = {}
    for row in outcome.checks:
        if row.startswith("INFO/"):
            results[row] = {"status": str(Status.RECORDED if row in outcome.facts else unreached)}
            continue
        status = found.get(row, unreached)
        if status == Status.PASS and outcome.status in (Status.NOT_TESTABLE, Status.NOT_IMPLEMENTED):
            # Checks passed before the case stopped prove the row only in part: it reads as the case.
            status = outcome.status
        elif status == Status.PASS and outcome.status in _STOPPED and not isinstance(error, ShouldNotMet):
            # The case stopped at another row's failure: this row's checks after it never ran.
            status = Status.NOT_REACHED
        if status == Status.FAIL and outcome.status == Status.EXPECTED:
            status = Status.EXPECTED
        result = {"status": str(status)}
        if row in sentences:
            result["message"] = sentences[row]
        elif status in (Status.NOT_TESTABLE, Status.NOT_IMPLEMENTED, Status.TIMED_OUT, Status.SKIPPED):
            result["message"] = outcome.message
        results[row] = result
    return results
