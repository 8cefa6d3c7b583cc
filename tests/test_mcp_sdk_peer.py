"""The MCP SDK verdict table in docs/mcp-sdk.md is what the suite says today,
and every case that does not pass is explained there."""

from __future__ import annotations

from pathlib import Path

from tests.suite import ROOT, run

DOC = ROOT / "docs" / "mcp-sdk.md"


def test_the_committed_verdict_table_is_current_and_explained(tmp_path: Path) -> None:
    result = run(tmp_path / "run", "--server=elicit_conformance.fixtures.peers.mcp_sdk:app")
    assert result.returncode == 1 and result.index["cases"], result.output[-3000:]
    fresh = (tmp_path / "run" / "report" / "verdicts.md").read_text()
    doc = DOC.read_text()
    committed = doc.split("<!-- verdicts:start -->\n", 1)[1].split("<!-- verdicts:end -->", 1)[0]
    assert committed == fresh, "docs/mcp-sdk.md is stale: re-run its command and paste verdicts.md"
    why = doc.split("## Why each case", 1)[1]
    table, shoulds = why.split("SHOULDs not met", 1)

    def listed(row: str) -> bool:
        return f"\n| {row} |" in table or f"\n| {row} (" in table

    cases = result.index["cases"]
    # A failed row is explained under its own ID; a case that was not testable, under the case's.
    failed = {row for case in cases for row, found in case["rows"].items() if found["status"] == "fail"}
    untestable = {case["case"] for case in cases if case["status"] == "not testable"}
    unmet = {row for case in cases for row, found in case["rows"].items() if found["status"] == "should not met"}
    unexplained = sorted({row for row in failed | untestable if not listed(row)} | {r for r in unmet if r not in shoulds})
    assert not unexplained, f"rows that do not pass with no explanation in docs/mcp-sdk.md: {unexplained}"


def test_the_tools_the_sdk_refuses_are_the_ones_the_doc_explains() -> None:
    from elicit_conformance.fixtures.peers.mcp_sdk import REFUSED

    assert set(REFUSED) == {"book_seat_outside", "book_seat_partial", "book_broken_dependency"}, REFUSED
    why = DOC.read_text().split("## Why each case", 1)[1]
    for tool, error in REFUSED.items():
        assert f"`{tool}`" in why, f"docs/mcp-sdk.md does not explain why {tool} is refused: {error}"
