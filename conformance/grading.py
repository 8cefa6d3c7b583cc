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
from elicit_conformance import baseline as baseline_module
from elicit_conformance import snapshot as snapshot_module
from elicit_conformance.case import Case
from elicit_conformance.normalize import normalize
from elicit_conformance.plugin import ALL, DEFAULT_TIMEOUT
from elicit_conformance.reach import Unreachable, list_tools
from elicit_conformance.report import Outcome, Report, Status
from elicit_conformance.requirements import Table, TableError
from elicit_conformance.revisions import ERAS
from elicit_conformance.target import (
    DEFAULT_SPEC,
    Target,
    TargetError,
    command_target,
    load_target,
)
from elicit_conformance.verdict import NotTestable, ShouldNotMet, TimedOut

ENV_VAR = "ELICIT_SERVER"
NAME = "elicit-conformance-run"
CASE = pytest.StashKey[Case]()
#: The attribute carrying a case's verdict on its test report, to the xdist controller.
VERDICT = "elicit_conformance_verdict"
#: The key of a worker's run-level problems in its xdist `workeroutput`.
PROBLEMS = "elicit_conformance_problems"
#: What pytest prints for a case that ended as one of these statuses.
_SHOWN = {Status.NOT_TESTABLE: ("N", "NOT TESTABLE"), Status.TIMED_OUT: ("T", "TIMED OUT")}


def activate(config: pytest.Config) -> None:
    """Register the run's plugin; a bad target, table or baseline is a usage error."""
    if config.pluginmanager.has_plugin(NAME):
        return
    config.addinivalue_line("markers", "checks(*ids): requirement-table rows the case checks")
    config.addinivalue_line("markers", "revisions(*revisions): the only revisions the case applies to")
    snapshot_module.SNAPSHOT_ROOT = Path(str(resources.files("elicit_conformance.snapshots")))
    revision = config.getoption("revision") or ALL
    try:
        target = _chosen(config)
        table_path = config.getini("elicit_requirements")
        table = Table.load(config.rootpath / table_path if table_path else None)
        baseline_path = config.getoption("conformance_baseline")
        entries = baseline_module.read(baseline_path, set(table.rows), ERAS) if baseline_path else []
    except (TargetError, TableError, baseline_module.BaselineError) as error:
        raise pytest.UsageError(str(error)) from None
    golden = config.getoption("golden_transcripts")
    config.pluginmanager.register(
        ConformanceRun(
            target=target,
            table=table,
            revisions=ERAS if revision == ALL else (revision,),
            baseline=entries,
            report_dir=config.getoption("conformance_report"),
            write_baseline=config.getoption("conformance_write_baseline"),
            golden=target.is_reference if golden is None else golden,
            strict=bool(config.getoption("conformance_strict")),
            timeout=config.getoption("conformance_timeout") or DEFAULT_TIMEOUT,
        ),
        NAME,
    )


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
    report_dir: Path | None
    write_baseline: Path | None
    golden: bool
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
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = [item for item in items if item not in dropped]

    def _grade(
        self, item: pytest.Item, checks: tuple[str, ...], revision: str | None,
        entries: set[baseline_module.Entry],
    ) -> None:
        """Give `item` its outcome row, JUnit properties and baseline marks."""
        level = self.table.level(checks)
        self.report.outcomes[item.nodeid] = Outcome(item.nodeid, item.name, list(checks), revision, level)
        item.user_properties += [
            ("case", checks[0]), ("checks", " ".join(checks)),
            ("level", level), ("revision", revision or "n/a"),
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

    # -- running: strict SHOULD, outcomes, transcripts --------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        if not self.strict or item.nodeid not in self.report.outcomes:
            return (yield)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ShouldNotMet)
            return (yield)

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
        if call.when == "call" and call.excinfo is None and item.nodeid in self.baselined:
            outcome.status = Status.STALE  # a baselined case passed: pytest reports XPASS(strict)
            outcome.message = f"passes now: remove its baseline entry ({self.baselined[item.nodeid]})"
        elif report.failed:
            if call.excinfo is not None and call.excinfo.errisinstance(NotTestable):
                outcome.status, outcome.message = Status.NOT_TESTABLE, str(call.excinfo.value)
            elif call.excinfo is not None and call.excinfo.errisinstance(TimedOut):
                outcome.status, outcome.message = Status.TIMED_OUT, str(call.excinfo.value)
            elif outcome.status != Status.FAIL:
                outcome.status, outcome.message = Status.FAIL, _first_line(report)
        elif report.skipped and hasattr(report, "wasxfail"):
            outcome.status, outcome.message = Status.EXPECTED, report.wasxfail
        elif report.skipped:
            outcome.status, outcome.message = Status.SKIPPED, _skip_reason(report)
        elif call.when == "call" and outcome.status == Status.NOT_RUN:
            outcome.status = Status.PASS
        if call.when == "teardown" and self.report_dir is not None and case and case.transcript.messages:
            lines = normalize(case.transcript, {case.run_id: "<run>"})
            self.report.write_transcript(self.report_dir, outcome, lines)
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
        for problem in getattr(node, "workeroutput", {}).get(PROBLEMS, []):
            if problem not in self.report.problems:
                self.report.problems.append(problem)

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
            return
        if self.report.problems and session.exitstatus == pytest.ExitCode.OK:
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
        for outcome in self.report.outcomes.values():
            if outcome.status in _SHOWN:
                terminalreporter.line(f"  {outcome.status.upper()}: {outcome.test_id}: {outcome.message}", red=True)
            for note in outcome.should_not_met:
                terminalreporter.line(f"  SHOULD not met: {note}  ({outcome.test_id})")
        for problem in self.report.problems:
            terminalreporter.line(f"  FAILED: {problem}", red=True)
        if self.report_dir is not None:
            terminalreporter.line(f"  report: {self.report_dir / 'summary.md'}")
        if self.write_baseline is not None:
            terminalreporter.line(f"  baseline written: {self.write_baseline}")


def _first_line(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = (crash.message if crash is not None else str(report.longrepr)).strip()
    return text.splitlines()[0] if text else "failed"


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    return str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr)
