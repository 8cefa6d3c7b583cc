"""A conformance run's hooks: target, grading, baseline, reachability, report.

Registered by the entry point (`conformance.plugin`) only for a conformance
run. Every case claims requirement rows (`@pytest.mark.checks`); this plugin
turns what pytest saw into a verdict per case, applies the baseline, and
writes the report.

Under pytest-xdist (`-n auto`) each worker collects every case, so row
coverage and stale baseline entries are judged on the whole suite there and
sent up once; each case's verdict travels to the controller on its test
report, and the controller alone writes the one report and the baseline.
"""

from __future__ import annotations

import itertools
import os
import sys
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
import pytest

import elicit_conformance.cases
from elicit_conformance import unimplemented, verdict
from elicit_conformance.catalog import load
from elicit_conformance.connection.reach import Unreachable, list_tools
from elicit_conformance.connection.target import (
    DEFAULT_SPEC,
    Target,
    TargetError,
    command_target,
    load_target,
)
from elicit_conformance.connection.wire import RpcError
from elicit_conformance.harness.case import Case
from elicit_conformance.limits import DEFAULT_STARTUP, DEFAULT_TIMEOUT
from elicit_conformance.reporting import baseline as baseline_module
from elicit_conformance.reporting.report import NOT_EVALUATED, NOT_REACHED, Outcome, Report, Status
from elicit_conformance.reporting.snapshot import Found, Golden, render
from elicit_conformance.requirements import Table, TableError
from elicit_conformance.revisions import ALL, ERAS
from elicit_conformance.verdict import Broken, CheckFailed, NotOffered, NotTestable, ShouldNotMet, TimedOut

ENV_VAR = "ELICIT_SERVER"
NAME = "elicit-conformance-run"
CASE = pytest.StashKey[Case]()
LEDGER = pytest.StashKey[verdict.Ledger]()
#: A case that needs only tools the target declares not implemented: the cause.
DECLARED = pytest.StashKey[str]()
#: How far each stdio log was written when the case started.
STDERR = pytest.StashKey[dict[Path, int]]()
#: The attribute carrying a case's verdict on its test report, to the xdist controller.
VERDICT = "elicit_conformance_verdict"
#: The key of a worker's run-level problems in its xdist `workeroutput`.
PROBLEMS = "elicit_conformance_problems"
#: The key of a worker's unused golden transcripts in its xdist `workeroutput`.
UNUSED = "elicit_conformance_unused_golden"
#: What pytest prints for a case that ended as one of these statuses.
_SHOWN = {Status.NOT_TESTABLE: ("N", "NOT TESTABLE"), Status.TIMED_OUT: ("T", "TIMED OUT")}


def activate(config: pytest.Config) -> None:
    """Register the run's plugin; a bad target, table or baseline is a usage error."""
    if config.pluginmanager.has_plugin(NAME):
        return
    config.addinivalue_line("markers", "checks(*ids): requirement-table rows the case checks")
    config.addinivalue_line("markers", "revisions(*revisions): the only revisions the case applies to")
    config.addinivalue_line("markers", "transcript_varies(why): the case's transcript has no golden file")
    revision = config.getoption("revision") or ALL
    try:
        target = _chosen(config)
        table_path = config.getini("elicit_requirements")
        table = Table.load(config.rootpath / table_path if table_path else None)
        baseline_path = config.getoption("conformance_baseline")
        entries = baseline_module.read(baseline_path, set(table.rows), ERAS) if baseline_path else []
        declared_path = config.getoption("conformance_not_implemented") or config.getini("elicit_not_implemented")
        declared = unimplemented.read(Path(declared_path), set(load().tools)) if declared_path else {}
    except (TargetError, TableError, baseline_module.BaselineError, unimplemented.DeclarationError) as error:
        raise pytest.UsageError(str(error)) from None
    if target.servers is not None:
        target.servers.startup = config.getoption("conformance_startup") or DEFAULT_STARTUP
        if (report := config.getoption("conformance_report")) is not None:
            target.servers.use_log_directory(Path(report) / "stdio")
    config.pluginmanager.register(
        ConformanceRun(
            target=target,
            table=table,
            revisions=ERAS if revision == ALL else (revision,),
            baseline=entries,
            not_implemented=declared,
            report_dir=config.getoption("conformance_report"),
            write_baseline=config.getoption("conformance_write_baseline"),
            golden=_golden(config, target),
            strict=bool(config.getoption("conformance_strict")),
            timeout=config.getoption("conformance_timeout") or DEFAULT_TIMEOUT,
        ),
        NAME,
    )


def _golden(config: pytest.Config, target: Target) -> Golden | None:
    """Where the target's golden transcripts are kept: `--conformance-snapshots` (or the
    `elicit_snapshots` ini key, relative to the rootdir); the bundled reference's own
    for the reference in-process, or served elsewhere with `--golden-transcripts`."""
    update = bool(config.getoption("update_snapshots", default=False))
    if directory := config.getoption("conformance_snapshots"):
        return Golden(Path(directory), update)
    if directory := config.getini("elicit_snapshots"):
        return Golden(config.rootpath / str(directory), update)
    if config.getoption("golden_transcripts") or (target.is_reference and target.kind == "module"):
        return Golden(Path(str(resources.files("elicit_conformance.snapshots"))), update)
    return None


def current(config: pytest.Config) -> ConformanceRun:
    """The run's plugin; the cases' conftest activates it if the options did not."""
    run = config.pluginmanager.get_plugin(NAME)
    if run is None:
        activate(config)
        run = config.pluginmanager.get_plugin(NAME)
    return run


def _chosen(config: pytest.Config) -> Target:
    command = config.getoption("server_command")
    spec = config.getoption("server")
    if command and spec:
        raise TargetError("--server and --server-command both name a target: give one.")
    if command:
        return command_target(command)
    # Like uvicorn: `module:app` is imported from where the user stands.
    here = str(config.invocation_params.dir)
    if here not in sys.path:
        sys.path.insert(0, here)
    if spec:
        return load_target(spec, "--server")
    if spec := os.environ.get(ENV_VAR):
        return load_target(spec, ENV_VAR)
    if spec := config.getini("elicit_server"):
        return load_target(str(spec), "ini")
    return load_target(DEFAULT_SPEC, "default")


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _is_controller(config: pytest.Config) -> bool:
    """An xdist controller: it runs no case and hears of each from its report."""
    return config.pluginmanager.hasplugin("dsession")


def checks_of(item: pytest.Item) -> tuple[str, ...]:
    ids: list[str] = []
    for marker in reversed(list(item.iter_markers("checks"))):
        ids += [i for i in marker.args if i not in ids]
    return tuple(ids)


def revision_of(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("era") if callspec else None


def _whole_suite(items: list[pytest.Item]) -> bool:
    """Row coverage and stale entries are judged only when every case module is collected."""
    modules = set(Path(elicit_conformance.cases.__file__).parent.glob("test_*.py"))
    return modules <= {Path(item.path) for item in items}


@dataclass(eq=False)  # a plugin object must stay hashable (pytest 8 keeps a set of them)
class ConformanceRun:
    """One run's target, table, baseline and report; its methods are its hooks."""

    target: Target
    table: Table
    revisions: tuple[str, ...]
    baseline: list[baseline_module.Entry]
    #: Tools the target declares it does not implement, with the reason it gives.
    not_implemented: dict[str, str]
    report_dir: Path | None
    write_baseline: Path | None
    golden: Golden | None
    strict: bool
    timeout: float
    #: Unique per run, so server-side records (body runs, profiles) never collide.
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:10])
    _cases: Iterator[int] = field(default_factory=itertools.count, init=False, repr=False)
    report: Report = field(init=False)
    #: Cases the baseline expects to fail, with the reason their mark gives.
    baselined: dict[str, str] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.report = Report(self.target.spec, self.revisions)

    def case_id(self) -> str:
        """The id a case puts in its refs: unique to the case, so no case reads what
        another left on the server (in whatever order, on whichever worker, they run)."""
        return f"{self.run_id}-{next(self._cases)}"

    def pytest_report_header(self) -> list[str]:
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

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        # tryfirst: judged on everything collected, before -k/-m deselect any of it.
        claims = {item: checks for item in items if (checks := checks_of(item))}
        try:
            self.table.check_claims({item.nodeid: checks for item, checks in claims.items()})
        except TableError as error:
            raise pytest.UsageError(str(error)) from None
        whole = _whole_suite(items)
        if whole and (uncovered := self.table.uncovered(i for checks in claims.values() for i in checks)):
            self.report.problems.append(
                "requirement rows with no case (add a case, or exclude the row with a "
                f"reason): {', '.join(uncovered)}"
            )
        matched: set[baseline_module.Entry] = set()
        dropped = []
        for item, checks in claims.items():
            # `-k SEC-2` selects the cases that check SEC-2.
            item.extra_keyword_matches.update(checks)
            revision = revision_of(item)
            entries = {e for e in self.baseline if e.covers(item.name, checks, revision)}
            matched |= entries
            if revision not in (None, *self.revisions):
                dropped.append(item)
            else:
                self._grade(item, checks, revision, entries)
        if whole:
            self.report.problems += [
                f"stale baseline entry (line {entry.line}): {entry.label} matches no case"
                for entry in self.baseline
                if entry not in matched
            ]
            if self.golden is not None:
                # Judged on every case collected, before --revision or -k leave any out.
                self.report.unused_golden = self.golden.unused(
                    item.nodeid for item in items if item.get_closest_marker("transcript_varies") is None)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = [item for item in items if item not in dropped]

    def _grade(
        self, item: pytest.Item, checks: tuple[str, ...], revision: str | None,
        entries: set[baseline_module.Entry],
    ) -> None:
        """Give `item` its outcome row, JUnit properties and baseline marks."""
        level = self.table.level(checks)
        sources = {row: self.table.source_of(row) for row in checks}
        self.report.outcomes[item.nodeid] = Outcome(item.nodeid, item.name, list(checks), revision, level,
                                                    sources=sources)
        item.user_properties += [
            ("case", checks[0]), ("checks", " ".join(checks)),
            ("level", level), ("revision", revision or "n/a"),
            # Where each row comes from, so a failure in a CI's test view links to its sentence.
            *((f"source {row}", source.get("url") or f"feature contract: {source.get('promise')}")
              for row, source in sources.items()),
        ]
        # A SHOULD warns whatever the user's warning filters (`-W error` included);
        # only --conformance-strict makes it fail.
        item.add_marker(pytest.mark.filterwarnings(f"always::{ShouldNotMet.__module__}.ShouldNotMet"))
        for entry in entries:
            reason = f"baseline {entry.label}: {entry.reason}"
            item.add_marker(pytest.mark.xfail(strict=True, reason=reason))
            self.baselined[item.nodeid] = reason

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        # -k, -m and --revision leave cases out of the run, and so out of the report.
        for item in items:
            self.report.outcomes.pop(item.nodeid, None)

    # -- before the first case: is the target there at all? ---------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        if session.config.option.collectonly:
            return
        # An xdist controller collects nothing: it reaches the target once for all workers.
        if not _is_controller(session.config) and not any(i.nodeid in self.report.outcomes for i in session.items):
            return
        try:
            self.target.tools["names"] = anyio.run(list_tools, self.target, self.timeout)
        except Unreachable as error:
            self.report.outcomes.clear()  # nothing ran: the usage error is the whole story
            raise pytest.UsageError(str(error)) from None
        self.report.problems += [
            f"stale not-implemented line: the target lists {tool!r}, declared not implemented "
            f"({reason}); remove the line so its cases run"
            for tool, reason in self.not_implemented.items() if tool in self.target.tools["names"]
        ]

    # -- running: strict SHOULD, outcomes, transcripts --------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if item.nodeid in self.report.outcomes:
            item.stash[LEDGER] = verdict.begin(self.table)
            if self.target.servers is not None:
                item.stash[STDERR] = self.target.servers.log_marks()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        if item.nodeid not in self.report.outcomes:
            return (yield)
        with warnings.catch_warnings():
            if self.strict:
                warnings.simplefilter("error", ShouldNotMet)
            try:
                return (yield)
            except NotTestable as error:
                self._declared_missing(item, error)
                raise

    def _declared_missing(self, item: pytest.Item, error: NotTestable) -> None:
        """A case that lacks only tools the target declares not implemented, or an
        extension it does not advertise, is skipped as such."""
        if isinstance(error, NotOffered):
            item.stash[DECLARED] = error.cause
            pytest.skip(f"not implemented (not advertised): {error.args[0]}")
        if not error.tools or not self.not_implemented:
            return
        undeclared = [tool for tool in error.tools if tool not in self.not_implemented]
        if undeclared:
            error.cause = f"{undeclared[0]} missing"
            return
        tool = error.tools[0]
        item.stash[DECLARED] = f"{tool} not implemented"
        pytest.skip(f"not implemented (declared): {tool}: {self.not_implemented[tool]}")

    @pytest.hookimpl(tryfirst=True, specname="pytest_runtest_makereport")
    def said_report(self, item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport | None:
        """A case that fails with a sentence gets its report without a traceback. pytest's
        own report formats one (reading the source of every frame: ~45 ms a failing case)
        only for the wrapper below to replace it with the sentence. Anything else, and
        every phase but the call, is pytest's own report."""
        outcome = self.report.outcomes.get(item.nodeid)
        if call.when != "call" or call.excinfo is None or outcome is None:
            return None
        sentence = judged(verdict.unwrapped(call.excinfo.value), outcome.checks[0])[1]
        if sentence is None:
            return None
        sections = [(f"Captured {key} {when}", content) for when, key, content in item._report_sections]
        return pytest.TestReport(
            item.nodeid, item.location, dict.fromkeys(item.keywords, 1), "failed", Said(sentence, item.location),
            call.when, sections, call.duration, call.start, call.stop, user_properties=item.user_properties,
        )

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Iterator[pytest.TestReport]:
        outcome = self.report.outcomes.get(item.nodeid)
        case = item.stash.get(CASE, None)
        if outcome is not None and case is not None and call.when == "call":
            outcome.facts.update(case.facts)
            item.user_properties += [(key, str(value)) for key, value in case.facts.items()]
        report: pytest.TestReport = yield
        if outcome is None:
            return report
        outcome.duration = round(outcome.duration + report.duration, 4)
        error = verdict.unwrapped(call.excinfo.value) if call.excinfo is not None else None
        if call.when == "call" and error is None and item.nodeid in self.baselined:
            outcome.status = Status.STALE  # a baselined case passed: pytest reports XPASS(strict)
            outcome.message = (f"passes now: remove its baseline entry, which expected it to fail "
                               f"({self.baselined[item.nodeid]})")
        elif report.failed:
            status, sentence = judged(error, outcome.checks[0])
            if outcome.status != Status.FAIL:
                outcome.status, outcome.message = status, sentence or _first_line(report)
                outcome.cause = error.cause if isinstance(error, NotTestable) else ""
            if sentence is not None:
                # The sentence is the whole verdict: no traceback of the suite's own code.
                report.longrepr = Said(sentence, report.location)
            if self.target.servers is not None and STDERR in item.stash:
                if quoted := self.target.servers.stderr_since(item.stash[STDERR]):
                    report.sections.append(("the stdio server's stderr while the case ran", quoted))
        elif report.skipped and hasattr(report, "wasxfail"):
            outcome.status, outcome.message = Status.EXPECTED, report.wasxfail
        elif report.skipped and DECLARED in item.stash:
            outcome.status, outcome.message = Status.NOT_IMPLEMENTED, _skip_reason(report)
            outcome.cause = item.stash[DECLARED]
        elif report.skipped:
            outcome.status, outcome.message = Status.SKIPPED, _skip_reason(report)
        elif call.when == "call" and outcome.status == Status.NOT_RUN:
            outcome.status = Status.PASS
        if call.when == "call" or report.failed or report.skipped:
            ledger = item.stash.get(LEDGER, None)
            outcome.rows = row_results(outcome, ledger, error)
            if ledger and (unclaimed := sorted(set(ledger.rows) - set(outcome.checks))):
                problem = (f"{item.nodeid} checks {', '.join(unclaimed)} without claiming it: "
                           "add it to the case's @pytest.mark.checks")
                if problem not in self.report.problems:
                    self.report.problems.append(problem)
        if call.when == "teardown" and case and case.transcript.messages:
            outcome.pinned = case.pinned
            lines = case.normalized()
            if self.report_dir is not None:
                self.report.write_transcript(self.report_dir, outcome, lines)
            # A timed-out case stopped wherever the clock did: its transcript proves nothing.
            if self.golden is not None and case.pinned and outcome.status != Status.TIMED_OUT:
                compared = self.golden.compare(item.nodeid, render(lines))
                outcome.golden, outcome.golden_found, outcome.golden_diff = compared.file, compared.found.value, compared.diff
        if call.when == "teardown":
            verdict.end()
        if _is_worker(item.config):
            setattr(report, VERDICT, outcome.to_data())
        return report

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """On an xdist controller: the verdict a worker sent, before the terminal shows it."""
        data = getattr(report, VERDICT, None)
        if data is not None:
            self.report.outcomes[report.nodeid] = Outcome.from_data(data)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """A worker's run-level problems (every worker judges the same: once is enough)."""
        output = getattr(node, "workeroutput", {})
        for problem in output.get(PROBLEMS, []):
            if problem not in self.report.problems:
                self.report.problems.append(problem)
        self.report.unused_golden = output.get(UNUSED, []) or self.report.unused_golden

    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, tuple[str, dict[str, bool]]] | None:
        """'not testable' and 'timed out' show as themselves, not as a bare F."""
        outcome = self.report.outcomes.get(report.nodeid)
        if report.failed and outcome is not None and outcome.status in _SHOWN:
            letter, word = _SHOWN[outcome.status]
            return outcome.status, letter, (word, {"red": True})
        return None

    def pytest_warning_recorded(self, warning_message: warnings.WarningMessage, nodeid: str) -> None:
        if issubclass(warning_message.category, ShouldNotMet) and nodeid in self.report.outcomes:
            self.report.outcomes[nodeid].should_not_met.append(str(warning_message.message))

    # -- the end ------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if _is_worker(session.config):
            session.config.workeroutput[PROBLEMS] = self.report.problems  # type: ignore[attr-defined]
            session.config.workeroutput[UNUSED] = self.report.unused_golden  # type: ignore[attr-defined]
            return
        if self.golden is not None and self.golden.update and self.report.unused_golden:
            self.golden.remove(self.report.unused_golden)
            self.report.unused_removed = True
        failed = self.report.problems or self.report.proved_nothing or self.report.behaviour_changed
        if failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.report_dir is not None and self.report.outcomes:
            self.report.write(self.report_dir, self.table)
        if self.write_baseline is not None:
            self.write_baseline.write_text(
                self.report.baseline(f"{date.today().isoformat()}, against {self.target.spec}")
            )

    def pytest_unconfigure(self) -> None:
        self.target.close()

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.report.outcomes and not self.report.problems:
            return
        terminalreporter.section("elicit-conformance")
        terminalreporter.line(self.report.headline())
        for line in self.report.rolled_up():
            terminalreporter.line(f"  {line}", red=line.startswith(Status.NOT_TESTABLE))
        for outcome in self.report.outcomes.values():
            if outcome.status in (Status.FAIL, Status.TIMED_OUT, Status.STALE):
                terminalreporter.line(f"  {outcome.status.upper()}: {outcome.test_id}: {outcome.message}", red=True)
            for note in outcome.should_not_met:
                terminalreporter.line(f"  SHOULD not met: {note}  ({outcome.test_id})")
        for problem in self.report.problems:
            terminalreporter.line(f"  FAILED: {problem}", red=True)
        if self.golden is not None:
            self._golden_summary(terminalreporter)
        elif terminalreporter.config.getoption("update_snapshots", default=False):
            terminalreporter.line("  --snapshot-update wrote nothing: this target has no golden transcripts yet; "
                                  "name their directory with --conformance-snapshots=DIR", red=True)
        if self.report_dir is not None:
            terminalreporter.line(f"  report: {self.report_dir / 'summary.md'}")
        if self.write_baseline is not None:
            terminalreporter.line(f"  baseline written: {self.write_baseline}")

    def _golden_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """What changed on the wire, apart from the verdicts: each change as a diff."""
        assert self.golden is not None
        report = self.report
        terminalreporter.line(f"  {report.golden_summary()} (in {self.golden.directory})",
                              red=report.behaviour_changed)
        for o in sorted(report.golden(Found.CHANGED), key=lambda o: o.test_id):
            terminalreporter.line(f"  CHANGED: {o.test_id} (verdict: {o.status}): its transcript differs "
                                  f"from {o.golden}; if the change is meant, run again with --snapshot-update",
                                  red=True)
            for line in o.golden_diff.splitlines():
                terminalreporter.line(f"    {line}", red=line.startswith("-"), green=line.startswith("+"))
        missing = sorted(report.golden(Found.MISSING), key=lambda o: o.test_id)
        for o in missing[:5]:
            terminalreporter.line(f"  NO GOLDEN TRANSCRIPT: {o.test_id}: {o.golden} does not exist; "
                                  "write it with --snapshot-update", red=True)
        if len(missing) > 5:
            where = self.report_dir / "changes.md" if self.report_dir else "changes.md of --conformance-report=DIR"
            terminalreporter.line(f"  ... and {len(missing) - 5} more cases with no golden transcript ({where} "
                                  "lists them all)", red=True)
        if report.unused_golden and not report.unused_removed:
            terminalreporter.line(f"  UNUSED: {len(report.unused_golden)} golden transcript(s) belong to no case that "
                                  "keeps one (renamed, removed, or marked transcript_varies) "
                                  f"({', '.join(report.unused_golden[:5])}); --snapshot-update removes them", red=True)
        if report.behaviour_changed and self.report_dir is not None:
            terminalreporter.line(f"  the changes, for a pull request: {self.report_dir / 'changes.md'}")


def judged(error: BaseException | None, first_row: str) -> tuple[Status, str | None]:
    """A failed case's status and its sentence; None where the suite has no sentence
    (pytest's own failure, which keeps its report)."""
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
    if error is None or isinstance(error, pytest.fail.Exception):
        return Status.FAIL, None
    where = _suite_frame(error)
    return Status.FAIL, (
        f"internal error of elicit-conformance, not a verdict on the server: {type(error).__name__} "
        f"({verdict.brief(str(error), 160)}) at {where}. Please report it with this case's transcript."
    )


def _suite_frame(error: BaseException) -> str:
    """The innermost frame of the suite's own code that the error passed through."""
    import traceback

    frames = [f for f in traceback.extract_tb(error.__traceback__) if "elicit_conformance" in f.filename
              or "/conformance/" in f.filename]
    frame = frames[-1] if frames else None
    return f"{Path(frame.filename).name}:{frame.lineno}" if frame else "an unknown place"


def row_results(outcome: Outcome, ledger: verdict.Ledger | None, error: BaseException | None) -> dict[str, dict[str, str]]:
    """What the case found for each row it claims (the README, "The conformance report").

    A row the case checked reads as its worst check; a row it never reached reads
    as why: the case was not testable, timed out, failed earlier, or passed without
    the check ever applying ("not evaluated", e.g. a SHOULD about an error that
    never came)."""
    found = dict(ledger.rows) if ledger else {}
    sentences = dict(ledger.sentences) if ledger else {}
    first = outcome.checks[0]
    if isinstance(error, (Broken, RpcError)):
        found[first], sentences[first] = verdict.FAIL, outcome.message
    elif isinstance(error, ShouldNotMet) and ledger:  # strict: the SHOULD failed its case
        for row, status in found.items():
            if status == verdict.SHOULD_NOT_MET:
                found[row] = verdict.FAIL
    unreached = {
        Status.NOT_TESTABLE: Status.NOT_TESTABLE, Status.NOT_IMPLEMENTED: Status.NOT_IMPLEMENTED,
        Status.TIMED_OUT: Status.TIMED_OUT, Status.SKIPPED: Status.SKIPPED, Status.PASS: NOT_EVALUATED, Status.STALE: NOT_EVALUATED,
    }.get(outcome.status, NOT_REACHED)
    results = {}
    for row in outcome.checks:
        if row.startswith("INFO/"):
            results[row] = {"status": "recorded" if row in outcome.facts else unreached}
            continue
        status = found.get(row, unreached)
        if status == verdict.FAIL and outcome.status == Status.EXPECTED:
            status = Status.EXPECTED
        result = {"status": str(status)}
        if row in sentences:
            result["message"] = sentences[row]
        elif status in (Status.NOT_TESTABLE, Status.NOT_IMPLEMENTED, Status.TIMED_OUT, Status.SKIPPED):
            result["message"] = outcome.message
        results[row] = result
    return results


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


def _first_line(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = (crash.message if crash is not None else str(report.longrepr)).strip()
    return text.splitlines()[0] if text else "failed"


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    return str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr)
