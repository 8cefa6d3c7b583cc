"""The MCP Python SDK peer: its verdict table in docs/mcp-sdk.md is what the suite
says today, every case that does not pass is explained there, its verdicts are the
same in-process, over HTTP and over stdio, and so are its golden transcripts, run
after run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from elicit_conformance.local_server import LocalServer
from tests.suite import ROOT, SuiteRun, golden_files, run

DOC = ROOT / "docs" / "mcp-sdk.md"
MODULE = "elicit_conformance.fixtures.peers.mcp_sdk"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[SuiteRun]]:
    """Two runs of the whole suite on each transport, each writing its golden
    transcripts to `golden(run)`; the attacks on their quick profile throughout."""
    tmp = tmp_path_factory.mktemp("mcp-sdk")
    found: dict[str, list[SuiteRun]] = {}
    for attempt in (1, 2):
        with LocalServer(f"{MODULE}:asgi", log=tmp / f"uvicorn{attempt}.log") as server:
            targets = {"in-process": f"--server={MODULE}:app", "HTTP": f"--server={server.url}",
                       "stdio": f"--server-command={sys.executable} -m {MODULE}"}
            for transport, target in targets.items():
                directory = tmp / f"{transport}-{attempt}"
                found.setdefault(transport, []).append(
                    run(directory, target, f"--conformance-snapshots={golden(directory)}", "--snapshot-update",
                        env={"ELICIT_FUZZ": "quick"}))
    return found


def golden(directory: Path) -> Path:
    return directory / "golden"


def test_the_committed_verdict_table_is_current_and_explained(runs: dict[str, list[SuiteRun]]) -> None:
    result = runs["in-process"][0]
    assert result.returncode == 1 and result.index["cases"], result.output[-3000:]
    fresh = (result.directory / "report" / "verdicts.md").read_text()
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


def test_the_same_verdicts_on_every_transport(runs: dict[str, list[SuiteRun]]) -> None:
    here = runs["in-process"][0].statuses()
    assert "fail" in set(here.values()), "the SDK peer fails known cases (docs/mcp-sdk.md)"
    for transport in ("HTTP", "stdio"):
        there = runs[transport][0].statuses()
        assert set(here) == set(there), transport
        # Registration is not on the wire: over HTTP and stdio those cases are skipped.
        differing = {n: (a, b) for n, a in here.items() if (b := there[n]) != a}
        assert all("test_registration.py" in n and b == "skipped" for n, (_, b) in differing.items()), differing


def test_two_runs_keep_byte_identical_golden_transcripts_on_every_transport(runs: dict[str, list[SuiteRun]]) -> None:
    """Normalization holds for a server nobody here wrote: two runs write the same
    files in-process, over HTTP and over stdio; and the three transports the same
    files, the protocol being the same on each."""
    written = {t: [golden_files(golden(r.directory)) for r in pair] for t, pair in runs.items()}
    for transport, (first, second) in written.items():
        assert first and first == second, (transport, sorted(k for k in first.keys() | second.keys()
                                                             if first.get(k) != second.get(k))[:5])
    assert written["in-process"][0] == written["HTTP"][0] == written["stdio"][0]
