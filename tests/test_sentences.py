"""What a person reads: each verdict a sentence naming what was declared and what the
server did, said once on the terminal, in the suite's voice where it is the suite's."""

from __future__ import annotations

import json
from collections import Counter
import re

import pytest

from elicit_conformance import verdict
from elicit_conformance.catalog import load
from elicit_conformance.exceptions import CheckFailed
from elicit_conformance.grading.checks import check_outcome
from elicit_conformance.harness.driver import MAX_ROUNDS, Run
from elicit_conformance.registration import said
from elicit_conformance.reporting.report import Outcome, Report
from elicit_conformance.requirements import Table
from elicit_conformance.run.judging import row_results
from elicit_conformance.status import Status

CATALOG = load()


def _sentence(run: Run, case_id: str) -> str:
    with verdict.recording(verdict.Ledger(Table.load())), pytest.raises(CheckFailed) as failed:
        check_outcome(run, CATALOG.scenarios[case_id], f"{case_id.split('/')[0]}/clear")
    return str(failed.value)


def test_a_call_that_must_fail_names_the_declared_types() -> None:
    sentence = _sentence(Run(result={"content": [{"type": "text", "text": "Bags: 2"}]}), "RES-9")
    assert sentence.startswith("RES-9: the call completed with 'Bags: 2', but book_bags fails naming bags: its "
                               "resolver (with no declared return type) asks for an integer, which the string "
                               "parameter bags cannot hold."), sentence


def test_the_suites_giving_up_is_said_as_the_suites() -> None:
    still_asking = Run(gave_up=f"the server still asked after {MAX_ROUNDS} rounds (the suite stopped answering there)")
    for case_id in ("BAT-1", "RES-9"):  # one that must complete, one that must fail
        sentence = _sentence(still_asking, case_id)
        assert f"the server still asked after {MAX_ROUNDS} rounds" in sentence, sentence
        assert "the call failed" not in sentence and "null" not in sentence, sentence


def test_a_registration_sentence_names_the_row_once_and_the_wiring() -> None:
    named = said("REG-10/prebuilt")
    assert "REG-10" not in named and "built by the plain tool builder" in named and "'prebuilt'" in named, named


def test_a_long_sentence_in_a_markdown_cell_is_cut_at_a_word() -> None:
    report = Report("t", ("2026-07-28",))
    message = "ERA-6: " + "a prompt declaring Elicit registers without error " * 12
    report.outcomes["n"] = Outcome("n", "test_era_6[2026-07-28]", ["ERA-6"], "2026-07-28", "MUST",
                                   status=Status.FAIL, message=message)
    row = next(line for line in report.markdown().splitlines() if line.startswith("| test_era_6"))
    note = row.split(" | ")[-1].rstrip(" |")
    assert note.endswith(" ...") and message.startswith(note[:-4]) and message[len(note) - 4] == " ", note


def test_a_row_checked_in_part_by_a_case_that_proved_nothing_reads_as_the_case() -> None:
    outcome = Outcome("n", "test_sch_3[2026-07-28]", ["SCH-3"], "2026-07-28", "MUST",
                      status=Status.NOT_IMPLEMENTED, message="book_trip: not implemented")
    ledger = verdict.Ledger(Table.load())
    ledger.rows["SCH-3"] = Status.PASS  # a check that passed before the case stopped
    assert row_results(outcome, ledger, None)["SCH-3"]["status"] == Status.NOT_IMPLEMENTED


def test_a_row_that_held_until_another_row_failed_reads_not_reached() -> None:
    """Seen: GEN-1 on 2025-11-25 read "pass" behind an ORD-7 failure, though the GEN-1
    checks after the stop never ran."""
    outcome = Outcome("n", "test_scenario[GEN-1/space_decorator-2025-11-25]", ["GEN-1", "ORD-7"], "2025-11-25",
                      "MUST", status=Status.FAIL, message="ORD-7: ...")
    ledger = verdict.Ledger(Table.load())
    ledger.rows.update({"GEN-1": Status.PASS, "ORD-7": Status.FAIL})
    rows = row_results(outcome, ledger, None)
    assert (rows["GEN-1"]["status"], rows["ORD-7"]["status"]) == (Status.NOT_REACHED, Status.FAIL), rows
    passed = Outcome("n", "t", ["GEN-1", "ORD-7"], "2025-11-25", "MUST", status=Status.PASS)
    ledger.rows["ORD-7"] = Status.PASS
    assert row_results(passed, ledger, None)["GEN-1"]["status"] == Status.PASS  # a case that ran to its end


def test_the_terminal_says_each_failure_once_without_tracebacks(pytester: pytest.Pytester,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A mutant with many failures, in-process: each failure's sentence once (its
    section; the summary names the case and its rows, and so does pytest's short summary
    line, from the verdict's data), no framework log or traceback (they are in the report's
    client log), and a roll-up a line per cause."""
    monkeypatch.setenv("COLUMNS", "400")  # pytest clips a short summary line to the terminal's width
    result = pytester.runpytest_subprocess(
        "--pyargs", "elicit_conformance.cases", "--server=elicit_conformance.fixtures.mutants.one_per_round:app",
        "-k", "test_scenario and 2026-07-28", "-p", "no:cacheprovider", "--conformance-report=report",
    )
    out = str(result.stdout)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    failed = [c for c in json.loads((pytester.path / "report" / "index.json").read_text())["cases"]
              if c["status"] == "fail"]
    assert len(failed) >= 10, len(failed)
    said = Counter(case["message"] for case in failed)  # two cases may fail alike (OPT-5 and OPT-5/cancel)
    for case in failed:
        assert out.count(case["message"]) == said[case["message"]], (case["test_id"], out.count(case["message"]))
        rows = ", ".join(row for row, result in case["rows"].items() if result["status"] in ("fail", "timed out"))
        assert f"FAIL: {case['test_id']}: {rows} (its sentence is above)" in out, case["test_id"]
        assert f"{case['test_id']} - {rows}\n" in out, case["test_id"]
    for noise in ("Traceback", "Captured stderr", "Captured log", "Error calling tool"):
        assert noise not in out, noise
    assert "Error calling tool" in "".join(p.read_text() for p in (pytester.path / "report").rglob("client-*.log"))


def test_a_stdio_server_that_dies_at_start_quotes_its_stderr(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        "--pyargs", "elicit_conformance.cases", "--server-command=python -c 'import no_such_module'",
        "-p", "no:cacheprovider", "--conformance-report=report",
    )
    err = str(result.stderr)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, err
    assert "ModuleNotFoundError: No module named 'no_such_module'" in err, err
    assert re.search(r"stdio-\d+-1\.log:", err), err
