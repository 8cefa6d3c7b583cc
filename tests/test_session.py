"""The run's logic in-process, without pytest in between: planning (claims, revisions,
baseline, coverage), grading each case as it ends, the run-level findings, what the
terminal says, and the reports. tests/test_grading.py keeps what needs a real pytest run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elicit_conformance import verdict
from elicit_conformance.exceptions import CheckFailed, NotOffered, NotTestable, TimedOut, UsageProblem
from elicit_conformance.harness.case import Case
from elicit_conformance.requirements import Table
from elicit_conformance.run.events import Ended, Planned
from elicit_conformance.run.session import Session
from elicit_conformance.run.sides import CASES
from elicit_conformance.run.settings import Settings
from elicit_conformance.run.summary import Line, summary
from elicit_conformance.status import Status
from tests.suite import BASELINE, ROOT

NEW, OLD = "2026-07-28", "2025-11-25"
MODULES = sorted(CASES.glob("test_*.py"))


def planned(name: str, checks: tuple[str, ...], revision: str | None = NEW) -> Planned:
    """A case of test_behaviours.py, the revision in its id."""
    test_id = f"{name}[{revision}]" if revision else name
    return Planned(f"conformance/cases/test_behaviours.py::{test_id}", test_id, CASES / "test_behaviours.py", checks,
                   revision)


DIG_1 = planned("test_dig_1_dig_2_answer_to_a_reworded_question_is_dropped", ("DIG-1", "DIG-2"))
# test_scenario's revision sits inside its parameters: test_scenario[BAT-1-2026-07-28].
BAT_1 = [Planned(f"conformance/cases/test_scenarios.py::test_scenario[BAT-1-{r}]", f"test_scenario[BAT-1-{r}]",
                 CASES / "test_scenarios.py", ("BAT-1",), r) for r in (NEW, OLD)]


def whole(*cases: Planned) -> list[Planned]:
    """`cases`, and one case in every module claiming every row of the packaged table, so
    the plan judges the whole suite (coverage, stale entries) as it does for a full collection."""
    rows = tuple(r.id for r in Table.load().rows.values() if not r.excluded)
    return [*cases, *(Planned(f"conformance/cases/{m.name}::test_all", "test_all", m, rows, None) for m in MODULES)]


def opened(tmp_path: Path, **settings: object) -> Session:
    return Session.open(Settings(report_dir=tmp_path / "report", **settings))  # type: ignore[arg-type]


def ran(session: Session, case: Planned, error: BaseException | None = None,
        checked: tuple[tuple[str, bool, str], ...] = (), **ended: object) -> None:
    """One case through its three phases, as pytest runs it: its call makes the checks
    `checked` (row, holds, observed) and raises `error`."""
    session.started(case.nodeid)
    ledger = verdict.Ledger(session.table)
    for row, holds, observed in checked:
        ledger.record(row, holds, observed)
    session.ended(Ended(case.nodeid, "setup", "passed"), None, ledger)
    result = ended.pop("result", "failed" if error is not None else "passed")
    session.ended(Ended(case.nodeid, "call", str(result), 0.5, raised=error is not None, error=error, **ended), None,
                  ledger)
    session.ended(Ended(case.nodeid, "teardown", "passed"), None, ledger)


@pytest.mark.parametrize(
    ("line", "says"),
    [("NOPE-1: typo", "'NOPE-1' is not a case ID"), ("BAT-1[2020-01-01]: old", "revision '2020-01-01'"),
     ("BAT-1 without a reason", "is not 'TEST-ID: reason'")],
)
def test_an_unreadable_baseline_stops_the_run_before_it_starts(tmp_path: Path, line: str, says: str) -> None:
    baseline = tmp_path / "baseline.txt"
    baseline.write_text(line + "\n")
    with pytest.raises(UsageProblem, match=says):
        opened(tmp_path, baseline=baseline)


def test_a_requirement_row_without_a_case_fails_the_whole_suite_only(tmp_path: Path) -> None:
    table_path = tmp_path / "requirements.toml"
    table_path.write_text((ROOT / "conformance" / "requirements.toml").read_text() + (
        '\n[[requirement]]\nid = "BAT-9"\nlevel = "MUST"\nchecks = "A row nobody wrote a case for."\n'))
    session = opened(tmp_path, requirements=table_path)
    session.plan(whole())
    assert session.report.problems == [
        "requirement rows with no case (add a case, or exclude the row with a reason): BAT-9"]
    part = opened(tmp_path, requirements=table_path)
    part.plan(whole()[1:])  # one module short: -k or a path chose part of the suite
    assert part.report.problems == []


def test_a_case_claiming_a_missing_row_stops_the_run(tmp_path: Path) -> None:
    table_path = tmp_path / "requirements.toml"
    rows = (ROOT / "conformance" / "requirements.toml").read_text().split("[[requirement]]")
    table_path.write_text("[[requirement]]".join(r for r in rows if 'id = "RES-3"' not in r))
    with pytest.raises(UsageProblem, match="checks 'RES-3', which is not in the requirement table"):
        opened(tmp_path, requirements=table_path).plan([planned("test_res", ("RES-3",))])


def test_baseline_entries_name_rows_or_cases_with_or_without_their_revision(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.txt"
    baseline.write_text(f"{DIG_1.name.split('[')[0]}: the digest is ignored\ntest_scenario[BAT-1]: fixed long ago\n"
                        "test_scenario[NOPE-9-2026-07-28]: never existed\nDIG-3: an excluded row\n")
    session = opened(tmp_path, baseline=baseline)
    session.plan(whole(DIG_1, *BAT_1))
    said = {nodeid: [entry.said for entry in entries] for nodeid, entries in session.baselined.items()}
    assert said == {
        DIG_1.nodeid: ["baseline test_dig_1_dig_2_answer_to_a_reworded_question_is_dropped: the digest is ignored"],
        **{case.nodeid: ["baseline test_scenario[BAT-1]: fixed long ago"] for case in BAT_1}}
    # Stale entries are judged on the whole suite: an excluded row's entry can never match.
    assert session.report.problems == [
        "stale baseline entry (line 3): test_scenario[NOPE-9-2026-07-28] matches no case",
        "stale baseline entry (line 4): DIG-3 matches no case"]
    # A baselined case that fails is an expected failure; one that passes is stale.
    ran(session, DIG_1, CheckFailed("DIG-1", "DIG-1: reworded."), (("DIG-1", False, "reworded"),),
        result="skipped", xfail=session.baselined[DIG_1.nodeid][0].said)
    ran(session, BAT_1[0])
    outcomes = session.report.outcomes
    sentence = f"DIG-1: reworded. Required: {Table.load().rows['DIG-1'].checks}"
    assert outcomes[DIG_1.nodeid].status == Status.EXPECTED
    assert outcomes[DIG_1.nodeid].expected_because == "the digest is ignored"  # what a written baseline keeps
    assert outcomes[DIG_1.nodeid].rows == {"DIG-1": {"status": "expected failure", "message": sentence},
                                           "DIG-2": {"status": "not reached"}}
    assert outcomes[BAT_1[0].nodeid].status == Status.STALE
    assert outcomes[BAT_1[0].nodeid].message == (
        "passes now: remove its baseline entry, which expected it to fail (baseline test_scenario[BAT-1]: fixed long ago)")


def test_a_run_of_one_revision_drops_the_others_cases(tmp_path: Path) -> None:
    session = opened(tmp_path, revision=OLD)
    assert session.plan([DIG_1, *BAT_1]) == [DIG_1.nodeid, BAT_1[0].nodeid]
    assert list(session.report.outcomes) == [BAT_1[1].nodeid]
    properties = dict(session.properties(BAT_1[1].nodeid))
    assert (properties["case"], properties["level"], properties["revision"]) == ("BAT-1", "MUST", OLD)
    source = Table.load().source_of("BAT-1")
    assert properties["source BAT-1"] == source.get("url", f"feature contract: {source.get('promise')}")
    session.deselected([BAT_1[1].nodeid])  # -k left it out too
    assert session.report.outcomes == {} and not session.runs_any([BAT_1[1].nodeid])


def test_a_failed_check_reads_as_its_sentence_in_the_case_and_its_rows(tmp_path: Path) -> None:
    session = opened(tmp_path)
    session.plan([DIG_1])
    session.started(DIG_1.nodeid)
    ledger = verdict.Ledger(session.table)
    ledger.record("DIG-2", True, "")
    sentence = ledger.record("DIG-1", False, "reworded while answered")
    session.ended(Ended(DIG_1.nodeid, "setup", "passed"), None, ledger)
    said, stderr = session.ended(Ended(DIG_1.nodeid, "call", "failed", 0.25, raised=True,
                                       error=CheckFailed("DIG-1", sentence)), None, ledger)
    session.ended(Ended(DIG_1.nodeid, "teardown", "passed", 0.25), None, ledger)
    outcome = session.report.outcomes[DIG_1.nodeid]
    assert said == sentence == outcome.message and sentence.startswith("DIG-1: reworded while answered. Required: ")
    assert (outcome.status, outcome.duration, stderr) == (Status.FAIL, 0.5, "")
    # DIG-2's checks held until DIG-1 failed; those after the stop never ran.
    assert outcome.rows == {"DIG-1": {"status": "fail", "message": sentence}, "DIG-2": {"status": "not reached"}}
    assert Line(f"  FAIL: {DIG_1.name}: {sentence}", "red") in summary(session)


@pytest.mark.parametrize(("error", "status", "begins"), [
    (NotTestable("the target has no tool 'book_destination'", "book_destination missing"), Status.NOT_TESTABLE,
     "Not testable: the target has no tool"),
    (TimedOut("the server did not answer tools/call within 8 s"), Status.TIMED_OUT, "the server did not answer"),
    (KeyError("content"), Status.FAIL, "internal error of elicit-conformance, not a verdict on the server: KeyError"),
])
def test_a_case_that_proved_nothing_says_why_in_every_row(
        tmp_path: Path, error: BaseException, status: Status, begins: str) -> None:
    session = opened(tmp_path)
    session.plan([DIG_1])
    ran(session, DIG_1, error)
    outcome = session.report.outcomes[DIG_1.nodeid]
    assert outcome.status == status and outcome.message.startswith(begins)
    why = {Status.FAIL: "not reached"}.get(status, str(status))
    assert {row: result["status"] for row, result in outcome.rows.items()} == {"DIG-1": why, "DIG-2": why}
    assert session.shown(DIG_1.nodeid, failed=True) == (
        {Status.NOT_TESTABLE: (status, "N", "NOT TESTABLE"), Status.TIMED_OUT: (status, "T", "TIMED OUT")}.get(status))


def test_tools_declared_not_implemented_and_extensions_not_offered_skip_their_cases(tmp_path: Path) -> None:
    declared = tmp_path / "not-implemented.txt"
    declared.write_text("book_profile: profiles are out of scope\n")
    session = opened(tmp_path, not_implemented=declared)
    cases = [planned(f"test_{n}", ("DIG-1",)) for n in ("declared", "undeclared", "not_offered")]
    session.plan(cases)
    missing = NotTestable("no book_destination", tools=("book_destination",))
    assert session.declared_missing(cases[0].nodeid, NotTestable("no book_profile", tools=("book_profile",))) == (
        "not implemented (declared): book_profile: profiles are out of scope")
    assert session.declared_missing(cases[1].nodeid, missing) is None and missing.cause == "book_destination missing"
    assert session.declared_missing(cases[2].nodeid, NotOffered("no tasks", "tasks not offered")) == (
        "not implemented (not advertised): no tasks")
    for case, skipped in zip(cases, (True, False, True), strict=True):
        ran(session, case, None if skipped else missing, result="skipped" if skipped else "failed",
            message="not implemented" if skipped else "")
    assert [(o.status, o.cause) for o in session.report.outcomes.values()] == [
        (Status.NOT_IMPLEMENTED, "book_profile not implemented"), (Status.NOT_TESTABLE, "book_destination missing"),
        (Status.NOT_IMPLEMENTED, "tasks not offered")]


def test_a_row_checked_but_not_claimed_fails_the_run_once(tmp_path: Path) -> None:
    session = opened(tmp_path)
    session.plan([DIG_1])
    ran(session, DIG_1, checked=(("BAT-1", True, ""),))
    assert session.report.problems == [
        f"{DIG_1.nodeid} checks BAT-1 without claiming it: add it to the case's @pytest.mark.checks"]
    assert session.finish() is True  # a run-level problem fails the run whatever its cases did


def test_a_workers_verdicts_and_findings_reach_the_controller_once(tmp_path: Path) -> None:
    worker, controller = opened(tmp_path), opened(tmp_path)
    worker.plan(whole(DIG_1))
    worker.report.problems.append("stale baseline entry (line 1): X matches no case")
    ran(worker, DIG_1)
    worker.warned(DIG_1.nodeid, "DIG-2/clear: vague")
    controller.received(DIG_1.nodeid, json.loads(json.dumps(worker.verdict_of(DIG_1.nodeid))))
    for _ in range(2):  # every worker judges the run the same
        controller.merged(json.loads(json.dumps(worker.worker_output())))
    assert controller.report.outcomes[DIG_1.nodeid] == worker.report.outcomes[DIG_1.nodeid]
    assert controller.report.problems == worker.report.problems
    assert controller.verdict_of("nope") is None


def test_the_end_writes_the_reports_and_a_baseline_of_what_did_not_pass(tmp_path: Path) -> None:
    session = opened(tmp_path, write_baseline=tmp_path / "baseline.txt")
    session.plan([DIG_1, *BAT_1])
    ran(session, DIG_1, CheckFailed("DIG-1", "DIG-1: reworded while answered."))
    for case in BAT_1:
        ran(session, case)
    assert session.finish() is False  # a failing case fails the run through pytest, not here
    index = json.loads((tmp_path / "report" / "index.json").read_text())
    assert {c["nodeid"]: c["status"] for c in index["cases"]} == {
        DIG_1.nodeid: "fail", BAT_1[0].nodeid: "pass", BAT_1[1].nodeid: "pass"}
    written = (tmp_path / "baseline.txt").read_text()
    assert f"{DIG_1.name}: DIG-1: reworded while answered." in written and "BAT-1" not in written
    lines = [line.text for line in summary(session)]
    assert lines[0] == session.report.headline() and f"  report: {tmp_path / 'report' / 'summary.md'}" in lines
    assert f"  baseline written: {tmp_path / 'baseline.txt'}" in lines


def test_the_demo_baseline_reads_as_one_expected_failure(tmp_path: Path) -> None:
    session = opened(tmp_path, baseline=BASELINE)
    session.plan(whole(DIG_1))
    assert [entry.said for entry in session.baselined[DIG_1.nodeid]] == [
        "baseline DIG-1[2026-07-28]: the digest is ignored, so reworded questions keep old answers"]
    assert session.report.problems == []
    assert session.header()[2] == "elicit-conformance baseline: 1 expected failure(s)"


def test_a_case_calling_a_tool_it_does_not_declare_fails_the_run(tmp_path: Path) -> None:
    """The contract lists each case's tools from its declaration: a call outside it fails."""
    session = opened(tmp_path)
    declared = Planned(DIG_1.nodeid, DIG_1.name, DIG_1.path, DIG_1.checks, NEW, tools=("book_reworded",))
    session.plan([declared])
    case = Case(session.target, session.case_id())
    for tool in ("book_reworded", "set_copy", "not_in_the_catalog"):
        case.transcript.messages.append(("sent", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                                  "params": {"name": tool, "arguments": {}}}))
    session.ended(Ended(DIG_1.nodeid, "teardown", "passed"), case, None)
    assert session.report.problems == [
        f"{DIG_1.nodeid} calls set_copy without declaring it: add it to the case's @pytest.mark.tools"]


def test_strict_fails_a_should_not_met_only_after_every_check_was_judged(tmp_path: Path) -> None:
    """Under --conformance-strict a SHOULD row not met fails its case, but only once the
    case's checks are all judged: the rows after it read what they found, not "not reached"."""
    table = Table.load()
    should_row = next(r.id for r in table.rows.values() if r.level == "SHOULD" and not r.excluded)
    case = planned("test_strict", ("BAT-1", should_row, "BAT-2"))
    ledger = verdict.Ledger(table)
    ledger.record(should_row, False, "the error names nothing")
    ledger.record("BAT-2", True, "")
    lenient, strict = opened(tmp_path), opened(tmp_path, strict=True)
    for session in (lenient, strict):
        session.plan([case])
    assert lenient.strictly_failed(case.nodeid, ledger) is None
    unmet = strict.strictly_failed(case.nodeid, ledger)
    assert unmet is not None and str(unmet) == ledger.sentences[should_row]
    strict.started(case.nodeid)
    strict.ended(Ended(case.nodeid, "call", "failed", raised=True, error=unmet), None, ledger)
    outcome = strict.report.outcomes[case.nodeid]
    assert outcome.status == Status.FAIL and outcome.message == ledger.sentences[should_row]
    assert {row: r["status"] for row, r in outcome.rows.items()} == {
        "BAT-1": "not reached", should_row: "fail", "BAT-2": "pass"}
    assert strict.strictly_failed("not planned", ledger) is None
