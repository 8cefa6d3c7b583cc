"""One conformance run, free of pytest: its target, table, baseline and report.

The plugin hands the session what pytest collected (`plan`), each phase of each
case as it ends (`ended`), and the end of the run (`finish`); the session grades,
applies the baseline, compares golden transcripts and writes the reports. Under
pytest-xdist each worker holds a session of its own and the controller one that
only hears verdicts (`received`, `merged`); the plugin's module docstring says how.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import anyio

from elicit_conformance import unimplemented, verdict
from elicit_conformance.catalog import load
from elicit_conformance.connection.reach import list_tools
from elicit_conformance.connection.target import Target
from elicit_conformance.exceptions import (
    BaselineError,
    DeclarationError,
    NotOffered,
    NotTestable,
    ShouldNotMet,
    TableError,
    TargetError,
    Unreachable,
    UsageProblem,
)
from elicit_conformance.harness.case import Case
from elicit_conformance.reporting import baseline as baseline_module
from elicit_conformance.reporting import html
from elicit_conformance.reporting.report import FAILING, TRANSPORTS, Outcome, Report
from elicit_conformance.reporting.snapshot import Golden, render
from elicit_conformance.requirements import Table
from elicit_conformance.revisions import ALL, ERAS
from elicit_conformance.status import Status

from .client_log import ClientLog
from .events import Ended, Planned
from .judging import judged, noted, row_results
from .settings import Settings, golden_of, target_of
from .sides import cases_of, check_one_side, table_of

#: What a case that ended as one of these statuses shows as: its letter and word.
_SHOWN = {Status.NOT_TESTABLE: ("N", "NOT TESTABLE"), Status.TIMED_OUT: ("T", "TIMED OUT")}


@dataclass(eq=False)
class Session:
    """What one run found, case by case, and what it was asked to judge against."""

    target: Target
    table: Table
    revisions: tuple[str, ...]
    baseline: list[baseline_module.Entry]
    #: Tools the target declares it does not implement, with the reason it gives.
    not_implemented: dict[str, str]
    report_dir: Path | None = None
    write_baseline: Path | None = None
    write_not_implemented: Path | None = None
    golden: Golden | None = None
    strict: bool = False
    timeout: float = 8.0
    #: Unique per run, so server-side records (body runs, profiles) never collide.
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:10])
    report: Report = field(init=False)
    #: Cases the baseline expects to fail, with the reasons its entries give.
    baselined: dict[str, list[baseline_module.Entry]] = field(init=False, default_factory=dict)
    _cases: Iterator[int] = field(default_factory=itertools.count, init=False, repr=False)
    #: Per running case: how far each stdio log was, why it is not implemented.
    _marks: dict[str, dict[Path, int]] = field(init=False, default_factory=dict, repr=False)
    _declared: dict[str, str] = field(init=False, default_factory=dict, repr=False)
    #: Per planned case: the tools it declares.
    _tools: dict[str, tuple[str, ...]] = field(init=False, default_factory=dict, repr=False)
    #: Where the MCP client's and the framework's log lines go while the run lasts.
    client_log: ClientLog | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.report = Report(self.target.spec, self.revisions, TRANSPORTS[self.target.kind])

    @classmethod
    def open(cls, settings: Settings) -> Session:
        """The session `settings` ask for; a bad target, table, baseline or declaration
        is a `UsageProblem`."""
        try:
            target = target_of(settings)
            table = Table.load(settings.requirements or table_of(target))
            entries = baseline_module.read(settings.baseline, set(table.rows), ERAS) if settings.baseline else []
            declared = unimplemented.read(settings.not_implemented, set(load().tools)) if settings.not_implemented else {}
        except (TargetError, TableError, BaselineError, DeclarationError) as error:
            raise UsageProblem(str(error)) from None
        if target.servers is not None:
            target.servers.startup = settings.startup
            if settings.report_dir is not None:
                target.servers.use_log_directory(settings.report_dir / "stdio")
        return cls(
            target=target, table=table, revisions=ERAS if settings.revision in (None, ALL) else (settings.revision,),
            baseline=entries, not_implemented=declared, report_dir=settings.report_dir,
            write_baseline=settings.write_baseline, write_not_implemented=settings.write_not_implemented,
            golden=golden_of(settings, target), strict=settings.strict,
            timeout=settings.timeout,
            client_log=ClientLog(settings.report_dir / "client" if settings.report_dir is not None else None),
        )

    def case_id(self) -> str:
        """The id a case puts in its refs: unique to the case, so no case reads what
        another left on the server (in whatever order, on whichever worker, they run)."""
        return f"{self.run_id}-{next(self._cases)}"

    def header(self) -> list[str]:
        lines = [
            f"elicit-conformance target: {self.target.spec} (from {self.target.source})",
            (
                f"elicit-conformance revisions: {', '.join(self.revisions)}; "
                f"SHOULD {'fails (--conformance-strict)' if self.strict else 'warns'}; "
                f"timeout {self.timeout:g} s per request"
            ),
        ]
        if self.baseline:
            lines.append(f"elicit-conformance baseline: {len(self.baseline)} expected failure(s)")
        if self.not_implemented:
            lines.append(f"elicit-conformance: {len(self.not_implemented)} tool(s) declared not implemented")
        if self.target.servers is not None:
            lines.append(f"elicit-conformance stdio: start-up allowance {self.target.servers.startup:g} s; "
                         "each process's stderr is logged beside the report (quoted where a case fails)")
        return lines

    # -- collection: grading, revisions, baseline ------------------------------

    def plan(self, collected: list[Planned]) -> list[str]:
        """Give each case its outcome row and baseline marks; the cases of revisions
        this run leaves out (their node ids), to drop. Row coverage, stale entries and
        unused golden files are judged only on the whole suite, before any is left out."""
        claims = [case for case in collected if case.checks]
        check_one_side(self.target, [case.path for case in claims])
        try:
            self.table.check_claims({case.nodeid: case.checks for case in claims})
        except TableError as error:
            raise UsageProblem(str(error)) from None
        whole = set(cases_of(self.target).glob("test_*.py")) <= {case.path for case in collected}
        if whole and (uncovered := self.table.uncovered(i for case in claims for i in case.checks)):
            self.report.problems.append(
                "requirement rows with no case (add a case, or exclude the row with a "
                f"reason): {', '.join(uncovered)}"
            )
        matched: set[baseline_module.Entry] = set()
        dropped = []
        for case in claims:
            entries = {e for e in self.baseline if e.covers(case.name, case.checks, case.revision)}
            matched |= entries
            if case.revision not in (None, *self.revisions):
                dropped.append(case.nodeid)
                continue
            self.report.outcomes[case.nodeid] = Outcome(
                case.nodeid, case.name, list(case.checks), case.revision, self.table.level(case.checks),
                sources={row: self.table.source_of(row) for row in case.checks})
            self._tools[case.nodeid] = case.tools
            if entries:
                self.baselined[case.nodeid] = sorted(entries, key=lambda entry: entry.line)
        if whole:
            self.report.problems += [
                f"stale baseline entry (line {entry.line}): {entry.label} matches no case"
                for entry in self.baseline
                if entry not in matched
            ]
            if self.golden is not None:
                self.report.unused_golden = self.golden.unused(case.nodeid for case in collected if case.keeps_golden)
        return dropped

    def properties(self, nodeid: str) -> list[tuple[str, str]]:
        """A planned case's properties for JUnit: its rows, level, revision and where
        each row comes from, so a failure in a CI's test view links to its sentence."""
        outcome = self.report.outcomes[nodeid]
        return [
            ("case", outcome.checks[0]), ("checks", " ".join(outcome.checks)),
            ("level", outcome.level), ("revision", outcome.revision or "n/a"),
            *((f"source {row}", source.get("url") or f"feature contract: {source.get('promise')}")
              for row, source in outcome.sources.items()),
        ]

    def deselected(self, nodeids: list[str]) -> None:
        """-k, -m and --revision leave cases out of the run, and so out of the report."""
        for nodeid in nodeids:
            self.report.outcomes.pop(nodeid, None)

    def runs_any(self, nodeids: list[str]) -> bool:
        return any(nodeid in self.report.outcomes for nodeid in nodeids)

    # -- before the first case: is the target there at all? ---------------------

    def reach(self) -> None:
        """List the target's tools; a target that does not answer is a `UsageProblem`.
        A client is reached by its cases (its command was found when the target was named)."""
        if self.target.is_client:
            return
        try:
            self.target.tools["names"] = anyio.run(list_tools, self.target, self.timeout)
        except Unreachable as error:
            self.report.outcomes.clear()  # nothing ran: the usage error is the whole story
            raise UsageProblem(str(error)) from None
        self.report.problems += [
            f"stale not-implemented line: the target lists {tool!r}, declared not implemented "
            f"({reason}); remove the line so its cases run"
            for tool, reason in self.not_implemented.items() if tool in self.target.tools["names"]
        ]

    # -- running -------------------------------------------------------------------

    def started(self, nodeid: str) -> None:
        """A planned case starts: each stdio log's place is marked, the client log headed."""
        if self.client_log is not None:
            self.client_log.case(nodeid)
        if nodeid in self.report.outcomes and self.target.servers is not None:
            self._marks[nodeid] = self.target.servers.log_marks()

    def declared_missing(self, nodeid: str, error: NotTestable) -> str | None:
        """Why a case that lacks only tools the target declares not implemented, or an
        extension it does not advertise, is skipped; None where it is not."""
        if nodeid not in self.report.outcomes:
            return None
        if isinstance(error, NotOffered):
            self._declared[nodeid] = error.cause
            return f"not implemented (not advertised): {error.args[0]}"
        if not error.tools or not self.not_implemented:
            return None
        undeclared = [tool for tool in error.tools if tool not in self.not_implemented]
        if undeclared:
            error.cause = f"{undeclared[0]} missing"
            return None
        tool = error.tools[0]
        self._declared[nodeid] = f"{tool} not implemented"
        return f"not implemented (declared): {tool}: {self.not_implemented[tool]}"

    def strictly_failed(self, nodeid: str, ledger: verdict.Ledger | None) -> ShouldNotMet | None:
        """Under --conformance-strict, a planned case whose SHOULD row was not met fails
        with that row's sentence, after every other check of the case was judged (a SHOULD
        only warns as it happens, so no check after it goes unjudged)."""
        if not self.strict or ledger is None or nodeid not in self.report.outcomes:
            return None
        unmet = [row for row, status in ledger.rows.items() if status == Status.SHOULD_NOT_MET]
        return ShouldNotMet(ledger.sentences[unmet[0]]) if unmet else None

    def _judged(self, error: BaseException | None, outcome: Outcome, case: Case | None) -> tuple[Status, str | None]:
        """`judged`, the sentence of a failure followed by the first message of the case
        its revision's schema refuses, where there is one."""
        status, sentence = judged(error, outcome.checks[0])
        if status == Status.FAIL and sentence is not None and case is not None:
            sentence = noted(sentence, error, case.transcript.messages, outcome.revision)
        return status, sentence

    def called(self, nodeid: str, case: Case | None) -> list[tuple[str, str]]:
        """The facts a case recorded (INFO rows), kept on its outcome; as properties."""
        outcome = self.report.outcomes.get(nodeid)
        if outcome is None or case is None:
            return []
        outcome.facts.update(case.facts)
        outcome.rounds = case.rounds
        return [(key, str(value)) for key, value in case.facts.items()]

    def ended(self, phase: Ended, case: Case | None, ledger: verdict.Ledger | None) -> tuple[str | None, str]:
        """Grade one phase of a case from what it raised and what its ledger recorded:
        its sentence (where it failed with one) and the stdio server's stderr while it
        ran (where it failed)."""
        outcome = self.report.outcomes.get(phase.nodeid)
        if outcome is None:
            return None, ""
        outcome.duration = round(outcome.duration + phase.duration, 4)
        sentence, quoted = None, ""
        if phase.when == "call" and not phase.raised and phase.nodeid in self.baselined:
            outcome.status = Status.STALE  # a baselined case passed: the runner reports XPASS(strict)
            outcome.message = (f"passes now: remove its baseline entry, which expected it to fail "
                               f"({self.baselined[phase.nodeid][-1].said})")
        elif phase.result == "failed":
            status, sentence = self._judged(phase.error, outcome, case)
            if outcome.status != Status.FAIL:
                outcome.status, outcome.message = status, sentence or phase.message
                outcome.cause = phase.error.cause if isinstance(phase.error, NotTestable) else ""
                outcome.missing = list(phase.error.tools) if isinstance(phase.error, NotTestable) else []
            if self.target.servers is not None and phase.nodeid in self._marks:
                quoted = self.target.servers.stderr_since(self._marks[phase.nodeid])
        elif phase.result == "skipped" and phase.xfail is not None:
            outcome.status, outcome.message = Status.EXPECTED, phase.xfail
            outcome.expected_because = self.baselined[phase.nodeid][-1].reason
        elif phase.result == "skipped" and phase.nodeid in self._declared:
            outcome.status, outcome.message = Status.NOT_IMPLEMENTED, phase.message
            outcome.cause = self._declared[phase.nodeid]
        elif phase.result == "skipped":
            outcome.status, outcome.message = Status.SKIPPED, phase.message
        elif phase.when == "call" and outcome.status == Status.NOT_RUN:
            outcome.status = Status.PASS
        if phase.when == "call" or phase.result != "passed":
            outcome.rows = row_results(outcome, ledger, phase.error)
        if phase.when == "teardown":
            self._kept(outcome, case)
            self._undeclared(outcome, case, ledger)
            self._marks.pop(phase.nodeid, None)
        return sentence, quoted

    def _undeclared(self, outcome: Outcome, case: Case | None, ledger: verdict.Ledger | None) -> None:
        """A case that checks a row it does not claim, or calls a catalog tool it does not
        declare, fails the run: the report and the contract (docs/contract.md) read what
        each case declares."""
        unclaimed = sorted(set(ledger.rows) - set(outcome.checks)) if ledger else []
        if unclaimed:
            self._problem(f"{outcome.nodeid} checks {', '.join(unclaimed)} without claiming it: "
                          "add it to the case's @pytest.mark.checks")
        # A client case calls the scenario server's tools, not the catalog's.
        called = case.tools_called() & set(load().tools) if case and not self.target.is_client else set()
        if undeclared := sorted(called - set(self._tools[outcome.nodeid])):
            self._problem(f"{outcome.nodeid} calls {', '.join(undeclared)} without declaring it: add it "
                          "to the case's @pytest.mark.tools")

    def _problem(self, problem: str) -> None:
        """A run-level problem, said once however often it is found."""
        if problem not in self.report.problems:
            self.report.problems.append(problem)

    def _kept(self, outcome: Outcome, case: Case | None) -> None:
        """The case's transcript, written to the report and compared with its golden file."""
        if case is None or not case.transcript.messages:
            return
        outcome.pinned = case.pinned
        lines = case.normalized()
        if self.report_dir is not None:
            self.report.write_transcript(self.report_dir, outcome, lines)
        # A timed-out case stopped wherever the clock did: its transcript proves nothing.
        if self.golden is not None and case.pinned and outcome.status != Status.TIMED_OUT:
            compared = self.golden.compare(outcome.nodeid, render(lines))
            outcome.golden, outcome.golden_found, outcome.golden_diff = compared.file, compared.found.value, compared.diff

    def warned(self, nodeid: str, message: str) -> None:
        """A SHOULD row that was not met (the case still passes unless strict)."""
        if nodeid in self.report.outcomes:
            self.report.outcomes[nodeid].should_not_met.append(message)

    def said(self, nodeid: str) -> tuple[str, list[str]] | None:
        """A failed case's sentence and the rows it failed by, as data (None: it has none)."""
        if (outcome := self.report.outcomes.get(nodeid)) and outcome.status in FAILING and outcome.message:
            return outcome.message, outcome.failed_rows()
        return None

    def shown(self, nodeid: str, failed: bool) -> tuple[Status, str, str] | None:
        """How a failed case shows where "F" would hide what it is: 'not testable', 'timed out'."""
        outcome = self.report.outcomes.get(nodeid)
        return (outcome.status, *_SHOWN[outcome.status]) if failed and outcome and outcome.status in _SHOWN else None

    # -- across xdist workers ---------------------------------------------------------

    def verdict_of(self, nodeid: str) -> dict[str, Any] | None:
        """A case's outcome as data, for a worker to send with the case's report."""
        return outcome.to_data() if (outcome := self.report.outcomes.get(nodeid)) is not None else None

    def received(self, nodeid: str, data: dict[str, Any]) -> None:
        """On the controller: a case's outcome, as a worker sent it."""
        self.report.outcomes[nodeid] = Outcome.from_data(data)

    def worker_output(self) -> dict[str, Any]:
        """A worker's run-level findings, judged on the whole suite it collected."""
        return {"problems": self.report.problems, "unused_golden": self.report.unused_golden}

    def merged(self, output: dict[str, Any]) -> None:
        """On the controller: a worker's run-level findings (every worker judges the same)."""
        self.report.problems += [p for p in dict.fromkeys(output.get("problems", [])) if p not in self.report.problems]
        self.report.unused_golden = output.get("unused_golden", []) or self.report.unused_golden

    # -- the end ------------------------------------------------------------------------

    def finish(self) -> bool:
        """Write the reports and the baseline; whether the run fails apart from its cases
        (a run-level problem, a run that proved nothing, a transcript that changed)."""
        if self.golden is not None and self.golden.update and self.report.unused_golden:
            self.golden.remove(self.report.unused_golden)
            self.report.unused_removed = True
        if self.report_dir is not None and self.report.outcomes:
            self.report.write(self.report_dir, self.table)
            (self.report_dir / "index.html").write_text(html.page(self.report, self.table, self.report_dir),
                                                        encoding="utf-8")
        about = f"{date.today().isoformat()}, against {self.target.spec}"
        if self.write_baseline is not None:
            self.write_baseline.write_text(self.report.baseline(about, self.write_not_implemented is not None))
        if self.write_not_implemented is not None:
            listed = self.target.tools.get("names", frozenset())  # a declared tool it lists is a stale line
            still = {tool: why for tool, why in self.not_implemented.items() if tool not in listed}
            self.write_not_implemented.write_text(self.report.not_implemented(about, still))
        return bool(self.report.problems or self.report.proved_nothing or self.report.behaviour_changed)

    def close(self) -> None:
        self.target.close()
        if self.client_log is not None:
            self.client_log.close()

