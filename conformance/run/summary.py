"""What the end of a run says on the terminal, as lines (each with its colour), so the
plugin only prints them and the wording is tested without a terminal."""

from __future__ import annotations

from typing import NamedTuple

from elicit_conformance.status import Status
from elicit_conformance.reporting.report import Outcome
from elicit_conformance.reporting.snapshot import Found

from .session import Session


class Line(NamedTuple):
    text: str
    #: "red", "green" or "" (the terminal's own colour).
    colour: str = ""


def summary(session: Session, update_snapshots: bool = False, sentences_above: bool = False) -> list[Line]:
    """The run's verdicts rolled up (a line per cause, its cases in the report), each
    failure (its sentence, unless pytest printed it above: `sentences_above`), each
    SHOULD not met, the run-level problems, what changed on the wire, and where the
    reports went."""
    report = session.report
    if not report.outcomes and not report.problems:
        return []
    lines = [Line(report.headline())]
    lines += [Line(f"  {rolled.said(ids=False)}", "red" if rolled.status == Status.NOT_TESTABLE else "")
              for rolled in report.rolled_up()]
    for outcome in report.outcomes.values():
        if outcome.status in (Status.FAIL, Status.TIMED_OUT, Status.STALE):
            # pytest prints a failure's sentence in its section; a case timed out, or a
            # stale baseline entry, it reports under no section: their sentence is only here.
            said = _failed_rows(outcome) if sentences_above and outcome.status == Status.FAIL else outcome.message
            lines.append(Line(f"  {outcome.status.upper()}: {outcome.test_id}: {said}", "red"))
        lines += [Line(f"  SHOULD not met: {note}  ({outcome.test_id})") for note in outcome.should_not_met]
    lines += [Line(f"  FAILED: {problem}", "red") for problem in report.problems]
    if session.golden is not None:
        lines += _golden(session)
    elif update_snapshots:
        lines.append(Line("  --snapshot-update wrote nothing: this target has no golden transcripts yet; "
                          "name their directory with --conformance-snapshots=DIR", "red"))
    if session.report_dir is not None:
        lines.append(Line(f"  report: {session.report_dir / 'summary.md'}"))
    if session.write_baseline is not None:
        lines.append(Line(f"  baseline written: {session.write_baseline}"))
    return lines


def _failed_rows(outcome: Outcome) -> str:
    """The rows a failed case failed, where its sentence above begins."""
    return ", ".join(outcome.failed_rows() or [outcome.case]) + " (its sentence is above)"


def _golden(session: Session) -> list[Line]:
    """What changed on the wire, apart from the verdicts: each change as a diff."""
    report, golden = session.report, session.golden
    assert golden is not None
    lines = [Line(f"  {report.golden_summary()} (in {golden.directory})", "red" if report.behaviour_changed else "")]
    for o in sorted(report.golden(Found.CHANGED), key=lambda o: o.test_id):
        lines.append(Line(f"  CHANGED: {o.test_id} (verdict: {o.status}): its transcript differs "
                          f"from {o.golden}; if the change is meant, run again with --snapshot-update", "red"))
        lines += [Line(f"    {line}", {"-": "red", "+": "green"}.get(line[:1], ""))
                  for line in o.golden_diff.splitlines()]
    missing = sorted(report.golden(Found.MISSING), key=lambda o: o.test_id)
    lines += [Line(f"  NO GOLDEN TRANSCRIPT: {o.test_id}: {o.golden} does not exist; "
                   "write it with --snapshot-update", "red") for o in missing[:5]]
    if len(missing) > 5:
        where = session.report_dir / "changes.md" if session.report_dir else "changes.md of --conformance-report=DIR"
        lines.append(Line(f"  ... and {len(missing) - 5} more cases with no golden transcript ({where} "
                          "lists them all)", "red"))
    if report.unused_golden and not report.unused_removed:
        lines.append(Line(f"  UNUSED: {len(report.unused_golden)} golden transcript(s) belong to no case that "
                          "keeps one (renamed, removed, or marked transcript_varies) "
                          f"({', '.join(report.unused_golden[:5])}); --snapshot-update removes them", "red"))
    if report.behaviour_changed and session.report_dir is not None:
        lines.append(Line(f"  the changes, for a pull request: {session.report_dir / 'changes.md'}"))
    return lines
