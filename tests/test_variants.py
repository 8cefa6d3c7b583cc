"""The dual of the mutants: every legal variant in `fixtures/variants/` passes the
whole suite, in-process and over streamable HTTP, with no failure and no warning
(`--conformance-strict`: none of them takes a SHOULD NOT path).

A variant is the reference using one freedom the specification grants (its
`FREEDOM` quotes the sentence). Passing proves the suite does not judge that
freedom as a defect; and each run must show the freedom on the wire (a
transcript that differs from the reference's golden one), or the variant proved
nothing.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from elicit_conformance.fixtures.variants import Variant, catalogue
from elicit_conformance.local_server import LocalServer
from tests.suite import ROOT, SuiteRun, finish, start, unserved_task

VARIANTS = catalogue()
TRANSPORTS = ("in-process", "http")
GOLDEN = ROOT / "snapshots"
#: Over HTTP, the cases of 2026-07-28 alone: every variant passes a handshake-era
#: request through untouched (its middleware acts on 2026-07-28 only), which the
#: in-process run of both eras shows; the other era over HTTP would be the
#: reference's own HTTP run again (tests/test_transports.py).
HTTP_ONLY = ("-k", "not 2025-11-25")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, str], SuiteRun]]:
    """Every variant on both transports, all at once."""
    tmp = tmp_path_factory.mktemp("variants")
    with contextlib.ExitStack() as stack:
        started = {}
        for variant in VARIANTS:
            for transport in TRANSPORTS:
                directory = tmp / f"{variant.name}-{transport}"
                if transport == "http":
                    server = stack.enter_context(LocalServer(variant.asgi, log=tmp / f"{variant.name}.uvicorn.log"))
                    options = (f"--server={server.url}", *HTTP_ONLY)
                else:
                    options = (f"--server={variant.server}",)
                started[(variant.name, transport)] = (
                    start(directory, *options, "--conformance-strict", env={"ELICIT_FUZZ": "quick"}), directory)
        yield {key: finish(process, directory) for key, (process, directory) in started.items()}


def changed_transcripts(report: Path) -> list[str]:
    """The transcripts of a run that differ from the reference's golden ones (a
    report spells `test_x[a-b]` as `test_x_a-b`, so names are compared on letters
    and digits)."""
    golden = {_key(p.name): p.read_text() for p in GOLDEN.rglob("*.jsonl")}
    return [p.name for p in (report / "transcripts").glob("*.jsonl")
            if _key(p.name) in golden and p.read_text() != golden[_key(p.name)]]


def _key(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", name)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
def test_the_suite_passes_every_legal_variant(runs: dict[tuple[str, str], SuiteRun], variant: Variant,
                                              transport: str) -> None:
    result = runs[(variant.name, transport)]
    cases = result.index["cases"] if result.index else []
    assert cases, f"{variant.name} over {transport}: no report\n{result.output[-3000:]}"
    wrong = [(c["nodeid"], c["status"], c["message"]) for c in cases
             if c["status"] not in ("pass", "skipped") and not unserved_task(c["nodeid"], c["status"])]
    assert not wrong, f"{variant.name} uses a freedom the specification grants ({variant.freedom}); " \
                      f"the suite must pass it, and judged {wrong}"
    assert result.returncode == 0, result.output[-3000:]
    assert changed_transcripts(result.directory / "report"), (
        f"{variant.name} over {transport}: every transcript is the reference's; the variant never used its freedom")


def test_each_variant_names_its_freedom() -> None:
    assert VARIANTS, "no variant in fixtures/variants"
    for variant in VARIANTS:
        assert variant.summary and "modelcontextprotocol.io/specification/" in variant.freedom, variant.name
