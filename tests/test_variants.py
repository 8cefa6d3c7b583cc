"""The dual of the mutants: every legal variant in `fixtures/variants/` passes the
whole suite of 2026-07-28 (the revision whose freedoms they use), in-process and
over streamable HTTP, with no failure, and with a warning on exactly the SHOULD
rows whose SHOULD NOT path it takes (its `SHOULD_NOT`; the others run under
`--conformance-strict`, where any warning would fail them).

A variant is the reference using one freedom the specification grants (its
`FREEDOM` quotes the sentence). Passing proves the suite does not judge that
freedom as a defect, if the variant used it: each appends a line to a log
whenever it does (`fixtures/variants.used`), and a run whose log is empty fails.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from elicit_conformance.dev.local_server import LocalServer
from elicit_conformance.fixtures.variants import LOG, Variant, catalogue
from elicit_conformance.requirements import SPEC_HOSTS
from tests.footprint import MUTANT, SELECT, SELECTION, Footprints
from tests.shadow import SHADOW, SHADOW_OF
from tests.suite import QUICK, Started, SuiteRun, finish, run, start, unserved_task

VARIANTS = catalogue()
TRANSPORTS = ("in-process", "http")
#: The cases of 2026-07-28 (and those of no revision) alone: every variant passes a
#: handshake-era request through untouched (its middleware acts on 2026-07-28 only,
#: where the freedoms it uses exist), so the other era would be the reference's own
#: runs again (tests/test_transports.py).
MODERN_ONLY = ("-k", "not 2025-11-25")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, str], tuple[SuiteRun, Path]]]:
    """Every variant on both transports: each run, and its variant's use-log.

    In-process, a variant that adds a middleware runs the cases in which its middleware,
    run beside the reference, answered otherwise (tests/shadow.py): in every other case it
    is the reference, which passes. Over HTTP it runs the cases it ran in-process: its
    middleware is the same code, handed the same requests and the same answers of the
    reference (the transports carry the same messages: the golden transcripts of
    tests/test_transports.py), so it answers otherwise in the same cases, and the others
    are the reference's over HTTP, which passes them."""
    tmp = tmp_path_factory.mktemp("variants")
    shadow, selected = tmp / "shadow.json", tmp / "footprints.json"
    reference = run(tmp / "reference", "-p", "tests.shadow", *MODERN_ONLY,
                    env={**QUICK, SHADOW: str(shadow), SHADOW_OF: "variants"})
    assert reference.returncode == 0, f"the reference, variants beside it:\n{reference.output[-3000:]}"
    Footprints.united([], [shadow]).save(selected)

    def folder(variant: Variant, transport: str) -> Path:
        return tmp / f"{variant.name}-{transport}"

    def used(variant: Variant, transport: str) -> Path:
        return tmp / f"{variant.name}-{transport}.used"

    def launched(variant: Variant, transport: str, options: tuple[str, ...], env: dict[str, str],
                 cases: tuple[str, ...] = ("conformance/cases",)) -> Started:
        strict = () if variant.should_not else ("--conformance-strict",)
        return start(folder(variant, transport), *options, *strict, cases=cases,
                     env={**QUICK, LOG: str(used(variant, transport)), **env})

    def finished(variant: Variant, transport: str, started: Started) -> tuple[SuiteRun, Path]:
        return finish(started, folder(variant, transport)), used(variant, transport)

    def selection(variant: Variant) -> Path:
        return folder(variant, "in-process") / "selection.json"

    found: dict[tuple[str, str], tuple[SuiteRun, Path]] = {}
    in_process = {variant.name: launched(variant, "in-process", (f"--server={variant.server}", *MODERN_ONLY,
                                                                 "-p", "tests.footprint"),
                                         {SELECT: str(selected), MUTANT: variant.name,
                                          SELECTION: str(selection(variant))})
                  for variant in VARIANTS}
    for variant in VARIANTS:
        found[(variant.name, "in-process")] = finished(variant, "in-process", in_process[variant.name])
    with contextlib.ExitStack() as stack:
        over_http = {}
        for variant in VARIANTS:
            server = stack.enter_context(LocalServer(variant.asgi, env={LOG: str(used(variant, "http"))},
                                                     log=tmp / f"{variant.name}.uvicorn.log"))
            chosen = json.loads(selection(variant).read_text())
            cases = tuple(chosen["run"]) if not chosen["whole"] and chosen["run"] else ("conformance/cases",)
            over_http[variant.name] = launched(variant, "http", (f"--server={server.url}", *MODERN_ONLY), {}, cases)
        for variant in VARIANTS:
            found[(variant.name, "http")] = finished(variant, "http", over_http[variant.name])
    yield found


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
def test_the_suite_passes_every_legal_variant(runs: dict[tuple[str, str], tuple[SuiteRun, Path]],
                                              variant: Variant, transport: str) -> None:
    result, log = runs[(variant.name, transport)]
    cases = result.index["cases"] if result.index else []
    assert cases, f"{variant.name} over {transport}: no report\n{result.output[-3000:]}"
    wrong = [(c["nodeid"], c["status"], c["message"]) for c in cases
             if c["status"] not in ("pass", "skipped") and not unserved_task(c["nodeid"], c["status"])]
    assert not wrong, f"{variant.name} uses a freedom the specification grants ({variant.freedom}); " \
                      f"the suite must pass it, and judged {wrong}"
    assert result.returncode == 0, result.output[-3000:]
    warned = {entry.split(":")[0] for c in cases for entry in c["should_not_met"]}
    assert warned == set(variant.should_not), (
        f"{variant.name} over {transport} takes the SHOULD NOT path of {list(variant.should_not) or 'no row'}; "
        f"the suite warned on {sorted(warned) or 'nothing'}")
    assert log.exists() and log.read_text().strip(), (
        f"{variant.name} over {transport}: the variant never used its freedom, so passing proved nothing")


def test_each_variant_names_its_freedom() -> None:
    assert VARIANTS, "no variant in fixtures/variants"
    for variant in VARIANTS:
        assert variant.summary and any(host in variant.freedom for host in SPEC_HOSTS), variant.name
