"""`pytest conformance/cases -n 2`: the same verdicts and one report, as without
xdist. The SDK peer is the target, since it fails, is not testable and misses
SHOULD rows: every kind of verdict has to cross from the workers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.suite import BASELINE, NO_DIGEST, ROOT, SuiteRun, finish, run, start

pytestmark = pytest.mark.usefixtures("quick_attacks")

SDK_PEER = "--server=elicit_conformance.fixtures.peers.mcp_sdk:app"
#: What a case's verdict is, without what differs run to run (time, state sizes).
VERDICT = ("status", "message", "should_not_met", "checks", "revision", "level", "transcript")


def _verdicts(result: SuiteRun) -> dict[str, dict[str, Any]]:
    return {row["nodeid"]: {key: row[key] for key in VERDICT} for row in result.index["cases"]}


def test_a_distributed_run_writes_the_report_of_a_single_one(tmp_path: Path) -> None:
    alone = start(tmp_path / "alone", SDK_PEER, f"--conformance-write-baseline={tmp_path / 'alone.txt'}")
    spread = run(tmp_path / "spread", SDK_PEER, f"--conformance-write-baseline={tmp_path / 'spread.txt'}", "-n", "2")
    alone = finish(alone, tmp_path / "alone")
    assert "bringing up nodes" in spread.output, spread.output[-2000:]
    assert alone.returncode == spread.returncode == 1
    statuses = {row["status"] for row in spread.index["cases"]}
    assert {"pass", "fail", "not testable"} <= statuses, statuses
    assert any(row["should_not_met"] for row in spread.index["cases"]), "no SHOULD warning reached the controller"
    assert _verdicts(spread) == _verdicts(alone)
    for name in ("summary.md", "verdicts.md"):
        assert (spread.directory / "report" / name).read_text() == (alone.directory / "report" / name).read_text(), name
    for row in spread.index["cases"]:
        if row["transcript"]:
            assert (spread.directory / "report" / row["transcript"]).read_text(), row["nodeid"]
    # The first line of a written baseline says when and against what; the entries are the same.
    written = [(tmp_path / f"{name}.txt").read_text().splitlines()[1:] for name in ("alone", "spread")]
    assert written[0] == written[1] and len(written[0]) > 5
    assert spread.output.count("elicit-conformance against") == 1, "one summary, from the controller"


def test_stale_baseline_entries_are_judged_across_workers(tmp_path: Path) -> None:
    stale = tmp_path / "baseline.txt"
    stale.write_text(BASELINE.read_text() + "BAT-1[2026-07-28]: fixed long ago\nDIG-3: no case checks this\n")
    # The cases its entries name (and one of another row): whether an entry is stale is judged
    # per case, on whichever worker runs it; the whole suite's grading is test_grading's.
    result = run(tmp_path / "run", NO_DIGEST, f"--conformance-baseline={stale}", "-n", "2", "-k", "BAT-1 or DIG-1 or ORD-1")
    assert result.returncode == 1, result.output[-3000:]
    statuses = result.statuses()
    assert statuses["conformance/cases/test_scenarios.py::test_scenario[BAT-1-2026-07-28]"] == "stale baseline"
    assert "expected failure" in statuses.values()
    # Every worker finds it; the run reports it once.
    assert result.output.count("stale baseline entry (line 7): DIG-3 matches no case") == 1, result.output[-3000:]
    assert result.index["problems"] == ["stale baseline entry (line 7): DIG-3 matches no case"]


def test_row_coverage_is_judged_across_workers(tmp_path: Path) -> None:
    table = tmp_path / "requirements.toml"
    table.write_text((ROOT / "conformance" / "requirements.toml").read_text() + (
        '\n[[requirement]]\nid = "BAT-9"\nlevel = "MUST"\nchecks = "A row nobody wrote a case for."\n'
    ))
    result = run(tmp_path / "run", f"-o=elicit_requirements={table}", "-k", "BAT-1", "-n", "2")
    problem = "requirement rows with no case (add a case, or exclude the row with a reason): BAT-9"
    # The cases that ran pass; the uncovered row, found by every worker, fails the run once.
    assert set(result.judged().values()) == {"pass"}, result.output[-3000:]
    assert result.returncode == 1 and result.index["problems"] == [problem]
    assert result.output.count(problem) == 1, result.output[-3000:]
