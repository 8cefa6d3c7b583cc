"""A conformance run's pytest hooks: each translates what pytest saw into a call on the
run's session (`elicit_conformance.run.session`), which holds the logic.

Registered by the entry point only for a conformance run. Every case claims
requirement rows (`@pytest.mark.checks`); the session turns what pytest saw into a
verdict per case, applies the baseline, and writes the report.

Under pytest-xdist (`-n auto`) each worker collects every case, so row coverage and
stale baseline entries are judged on the whole suite there and sent up once; each
case's verdict travels to the controller on its test report, and the controller
alone writes the one report and the baseline.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from elicit_conformance import verdict
from elicit_conformance.exceptions import NotTestable, ShouldNotMet, UsageProblem
from elicit_conformance.harness.case import Case
from elicit_conformance.limits import DEFAULT_STARTUP, DEFAULT_TIMEOUT
from elicit_conformance.run.events import Ended, Planned
from elicit_conformance.run.session import Session
from elicit_conformance.run.settings import Settings
from elicit_conformance.run.summary import summary

from . import terminal

ENV_VAR = "ELICIT_SERVER"
NAME = "elicit-conformance-run"
CASE = pytest.StashKey[Case]()
LEDGER = pytest.StashKey[verdict.Ledger]()
#: The attribute carrying a case's verdict on its test report, to the xdist controller.
VERDICT = "elicit_conformance_verdict"
#: The key of a worker's run-level findings in its xdist `workeroutput`.
FINDINGS = "elicit_conformance_findings"
MARKERS = (
    "checks(*ids): requirement-table rows the case checks",
    "revisions(*revisions): the only revisions the case applies to",
    "transcript_varies(why): the case's transcript has no golden file",
    "tools(*names): the catalog tools the case calls (the contract lists them)",
)
T = TypeVar("T")


def current(config: pytest.Config) -> Session:
    """The run's session, opened and its hooks registered on first use (by the entry
    point, or by the cases' conftest when the options did not ask for a run)."""
    if not config.pluginmanager.has_plugin(NAME):
        for line in MARKERS:
            config.addinivalue_line("markers", line)
        config.pluginmanager.register(ConformanceRun(_usage(Session.open, settings_of(config))), NAME)
    return config.pluginmanager.get_plugin(NAME).session


def settings_of(config: pytest.Config) -> Settings:
    """The run's options and ini keys as plain values (paths in ini keys are relative to
    the rootdir)."""
    option, ini = config.getoption, config.getini
    requirements, snapshots = ini("elicit_requirements"), ini("elicit_snapshots")
    declared = option("conformance_not_implemented") or ini("elicit_not_implemented")
    return Settings(
        server=option("server"), environ_server=os.environ.get(ENV_VAR), ini_server=ini("elicit_server") or None,
        server_command=option("server_command"), client_command=option("client_command"), client=option("client"),
        here=config.invocation_params.dir, revision=option("revision"),
        requirements=config.rootpath / requirements if requirements else None,
        baseline=option("conformance_baseline"), not_implemented=Path(declared) if declared else None,
        report_dir=option("conformance_report"), write_baseline=option("conformance_write_baseline"),
        write_not_implemented=option("conformance_write_not_implemented"),
        snapshots=option("conformance_snapshots") or (config.rootpath / str(snapshots) if snapshots else None),
        golden_transcripts=bool(option("golden_transcripts")),
        update_snapshots=bool(option("update_snapshots", default=False)), strict=bool(option("conformance_strict")),
        timeout=option("conformance_timeout") or DEFAULT_TIMEOUT, startup=option("conformance_startup") or DEFAULT_STARTUP,
    )


class ConformanceRun:
    """The run's hooks, over its session."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def pytest_report_header(self) -> list[str]:
        return self.session.header()

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        # tryfirst: judged on everything collected, before -k/-m deselect any of it.
        dropped = set(_usage(self.session.plan, [_planned(item) for item in items]))
        for item in items:
            if item.nodeid in self.session.report.outcomes:
                _mark(item, self.session)
        if dropped:
            config.hook.pytest_deselected(items=[item for item in items if item.nodeid in dropped])
            items[:] = [item for item in items if item.nodeid not in dropped]

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.session.deselected([item.nodeid for item in items])

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        # An xdist controller collects nothing: it reaches the target once for all workers.
        controller = session.config.pluginmanager.hasplugin("dsession")
        if not session.config.option.collectonly and (
                controller or self.session.runs_any([item.nodeid for item in session.items])):
            _usage(self.session.reach)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self.session.started(item.nodeid)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        try:
            yield
        except NotTestable as error:
            if (reason := self.session.declared_missing(item.nodeid, error)) is not None:
                pytest.skip(reason)
            raise
        # Strict: a SHOULD not met fails the case once all its checks were judged.
        if (unmet := self.session.strictly_failed(item.nodeid, item.stash.get(LEDGER, None))) is not None:
            raise unmet

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
        if call.when == "call":
            item.user_properties += self.session.called(item.nodeid, item.stash.get(CASE, None))
        report: pytest.TestReport = yield
        ended = self.session.ended(_ended(item, call, report), item.stash.get(CASE, None), item.stash.get(LEDGER, None))
        terminal.dress(report, *ended)
        if hasattr(item.config, "workerinput") and (data := self.session.verdict_of(item.nodeid)) is not None:
            setattr(report, VERDICT, data)
        return report

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """On an xdist controller: the verdict a worker sent, before the terminal shows it."""
        if (data := getattr(report, VERDICT, None)) is not None:
            self.session.received(report.nodeid, data)

    # pytest registers a hook only under a name that starts with pytest_ (specname or not).
    @pytest.hookimpl(trylast=True, specname="pytest_runtest_logreport")
    def pytest_logged_report(self, report: pytest.TestReport) -> None:
        terminal.shortened(report, self.session.said(report.nodeid))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        self.session.merged(getattr(node, "workeroutput", {}).get(FINDINGS, {}))

    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, tuple[str, dict[str, bool]]] | None:
        shown = self.session.shown(report.nodeid, report.failed)
        return (shown[0], shown[1], (shown[2], {"red": True})) if shown else None

    def pytest_warning_recorded(self, warning_message: warnings.WarningMessage, nodeid: str) -> None:
        if issubclass(warning_message.category, ShouldNotMet):
            self.session.warned(nodeid, str(warning_message.message))

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            session.config.workeroutput[FINDINGS] = self.session.worker_output()  # type: ignore[attr-defined]
        elif self.session.finish() and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_unconfigure(self) -> None:
        self.session.close()

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        update = bool(terminalreporter.config.getoption("update_snapshots", default=False))
        above = terminalreporter.config.option.tbstyle != "no"  # pytest printed each failure's sentence
        terminal.write(terminalreporter, summary(self.session, update, above))


def _usage(step: Callable[..., T], *args: Any) -> T:
    """A step of the session; what stops the run as asked is pytest's usage error."""
    try:
        return step(*args)
    except UsageProblem as error:
        raise pytest.UsageError(str(error)) from None


def _planned(item: pytest.Item) -> Planned:
    ids: list[str] = []
    for marker in reversed(list(item.iter_markers("checks"))):
        ids += [i for i in marker.args if i not in ids]
    callspec = getattr(item, "callspec", None)
    return Planned(item.nodeid, item.name, Path(item.path), tuple(ids),
                   callspec.params.get("era") if callspec else None,
                   keeps_golden=item.get_closest_marker("transcript_varies") is None,
                   tools=tuple(tool for marker in item.iter_markers("tools") for tool in marker.args))


def _mark(item: pytest.Item, session: Session) -> None:
    """A planned case's keywords (`-k SEC-2` selects the cases that check SEC-2), JUnit
    properties and marks."""
    item.extra_keyword_matches.update(session.report.outcomes[item.nodeid].checks)
    item.user_properties += session.properties(item.nodeid)
    # A SHOULD warns whatever the user's warning filters (`-W error` included);
    # only --conformance-strict makes it fail.
    item.add_marker(pytest.mark.filterwarnings(f"always::{ShouldNotMet.__module__}.ShouldNotMet"))
    for entry in session.baselined.get(item.nodeid, []):
        item.add_marker(pytest.mark.xfail(strict=True, reason=entry.said))


def _raised(call: pytest.CallInfo[None]) -> BaseException | None:
    """What the phase raised, unwrapped; None for pytest's own failure (its report stands)."""
    error = verdict.unwrapped(call.excinfo.value) if call.excinfo is not None else None
    return None if isinstance(error, pytest.fail.Exception) else error


def _ended(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> Ended:
    message = terminal.skip_reason(report) if report.skipped else terminal.first_line(report) if report.failed else ""
    return Ended(item.nodeid, call.when, report.outcome, report.duration, raised=call.excinfo is not None,
                 error=_raised(call), message=message, xfail=getattr(report, "wasxfail", None))
