"""Every status a verdict carries, from one check to every report: one enumeration.

A case ends as one of the first ten, worst first (the order every summary lists them
in). A row, within a case, reads as pass, fail or should not met where the case
checked it; where it never reached the check, as why: its case's status, "not
reached" (the case stopped earlier) or "not evaluated" (the case passed without the
check applying); an INFO row as "recorded" once its fact is.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    FAIL = "fail"
    TIMED_OUT = "timed out"
    NOT_TESTABLE = "not testable"
    STALE = "stale baseline"
    EXPECTED = "expected failure"
    #: A SHOULD row's check did not hold (its case still passes, unless strict).
    SHOULD_NOT_MET = "should not met"
    PASS = "pass"
    NOT_IMPLEMENTED = "not implemented"
    SKIPPED = "skipped"
    NOT_RUN = "not run"
    NOT_REACHED = "not reached"
    NOT_EVALUATED = "not evaluated"
    RECORDED = "recorded"


#: What a row alone can read as: a case never ends as one of these.
ROW_ONLY = (Status.SHOULD_NOT_MET, Status.NOT_REACHED, Status.NOT_EVALUATED, Status.RECORDED)
