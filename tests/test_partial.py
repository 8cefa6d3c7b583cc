"""A partial implementation gets an honest, green run: the tools it declares not
implemented are listed once each, apart from the baseline, and a real bug in
what it does implement still fails the run with one sentence."""

from __future__ import annotations

import textwrap
from pathlib import Path

from elicit_conformance.catalog import load
from tests.suite import run

#: A small server of its own, written on the reference's engine: three tools of the contract.
SERVER = '''
from typing import Annotated

from elicit_conformance.reference import DeclarativeFastMCP, Elicit

app = DeclarativeFastMCP("partial")
runs: dict[str, int] = {}


@app.tool
def body_runs(ref: str) -> int:
    return runs.get(ref, 0)


@app.tool
def book_destination(ref: str, destination: Annotated[str, Elicit("Where would you like to fly?")]) -> str:
    """Book a flight; where to is asked of the user."""
    runs[ref] = runs.get(ref, 0) + 1
    return f"Booked a flight to {destination}"


@app.tool
def book_trip(
    ref: str,
    destination: Annotated[str, Elicit("Where would you like to fly?")],
    date: Annotated[str, Elicit("When would you like to fly?")],
    cabin: Annotated[str, Elicit("Which cabin class?")],
) -> str:
    runs[ref] = runs.get(ref, 0) + 1
    return f"{destination} on {date} in {CABIN}"
'''
IMPLEMENTED = {"body_runs", "book_destination", "book_trip"}


def _project(tmp_path: Path, cabin: str) -> tuple[Path, Path]:
    (tmp_path / "partial_server.py").write_text(SERVER.replace("{CABIN}", cabin))
    declared = tmp_path / "not-implemented.txt"
    declared.write_text("# what this server leaves out\n" + "".join(
        f"{tool}: out of scope for this server\n" for tool in sorted(load().tools) if tool not in IMPLEMENTED
    ))
    return tmp_path / "partial_server.py", declared


def test_a_declared_partial_implementation_exits_0_and_lists_each_missing_tool_once(tmp_path: Path) -> None:
    _, declared = _project(tmp_path, "{cabin}")
    result = run(tmp_path / "run", "--server=partial_server:app", f"--conformance-not-implemented={declared}",
                 f"--conformance-write-baseline={tmp_path / 'baseline.txt'}", env={"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 0, result.output[-3000:]
    statuses = result.statuses()
    assert "pass" in statuses.values() and "not testable" not in statuses.values()
    assert {s for s in statuses.values()} <= {"pass", "not implemented", "skipped"}
    summary = (tmp_path / "run" / "report" / "summary.md").read_text()
    lines = [line for line in summary.splitlines() if line.startswith("- not implemented: ")]
    causes = [line.removeprefix("- not implemented: ").split(" not implemented:")[0] for line in lines]
    # One line per tool, each tool once; and one for the task cases (a bare FastMCP app offers no tasks).
    tasks = [c for c in causes if c.startswith("io.modelcontextprotocol/tasks not offered: ")]
    tools = [c for c in causes if c not in tasks]
    assert len(tasks) == 1 and len(tools) == len(set(tools)) and set(tools) <= set(load().tools) - IMPLEMENTED
    assert "| not implemented |" not in summary
    # The baseline holds real failures only: none here.
    assert [line for line in (tmp_path / "baseline.txt").read_text().splitlines() if not line.startswith("#")] == []


def test_a_real_bug_in_a_partial_implementation_fails_with_one_sentence(tmp_path: Path) -> None:
    _, declared = _project(tmp_path, "business")  # answers 'economy', books business
    result = run(tmp_path / "run", "--server=partial_server:app", f"--conformance-not-implemented={declared}",
                 env={"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 1
    failed = {row["test_id"]: row for row in result.index["cases"] if row["status"] == "fail"}
    assert set(failed) == {"test_scenario[BAT-3-2026-07-28]", "test_scenario[BAT-3-2025-11-25]"}
    message = failed["test_scenario[BAT-3-2026-07-28]"]["message"]
    assert message == (
        "BAT-3: the call returned 'Paris on 2026-08-01 in business'; the catalog's result is "
        "'Paris on 2026-08-01 in economy'. Required: Independent questions are asked together, in one round."
    )
    # Once per failing case (both revisions fail alike), in its section; the summary names the row.
    assert result.output.count(message) == len([c for c in failed.values() if c["message"] == message]) == 2
    assert "FAIL: test_scenario[BAT-3-2026-07-28]: BAT-3 (its sentence is above)" in result.output


def test_a_declared_tool_the_target_has_is_a_stale_line(tmp_path: Path) -> None:
    _, declared = _project(tmp_path, "{cabin}")
    declared.write_text(declared.read_text() + "book_destination: we thought we had not\n")
    result = run(tmp_path / "run", "--server=partial_server:app", f"--conformance-not-implemented={declared}",
                 env={"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 1
    assert ("stale not-implemented line: the target lists 'book_destination', declared not implemented "
            "(we thought we had not); remove the line so its cases run") in result.output


def test_an_unknown_tool_in_the_declaration_is_a_usage_error(tmp_path: Path) -> None:
    declared = tmp_path / "not-implemented.txt"
    declared.write_text(textwrap.dedent("""\
        book_nothing: no such tool
    """))
    result = run(tmp_path / "run", f"--conformance-not-implemented={declared}", "--collect-only")
    assert result.returncode == 4
    assert "line 1: 'book_nothing' is not a tool of the contract (docs/contract.md)" in result.output
