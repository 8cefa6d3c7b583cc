"""`python -m elicit_conformance.compare OLD NEW` on the reports of the reference and of
a mutant: it names exactly the cases whose verdicts changed, and fails on them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from elicit_conformance.dev import implementations
from tests.suite import QUICK, ROOT, SuiteRun, run

MUTANT = "one_per_round"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, SuiteRun]:
    tmp = tmp_path_factory.mktemp("compare")
    # Reports compared, not hostile input judged: the attacks on their quick profile (a
    # module fixture runs before the `quick_attacks` of a test could set it).
    return {"reference": run(tmp / "reference", env=QUICK),
            "mutant": run(tmp / "mutant", f"--server=elicit_conformance.fixtures.mutants.{MUTANT}:app", env=QUICK)}


def compare(*arguments: Path | str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "elicit_conformance.compare", *map(str, arguments)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_it_names_exactly_the_cases_whose_verdicts_changed(reports: dict[str, SuiteRun], tmp_path: Path) -> None:
    before, after = ({c["test_id"]: c["status"] for c in reports[k].index["cases"]} for k in ("reference", "mutant"))
    changed = {test_id for test_id in before if before[test_id] != after.get(test_id)}
    assert changed and all(after[t] == "fail" for t in changed), changed
    done = compare(reports["reference"].directory / "report", reports["mutant"].directory / "report",
                   "-o", tmp_path / "comment.md")
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr
    table = done.stdout.split("#### ", 1)[0]
    named = {line.split("`")[1] for line in table.splitlines() if line.startswith("| `")}
    assert named == changed, named ^ changed
    assert all(f"| `{t}` | pass | fail | worse |" in table for t in changed)
    assert (tmp_path / "comment.md").read_text() + "\n" == done.stdout
    # The transcripts that changed are shown as diffs, one section each.
    assert f"{len(changed)} verdict(s) changed, {len(changed)} worse" in done.stdout
    assert "```diff" in done.stdout
    # Each diff says which report each side came from; neither is a golden transcript.
    assert f"--- {reports['reference'].directory / 'report'} " in done.stdout and "golden" not in done.stdout


def test_a_run_compared_with_itself_changes_nothing(reports: dict[str, SuiteRun]) -> None:
    report = reports["reference"].directory / "report"
    done = compare(report, report)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 verdict(s) changed, 0 worse; 0 transcript(s) changed" in done.stdout


def test_a_folder_with_no_report_is_a_usage_error(tmp_path: Path) -> None:
    done = compare(tmp_path, tmp_path)
    assert done.returncode == 2
    assert "index.json does not exist: give a directory a run wrote with --conformance-report" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_reference_report_the_matrix_keeps_is_current(reports: dict[str, SuiteRun]) -> None:
    """docs/implementations.md draws the reference from fixtures/peers/reports/reference.json
    (checked here, where the reference's whole run with a report already is)."""
    assert implementations.kept(reports["reference"].index) == implementations.committed("reference"), (
        "fixtures/peers/reports/reference.json is stale: run `python -m elicit_conformance.dev.regenerate --peers`")
