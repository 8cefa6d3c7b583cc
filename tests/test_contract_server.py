"""A server written from docs/contract.md alone passes every case of the tools it
implements, on both revisions, in-process, over HTTP and over stdio.

`fixtures/peers/contract_guard.py` is that server: eight tools written by hand as
plain fastmcp guards, importing nothing of the suite or the reference; the rest of
the contract is declared not implemented.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from elicit_conformance.local_server import LocalServer
from elicit_conformance.revisions import ERAS
from tests.suite import ROOT, SuiteRun, run

PEER = ROOT / "fixtures" / "peers" / "contract_guard.py"
DECLARED = f"--conformance-not-implemented={PEER.with_suffix('.not-implemented.txt')}"
MODULE = "elicit_conformance.fixtures.peers.contract_guard"
#: The generated attacks run in full in-process; a tenth of them over the wire keeps CI short.
QUICK = {"ELICIT_FUZZ": "quick"}


def test_the_server_imports_nothing_of_the_suite() -> None:
    imports = [line for line in PEER.read_text().splitlines() if line.startswith(("import ", "from "))]
    assert imports and not [line for line in imports if "elicit" in line or "reference" in line], imports


def _passes(result: SuiteRun) -> dict[str, str]:
    assert result.returncode == 0, result.output[-4000:]
    statuses = result.statuses()
    assert set(statuses.values()) <= {"pass", "not implemented", "skipped"}, result.output[-4000:]
    passed = [case for case in result.index["cases"] if case["status"] == "pass"]
    assert {case["revision"] for case in passed} >= set(ERAS), "both revisions ran"
    assert len(passed) >= 40, f"only {len(passed)} cases ran: the server proves too little"
    return statuses


@pytest.fixture(scope="module")
def in_process(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _passes(run(tmp_path_factory.mktemp("in-process") / "run", f"--server={MODULE}:app", DECLARED))


def test_in_process(in_process: dict[str, str]) -> None:
    assert "pass" in in_process.values()


def test_over_stdio(tmp_path: Path, in_process: dict[str, str]) -> None:
    statuses = _passes(run(tmp_path / "run", f"--server-command={sys.executable} {PEER}", DECLARED, env=QUICK))
    # The same verdicts as in-process (registration aside: it is not on the wire).
    assert {n: s for n, s in statuses.items() if "test_registration.py" not in n} == \
        {n: s for n, s in in_process.items() if "test_registration.py" not in n}


def test_over_http(tmp_path: Path, in_process: dict[str, str]) -> None:
    with LocalServer(f"{MODULE}:asgi", log=tmp_path / "uvicorn.log") as server:
        statuses = _passes(run(tmp_path / "run", f"--server={server.url}", DECLARED, env=QUICK))
    assert {n: s for n, s in statuses.items() if "test_registration.py" not in n} == \
        {n: s for n, s in in_process.items() if "test_registration.py" not in n}
