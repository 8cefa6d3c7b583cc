"""The MCP Python SDK peer: its verdict table in docs/mcp-sdk.md is what the suite
says today, every case that does not pass is explained there, its verdicts are the
same in-process, over HTTP and over stdio, and on each its transcripts are the golden
ones an earlier run committed (fixtures/peers/golden/mcp_sdk)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from elicit_conformance.dev.local_server import LocalServer
from elicit_conformance.dev import implementations
from tests.suite import QUICK, ROOT, SuiteRun, check_golden_kept, finish, start

DOC = ROOT / "docs" / "mcp-sdk.md"
MODULE = "elicit_conformance.fixtures.peers.mcp_sdk"
#: Its golden transcripts, one set for every transport (the protocol is the same on each),
#: written by `python -m elicit_conformance.dev.regenerate --peers`.
GOLDEN = ROOT / "fixtures" / "peers" / "golden" / "mcp_sdk"
REGENERATE = "`python -m elicit_conformance.dev.regenerate --peers`"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, SuiteRun]]:
    """The whole suite on each transport, all at once, each comparing its transcripts
    with GOLDEN; the attacks on their quick profile throughout."""
    tmp = tmp_path_factory.mktemp("mcp-sdk")
    with LocalServer(f"{MODULE}:asgi", log=tmp / "uvicorn.log") as server:
        targets = {"in-process": f"--server={MODULE}:app", "HTTP": f"--server={server.url}",
                   "stdio": f"--server-command={sys.executable} -m {MODULE}"}
        started = {transport: start(tmp / transport, target, f"--conformance-snapshots={GOLDEN}",
                                    env=QUICK)
                   for transport, target in targets.items()}
        yield {transport: finish(process, tmp / transport) for transport, process in started.items()}


def test_every_row_that_does_not_pass_is_explained(runs: dict[str, SuiteRun]) -> None:
    """Its table in docs/mcp-sdk.md is drawn from its kept report (tests/test_matrix.py), which
    is this run's (below); each row that does not pass is explained under it."""
    result = runs["in-process"]
    assert result.returncode == 1 and result.index["cases"], result.output[-3000:]
    assert (result.directory / "report" / "verdicts.md").read_text() == implementations.sdk_table()
    why = DOC.read_text().split("## Why each case", 1)[1]
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


def test_the_same_verdicts_on_every_transport(runs: dict[str, SuiteRun]) -> None:
    here = runs["in-process"].statuses()
    assert "fail" in set(here.values()), "the SDK peer fails known cases (docs/mcp-sdk.md)"
    for transport in ("HTTP", "stdio"):
        there = runs[transport].statuses()
        assert set(here) == set(there), transport
        # Registration is not on the wire: over HTTP and stdio those cases are skipped.
        differing = {n: (a, b) for n, a in here.items() if (b := there[n]) != a}
        assert all("test_registration.py" in n and b == "skipped" for n, (_, b) in differing.items()), differing


def test_the_report_the_matrix_keeps_is_current(runs: dict[str, SuiteRun]) -> None:
    """docs/implementations.md draws the peer from fixtures/peers/reports/mcp-sdk.json."""
    assert implementations.kept(runs["in-process"].index) == implementations.committed("mcp-sdk"), (
        f"fixtures/peers/reports/mcp-sdk.json is stale: run {REGENERATE}")


def test_every_transport_keeps_the_committed_golden_transcripts(runs: dict[str, SuiteRun]) -> None:
    """Normalization holds for a server nobody here wrote: in-process, over HTTP and over
    stdio, every transcript of this run is byte for byte the one an earlier run committed,
    so the three transports keep the same files, the protocol being the same on each."""
    check_golden_kept(runs, GOLDEN, REGENERATE)
