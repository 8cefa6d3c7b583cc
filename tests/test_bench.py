"""The benchmark script runs and reports what it measures (its numbers are not judged here)."""

from __future__ import annotations

import pytest

from pathlib import Path

from elicit_conformance.bench import costs, measures, table
from elicit_conformance.catalog import load


def test_floor_is_the_depth_of_the_question_graph() -> None:
    catalog = load()
    floors = {case_id: catalog.floor(catalog.scenarios[case_id]) for case_id in ("ORD-5", "ORD-4", "BAT-3", "RES-1")}
    assert floors == {"ORD-5": 3, "ORD-4": 2, "BAT-3": 1, "RES-1": 0}


def test_the_table_has_every_measure(capsys: pytest.CaptureFixture[str]) -> None:
    table.main(["--calls", "3", "--no-suite"])
    printed = capsys.readouterr().out
    assert printed.startswith("elicit-conformance benchmarks, ")
    rounds = [line for line in printed.splitlines() if line.startswith("| rounds ")]
    # And RES-1 and RES-1/async, which ask nothing: their floor is 0.
    assert len(rounds) == len([s for s in load().scenarios.values() if s.expect.rounds]) + 2
    # Rounds are counts, not timings: the reference asks at the floor on every scenario.
    assert all(line.split(" | ")[1] == line.split("(floor ")[1].split(")")[0] for line in rounds)
    assert printed.count("server µs, median") == 5
    assert "request_state bytes after k = 1, 2, 4, 8, 16, 32 answers" in printed
    assert "| unrelated 3-test project, plugin installed" in printed


def test_a_suite_row_reads_the_verdicts_of_the_run_it_times() -> None:
    timed = measures.suite("-k", "test_scenario and OPT-3")
    assert timed.returncode == 0 and timed.seconds > 0 and timed.cpu > 0
    assert set(timed.statuses.values()) == {"pass"} and len(timed.statuses) == 2, timed.statuses


def test_a_test_runs_costs_are_read_back_and_stated_in_suite_units(tmp_path: Path) -> None:
    path = tmp_path / "cost.json"
    assert costs.read(path) == {}  # a run that failed before its summary wrote nothing
    costs.write(path, {"test_a.py": (30.0, 12.5), "test_b.py": (6.0, 2.0)})
    files = costs.read(path)
    assert files == {"test_a.py": (30.0, 12.5), "test_b.py": (6.0, 2.0)}
    rows = costs.units_table(files, suite_cpu=12.0)
    assert rows[2] == "| test_a.py | 30.0 | 12.5 | 2.50 |" and rows[3] == "| test_b.py | 6.0 | 2.0 | 0.50 |"
    assert rows[-1] == "| all files | 36.0 | 14.5 | 3.0 |"
