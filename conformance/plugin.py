"""pytest plugin: the suite's options, its target, grading, baseline and report.

Loaded through the `pytest11` entry point wherever the package is installed.
Every option is registered in `pytest_addoption`; the logic lives in the
modules named for it (`target`, `requirements`, `baseline`, `report`).
"""

from __future__ import annotations

import os
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import elicit_conformance.cases
from elicit_conformance import baseline as baseline_module
from elicit_conformance import snapshot as snapshot_module
from elicit_conformance.case import Case
from elicit_conformance.normalize import normalize
from elicit_conformance.report import Outcome, Report
from elicit_conformance.requirements import Table, TableError
from elicit_conformance.target import (
    DEFAULT_SPEC,
    Target,
    TargetError,
    command_target,
    load_target,
)
from elicit_conformance.verdict import NotTestable, ShouldNotMet
from elicit_conformance.wire import ERAS

ENV_VAR = "ELICIT_SERVER"
ALL = "all"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("elicit-conformance")
    group.addoption(
        "--server",
        default=None,
        metavar="MODULE:ATTR|URL",
        help=f"Server under test: module:attribute (in-process) or the URL of a "
        f"streamable-HTTP endpoint. Also ${ENV_VAR} or the 'elicit_server' ini key; "
        f"default {DEFAULT_SPEC}.",
    )
    group.addoption(
        "--server-command",
        default=None,
        metavar="COMMAND",
        help="Server under test over stdio: the command that starts it, e.g. "
        "'python -m myproject.server'. Started once per connection.",
    )
    group.addoption(
        "--revision",
        default=ALL,
        choices=(*ERAS, ALL),
        help="Protocol revision(s) to check (default: all).",
    )
    group.addoption(
        "--conformance-baseline",
        default=None,
        metavar="FILE",
        type=Path,
        help="Expected failures ('CASE-ID[revision]: reason' per line). An entry "
        "whose cases pass fails the run.",
    )
    group.addoption(
        "--conformance-report",
        default=None,
        metavar="DIR",
        type=Path,
        help="Write index.json, per-case JSONL transcripts and summary.md to DIR.",
    )
    group.addoption(
        "--golden-transcripts",
        action="store_true",
        default=None,
        help="Compare every transcript with snapshots/ (automatic for the in-process "
        "reference; pass it when the reference is served over HTTP or stdio).",
    )
    parser.addini("elicit_server", "Server under test, as module:attribute or URL.", default=None)
    parser.addini(
        "elicit_requirements", "A requirement table other than the packaged one.", default=None
    )


_CASE = pytest.StashKey[Case]()
_PLUGIN = "elicit-conformance-run"


def _chosen(config: pytest.Config) -> Target:
    command = config.getoption("server_command")
    spec = config.getoption("server")
    if command and spec:
        raise TargetError("--server and --server-command both name a target: give one.")
    if command:
        return command_target(command)
    if spec:
        return load_target(spec, "--server")
    if spec := os.environ.get(ENV_VAR):
        return load_target(spec, ENV_VAR)
    if spec := config.getini("elicit_server"):
        return load_target(str(spec), "ini")
    return load_target(DEFAULT_SPEC, "default")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "checks(*ids): requirement-table rows the case checks")
    config.addinivalue_line("markers", "revisions(*revisions): the only revisions the case applies to")
    snapshot_module.SNAPSHOT_ROOT = config.rootpath / "snapshots"
    revision = config.getoption("revision")
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
            golden=target.is_reference if golden is None else golden,
            strict=bool(config.getini("strict")),
        ),
        _PLUGIN,
    )


def _run(config: pytest.Config) -> ConformanceRun:
    return config.pluginmanager.get_plugin(_PLUGIN)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Cases that take `era` run once per revision, the revision in their ID."""
    if "era" not in metafunc.fixturenames or any(
        "era" in str(m.args[0]) for m in metafunc.definition.iter_markers("parametrize")
    ):
        return
    marker = metafunc.definition.get_closest_marker("revisions")
    metafunc.parametrize("era", marker.args if marker else ERAS)


def _checks(item: pytest.Item) -> tuple[str, ...]:
    ids: list[str] = []
    for marker in reversed(list(item.iter_markers("checks"))):
        ids += [i for i in marker.args if i not in ids]
    return tuple(ids)


def _revision(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("era") if callspec else None


def _whole_suite(items: list[pytest.Item]) -> bool:
    """Row coverage and stale entries are judged only when every case module is collected."""
    modules = set(Path(elicit_conformance.cases.__file__).parent.glob("test_*.py"))
    return modules <= {Path(item.path) for item in items}


@dataclass
class ConformanceRun:
    """One run's target, table, baseline and report; its methods are its hooks."""

    target: Target
    table: Table
    revisions: tuple[str, ...]
    baseline: list[baseline_module.Entry]
    report_dir: Path | None
    golden: bool
    strict: bool
    report: Report = field(init=False)

    def __post_init__(self) -> None:
        self.report = Report(self.target.spec, self.revisions)

    def pytest_report_header(self) -> list[str]:
        lines = [
            f"elicit-conformance target: {self.target.spec} (from {self.target.source})",
            (
                f"elicit-conformance revisions: {', '.join(self.revisions)}; "
                f"SHOULD {'fails (--strict)' if self.strict else 'warns'}"
            ),
        ]
        if self.baseline:
            lines.append(f"elicit-conformance baseline: {len(self.baseline)} expected failure(s)")
        return lines

    # -- collection: grading, revisions, baseline ------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        # tryfirst: judged on everything collected, before -k/-m deselect any of it.
        cases = [item for item in items if _checks(item)]
        try:
            self.table.check_claims({item.nodeid: _checks(item) for item in cases})
        except TableError as error:
            raise pytest.UsageError(str(error)) from None
        whole = _whole_suite(items)
        if whole and (uncovered := self.table.uncovered(i for c in cases for i in _checks(c))):
            self.report.problems.append(
                "requirement rows with no case (add a case, or exclude the row with a "
                f"reason): {', '.join(uncovered)}"
            )
        dropped = [c for c in cases if _revision(c) not in (None, *self.revisions)]
        matched: set[baseline_module.Entry] = set()
        for item in cases:
            if item not in dropped:
                matched |= self._grade(item)
        if whole:
            for entry in self.baseline:
                selected = entry.revision is None or entry.revision in self.revisions
                if selected and entry not in matched:
                    self.report.problems.append(
                        f"stale baseline entry (line {entry.line}): {entry.label} matches no case"
                    )
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = [item for item in items if item not in dropped]

    def _grade(self, item: pytest.Item) -> set[baseline_module.Entry]:
        """Give `item` its outcome row, JUnit properties and baseline marks."""
        checks, revision = _checks(item), _revision(item)
        level = self.table.level(checks)
        self.report.outcomes[item.nodeid] = Outcome(item.nodeid, checks[0], list(checks), revision, level)
        item.user_properties += [
            ("case", checks[0]), ("checks", " ".join(checks)),
            ("level", level), ("revision", revision or "n/a"),
        ]
        matched = {entry for entry in self.baseline if entry.covers(checks, revision)}
        for entry in matched:
            item.add_marker(pytest.mark.xfail(strict=True, reason=f"baseline {entry.label}: {entry.reason}"))
        return matched

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        # -k, -m and --revision leave cases out of the run, and so out of the report.
        for item in items:
            self.report.outcomes.pop(item.nodeid, None)

    # -- running: strict SHOULD, outcomes, transcripts --------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        if not self.strict:
            return (yield)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ShouldNotMet)
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Iterator[pytest.TestReport]:
        outcome = self.report.outcomes.get(item.nodeid)
        case = item.stash.get(_CASE, None)
        if outcome is not None and case is not None and call.when == "call":
            outcome.facts.update(case.facts)
            item.user_properties += [(key, str(value)) for key, value in case.facts.items()]
        report: pytest.TestReport = yield
        if outcome is None:
            return report
        outcome.duration = round(outcome.duration + report.duration, 4)
        if report.failed:
            if call.excinfo is not None and call.excinfo.errisinstance(NotTestable):
                outcome.status, outcome.message = "not testable", str(call.excinfo.value)
            elif "XPASS(strict)" in str(report.longrepr):
                outcome.status = "stale baseline"
                outcome.message = f"passes now: remove its baseline entry ({item.get_closest_marker('xfail').kwargs['reason']})"
            elif outcome.status != "fail":
                outcome.status, outcome.message = "fail", _first_line(report)
        elif report.skipped and hasattr(report, "wasxfail"):
            outcome.status, outcome.message = "expected failure", report.wasxfail
        elif report.skipped:
            outcome.status, outcome.message = "skipped", _skip_reason(report)
        elif call.when == "call" and outcome.status == "not run":
            outcome.status = "pass"
        if call.when == "teardown" and self.report_dir is not None and case and case.transcript.messages:
            lines = normalize(case.transcript, {case.run_id: "<run>"})
            self.report.write_transcript(self.report_dir, outcome, lines)
        return report

    def pytest_warning_recorded(self, warning_message: warnings.WarningMessage, nodeid: str) -> None:
        if issubclass(warning_message.category, ShouldNotMet) and nodeid in self.report.outcomes:
            self.report.outcomes[nodeid].should_not_met.append(str(warning_message.message))

    # -- the end ------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.report.problems and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.report_dir is not None and self.report.outcomes:
            self.report.write(self.report_dir, order=list(self.table.rows))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.report.outcomes and not self.report.problems:
            return
        terminalreporter.section("elicit-conformance")
        terminalreporter.line(self.report.headline())
        for outcome in self.report.outcomes.values():
            for note in outcome.should_not_met:
                terminalreporter.line(f"  SHOULD not met: {note}  ({outcome.nodeid})")
        for problem in self.report.problems:
            terminalreporter.line(f"  FAILED: {problem}", red=True)
        if self.report_dir is not None:
            terminalreporter.line(f"  report: {self.report_dir / 'summary.md'}")


def _first_line(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = (crash.message if crash is not None else str(report.longrepr)).strip()
    return text.splitlines()[0] if text else "failed"


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    return str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr)


# -- fixtures --------------------------------------------------------------------


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> Target:
    return _run(pytestconfig).target


@pytest.fixture(scope="session")
def run_id() -> str:
    """Unique per session, so server-side records (runs, profiles) never collide."""
    return uuid.uuid4().hex[:10]


@pytest.fixture
def case(request: pytest.FixtureRequest, target: Target, run_id: str) -> Iterator[Case]:
    case = Case(target, run_id, golden=_run(request.config).golden)
    request.node.stash[_CASE] = case
    yield case
