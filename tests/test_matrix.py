"""The matrix across implementations (`python -m elicit_conformance.matrix`), the
repository's own page drawn from it (docs/implementations.md), and the badge a
report writes per revision."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from elicit_conformance.dev import implementations
from elicit_conformance.reporting.report import Report
from elicit_conformance.requirements import Table
from tests.suite import ROOT

KEPT = ROOT / "fixtures" / "peers" / "reports"


def matrix(*arguments: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "elicit_conformance.matrix", *map(str, arguments)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


def test_the_implementations_page_is_drawn_from_the_kept_reports() -> None:
    assert implementations.PAGE.read_text() == implementations.page(), (
        "docs/implementations.md is stale: run `python -m elicit_conformance.dev.implementations`")


def test_the_mcp_sdk_peers_own_table_is_drawn_from_its_kept_report() -> None:
    doc = implementations.SDK_PAGE.read_text()
    assert implementations.with_sdk_table(doc) == doc, (
        "docs/mcp-sdk.md's table is stale: run `python -m elicit_conformance.dev.implementations`")


def test_every_implementation_has_a_kept_report_and_each_a_column_per_revision() -> None:
    assert sorted(p.stem for p in KEPT.glob("*.json")) == sorted(implementations.IMPLEMENTATIONS)
    header = next(line for line in implementations.page().splitlines() if line.startswith("| Requirement"))
    for transport in ("in-process", "HTTP", "stdio"):
        for revision in ("2026-07-28", "2025-11-25"):
            assert f"{transport} {revision}" in header, (transport, revision)


def test_the_command_draws_any_reports_in_markdown_and_html(tmp_path: Path) -> None:
    done = matrix(f"mine={KEPT / 'reference.json'}", KEPT / "typescript-http.json", "--html", tmp_path / "m.html")
    assert done.returncode == 0, done.stderr
    header = done.stdout.splitlines()[0]
    assert "| mine in-process 2026-07-28 |" in header
    # Unnamed, a report's column is named by its target (a kept report has none: its transport alone).
    assert "| HTTP 2026-07-28 |" in header
    page = (tmp_path / "m.html").read_text()
    assert '<table class="verdicts">' in page and "mine in-process 2026-07-28" in page and 'class="fail"' in page


def test_a_folder_that_is_no_report_is_said_and_nothing_written(tmp_path: Path) -> None:
    done = matrix(tmp_path, "-o", tmp_path / "out.md")
    assert done.returncode == 2
    assert f"error: {tmp_path / 'index.json'} does not exist: give a directory a run wrote with --conformance-report" \
        in done.stderr
    assert not (tmp_path / "out.md").exists()


def test_a_badge_per_revision_counts_the_must_rows() -> None:
    table = Table.load()
    reference = Report.from_index(implementations.committed("reference")).badges(table)
    musts = {revision: int(badge["message"].split("/")[1].split()[0]) for revision, badge in reference.items()}
    for revision, badge in reference.items():
        assert badge == {"schemaVersion": 1, "label": f"elicit-conformance {revision}",
                         "message": f"{musts[revision]}/{musts[revision]} MUST", "color": "brightgreen"}
    sdk = Report.from_index(implementations.committed("mcp-sdk")).badges(table)
    assert sdk["2026-07-28"]["color"] == "red", sdk  # it fails SCH-2 (docs/mcp-sdk.md)
    passed, total = map(int, sdk["2026-07-28"]["message"].split()[0].split("/"))
    assert 0 < passed < total
