"""Grading end to end, where it needs a real pytest run: baselines as xfail marks, -k by
case ID, SHOULD under --conformance-strict, "Not testable", and one sentence in every
report (terminal, JUnit, index.json). Each runs the real suite in a child process; the
session's logic itself is tested in-process (tests/test_session.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from elicit_conformance.catalog import load
from tests.suite import BASELINE, BRIEF, FUZZ, NO_DIGEST, TASKS_SERVED, finish, run, start

HOSTILE = (
    "conformance/cases/test_hostile_input.py::"
    "test_sec_1_sec_3_generated_attacks_never_crash_credit_or_run_the_body[2026-07-28]"
)
DIG_1 = "conformance/cases/test_behaviours.py::test_dig_1_dig_2_answer_to_a_reworded_question_is_dropped[2026-07-28]"

pytestmark = pytest.mark.usefixtures("quick_attacks")


def test_demo_baseline_holds_the_one_failing_case(tmp_path: Path) -> None:
    result = run(tmp_path / "run", NO_DIGEST, f"--conformance-baseline={BASELINE}")
    assert result.returncode == 0, result.output[-3000:]
    assert result.statuses()[DIG_1] == "expected failure"
    assert set(result.judged().values()) == {"pass", "expected failure"}


def test_without_the_entry_the_case_fails(tmp_path: Path) -> None:
    result = run(tmp_path / "run", NO_DIGEST)
    assert result.returncode == 1
    assert [n for n, s in result.judged().items() if s != "pass"] == [DIG_1]
    # Every report says the same sentence: JUnit's message, index.json, the terminal.
    (failure,) = ET.parse(tmp_path / "run" / "junit.xml").iter("failure")
    (case,) = [c for c in result.index["cases"] if c["nodeid"] == DIG_1]
    assert failure.get("message") == case["message"] and case["message"].startswith("DIG-1: reworded while")
    assert case["rows"] == {"DIG-1": {"status": "fail", "message": case["message"]},
                            "DIG-2": {"status": "not reached"}}
    # The terminal says it once, in the case's section; its summary line names the row.
    assert result.output.count(case["message"]) == 1, result.output[-3000:]
    assert f"FAIL: {case['test_id']}: DIG-1 (its sentence is above)" in result.output
    assert "AssertionError" not in result.output and "Traceback" not in result.output


def test_a_stale_entry_fails_the_run(tmp_path: Path) -> None:
    # Entries by test id, as pytest names the cases: with the revision, and without it.
    stale = tmp_path / "baseline.txt"
    stale.write_text("test_dig_1_dig_2_answer_to_a_reworded_question_is_dropped: the digest is ignored\n"
                     "test_scenario[BAT-1-2026-07-28]: fixed long ago\nDIG-3: no case checks this\n")
    # DIG-3 is an excluded row: an entry for it can never match, and says so.
    result = run(tmp_path / "run", NO_DIGEST, f"--conformance-baseline={stale}")
    assert result.returncode == 1
    assert result.statuses()["conformance/cases/test_scenarios.py::test_scenario[BAT-1-2026-07-28]"] == "stale baseline"
    assert result.statuses()[DIG_1] == "expected failure"
    assert "stale baseline entry (line 3): DIG-3 matches no case" in result.output
    assert [n for n, s in result.judged().items() if s not in ("pass", "expected failure")] == [
        "conformance/cases/test_scenarios.py::test_scenario[BAT-1-2026-07-28]"]


def test_k_selects_by_any_case_id(tmp_path: Path) -> None:
    result = run(tmp_path / "run", "-k", "SEC-2 or BAT-4")
    assert result.returncode == 0, result.output[-3000:]
    chosen = result.index["cases"]
    assert chosen and all({"SEC-2", "BAT-4"} & set(row["checks"]) for row in chosen)
    assert any("SEC-2" in row["checks"] for row in chosen) and any("BAT-4" in row["checks"] for row in chosen)


def test_should_warns_and_fails_only_under_strict(tmp_path: Path) -> None:
    vague = "--server=elicit_conformance.fixtures.mutants.vague_errors:app"
    # The attacks unshrunk (`brief`): under strict their first vague refusal fails the case,
    # and shrinking it (10 s) would say nothing this test reads.
    started = {name: start(tmp_path / name, vague, *options, env=BRIEF) for name, options in
               (("lenient", ()), ("strict", ("--conformance-strict",)))}
    lenient = finish(started["lenient"], tmp_path / "lenient")
    assert lenient.returncode == 0, lenient.output[-3000:]
    assert "SHOULD not met: TYP-4/clear: the error does not name 'destination'" in lenient.output
    strict = finish(started["strict"], tmp_path / "strict")
    assert strict.returncode == 1
    failed = {n for n, s in strict.statuses().items() if s == "fail"}
    assert failed == {
        f"conformance/cases/test_scenarios.py::test_scenario[{case}-{revision}]"
        for case in ("TYP-3", "TYP-4", "TYP-4/lax", "TYP-7/unlisted", "TYP-7/no-value", "RES-9", "RES-9/text",
                     *(sid for sid in load().scenarios if sid.startswith("RES-9/space_mismatch_")))
        for revision in ("2026-07-28", "2025-11-25")
    } | {  # its generated wrong-type answers get the same vague refusal (SEC-3/clear)
        HOSTILE,
    } | ({  # and so does TYP-4 run as a task
        "conformance/cases/test_tasks.py::test_task_2_scenario_tasked[2026-07-28-TYP-4]",
    } if TASKS_SERVED else set())


def test_a_server_with_none_of_the_tools_is_not_testable_and_proves_nothing(tmp_path: Path) -> None:
    (tmp_path / "bare_server.py").write_text("from fastmcp import FastMCP\n\napp = FastMCP('bare')\n")
    result = run(tmp_path / "run", "--server=bare_server:app", env={"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 1
    statuses = result.statuses()
    # Registration is not on the wire, nor in-process without an adapter: skipped alike.
    assert {n for n, s in statuses.items() if s == "skipped"} == {n for n in statuses if "test_registration.py::" in n}
    # TASK cases read "not implemented": a bare FastMCP app does not offer the tasks extension.
    assert {s for s in statuses.values()} == {"not testable", "skipped", "not implemented"}
    summary = (tmp_path / "run" / "report" / "summary.md").read_text()
    # One line per cause, not one per case.
    assert "- not testable: book_destination missing: " in summary
    assert "| test_scenario[BAT-1-2026-07-28] |" not in summary
    assert "this run proved nothing about the target" in result.output
    assert result.index["proved_nothing"] is True


def test_a_generated_attack_that_succeeds_reads_as_a_sentence_its_smallest_example_and_its_source(
    tmp_path: Path,
) -> None:
    # A mutant that carries on with state it cannot read: tampered state is SEC-1's (a replay of
    # another call's authentic state would be SEC-2's, a promise of the feature's).
    result = run(tmp_path / "run", "--server=elicit_conformance.fixtures.mutants.unreadable_state_trusted:app",
                 "-k", "generated_attacks", env={FUZZ: "ci"})
    (case,) = result.index["cases"]
    message = case["message"]
    assert case["status"] == "fail" and message.startswith("SEC-1: the call completed with other data than the user gave")
    assert "Smallest failing example: answers: destination 'Paris', airport 'CDG'; round 1: honest; round 2: garbage" in message
    assert len(message) < 600 and "\n" not in message
    assert case["rows"]["SEC-1"]["status"] == "fail" and case["rows"]["SEC-3"]["status"] in ("pass", "not reached")
    # The terminal says the same sentence, and no hypothesis repr or exception group.
    assert "ExceptionGroup" not in result.output and "Falsifying example" not in result.output
    # Every report links the failing row to the sentence of the specification it rests on.
    sentence = "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#server-requirements-basic-workflow"
    assert case["sources"]["SEC-1"]["url"] == sentence and case["sources"]["SEC-1"]["keyword"] == "MUST"
    assert "MUST reject state that fails verification" in case["sources"]["SEC-1"]["quote"]
    summary = (result.directory / "report" / "summary.md").read_text()
    assert f"SEC-1 (fail; [MUST]({sentence}))" in summary, summary
    junit = (result.directory / "junit.xml").read_text()
    assert f'<property name="source SEC-1" value="{sentence}"' in junit
    verdicts = (result.directory / "report" / "verdicts.md").read_text().splitlines()
    assert any(line.startswith("| SEC-1 | MUST | fail |") and sentence in line for line in verdicts), verdicts
