"""The suite against a server nobody here wrote in Python: the catalog on the
official MCP TypeScript SDK (fixtures/peers/typescript), built from its lockfile,
over streamable HTTP and stdio, on both revisions. Its verdicts are the table in
docs/typescript-sdk.md, and every case that does not pass is explained there.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from elicit_conformance.dev import implementations
from tests.suite import SuiteRun, check_golden_kept
from tests.typescript import (
    DOC, GOLDEN, REVISIONS, TRANSPORTS, build, committed_table, http_log, run_both, verdict_table, wire_cases,
)


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built peer's folder (`dist/`, and the HTTP server's log once it has served)."""
    directory = tmp_path_factory.mktemp("typescript") / "peer"
    try:
        build(directory)
    except RuntimeError as error:  # no node, or npm could not install: say which, never skip
        pytest.fail(str(error))
    return directory


@pytest.fixture(scope="module")
def runs(peer: Path) -> dict[str, SuiteRun]:
    """One run on each transport, each comparing its transcripts with the committed ones."""
    return run_both(peer / "dist", peer.parent / "runs")


def test_the_suite_runs_against_it_on_both_transports_and_revisions_without_interop_errors(
    runs: dict[str, SuiteRun],
) -> None:
    for transport, result in runs.items():
        assert result.index["cases"], f"{transport}: no report\n{result.output[-3000:]}"
        assert not result.index["problems"], f"{transport}: {result.index['problems']}"
        assert set(result.index["revisions"]) == set(REVISIONS), result.index["revisions"]
        statuses = {case["status"] for case in result.index["cases"]}
        assert "timed out" not in statuses, f"{transport}: a case hung\n{result.output[-3000:]}"
        refused = [c for c in result.index["cases"] if "does not serve" in c["message"]]
        assert not refused, f"{transport}: a revision was refused: {refused[0]['message']}"


def test_the_http_server_reported_no_error_while_serving_the_whole_suite(runs: dict[str, SuiteRun], peer: Path) -> None:
    """The SDK reports what it refuses or fails on through `onerror`, which the peer writes
    to stderr: hostile input included, the whole suite leaves nothing there."""
    assert runs["HTTP"].index["cases"]
    assert http_log(peer / "dist").read_text() == ""


def test_every_wire_case_ran_on_the_same_revisions_over_both_transports(runs: dict[str, SuiteRun]) -> None:
    # Registration is not on the wire, and is left out here.
    for row, cells in wire_cases(runs).items():
        served = {t: {c.split(" ", 1)[1] for c in cells if c.startswith(f"{t} ")} for t in TRANSPORTS}
        assert served["HTTP"] == served["stdio"] and served["HTTP"], (row, cells)


def test_registration_cases_are_skipped_as_not_on_the_wire(runs: dict[str, SuiteRun]) -> None:
    for result in runs.values():
        off_wire = [c for c in result.index["cases"] if c["revision"] not in REVISIONS]
        assert off_wire and all(c["status"] == "skipped" for c in off_wire), off_wire


def test_the_committed_verdict_table_is_current(runs: dict[str, SuiteRun]) -> None:
    assert committed_table(DOC.read_text()) == verdict_table(runs), (
        "docs/typescript-sdk.md is stale: run `python -m tests.typescript` and review the diff"
    )


def test_the_reports_the_matrix_keeps_are_current(runs: dict[str, SuiteRun]) -> None:
    """docs/implementations.md draws the peer from fixtures/peers/reports/typescript-*.json."""
    for transport, run in runs.items():
        assert implementations.kept(run.index) == implementations.committed(f"typescript-{transport.lower()}"), (
            f"fixtures/peers/reports/typescript-{transport.lower()}.json is stale: run `python -m tests.typescript`")


def test_every_case_that_does_not_pass_is_explained(runs: dict[str, SuiteRun]) -> None:
    why = DOC.read_text().split("## Why each case", 1)[1]
    unexplained = {
        case for (case, _), cells in wire_cases(runs).items()
        if set(cells.values()) != {"pass"} and f"\n| {case} |" not in why
    }
    assert not unexplained, f"non-passing cases with no explanation in docs/typescript-sdk.md: {sorted(unexplained)}"


def test_the_tools_the_peer_leaves_out_are_the_ones_the_doc_explains(runs: dict[str, SuiteRun]) -> None:
    """Read from the wire: the tools the suite found missing, on either transport."""
    missing = {
        name for result in runs.values() for case in result.index["cases"]
        for name in re.findall(r"the target has no tool '(\w+)'", case["message"])
    }
    assert missing == {
        "book_seat_outside", "book_seat_alias", "book_seat_partial", "book_bags", "book_bag_count", "book_bad_resolver",
        "book_and_guard", "book_labelled_stop", "book_once", *(f"space_mismatch_{n}" for n in range(1, 11)),
    }, missing
    why = DOC.read_text().split("## Why each case", 1)[1]
    for tool in missing:
        explained = f"`{tool}`" in why or (tool.startswith("space_mismatch_") and "`space_mismatch_*`" in why)
        assert explained, f"docs/typescript-sdk.md does not say why the peer has no {tool}"


def test_each_transport_keeps_the_committed_golden_transcripts(runs: dict[str, SuiteRun]) -> None:
    """Normalization holds for a server nobody here wrote: every transcript of this run,
    over HTTP and over stdio, is byte for byte the one an earlier run committed
    (fixtures/peers/golden/typescript, written by `python -m tests.typescript`), so the
    two transports keep the same files, the protocol being the same on both."""
    check_golden_kept(runs, GOLDEN, "`python -m tests.typescript`")
