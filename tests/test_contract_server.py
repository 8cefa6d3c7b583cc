"""A server written from docs/contract.md alone passes every case of the tools it
implements, on both revisions, in-process, over HTTP and over stdio.

`fixtures/peers/contract_guard.py` is that server: eleven tools written by hand as
plain fastmcp guards, importing nothing of the suite or the reference; the rest of
the contract is declared not implemented.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from elicit_conformance.dev.local_server import LocalServer
from elicit_conformance.revisions import ERAS
from tests.suite import QUICK, ROOT, SuiteRun, finish, start

PEER = ROOT / "fixtures" / "peers" / "contract_guard.py"
DECLARED = f"--conformance-not-implemented={PEER.with_suffix('.not-implemented.txt')}"
MODULE = "elicit_conformance.fixtures.peers.contract_guard"


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
    # Registration is not on the wire: compared without it.
    return {n: s for n, s in statuses.items() if "test_registration.py" not in n}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, SuiteRun]]:
    """The three transports at once."""
    tmp = tmp_path_factory.mktemp("contract-server")
    with LocalServer(f"{MODULE}:asgi", log=tmp / "uvicorn.log") as server:
        options = {
            "in-process": (f"--server={MODULE}:app",),
            "stdio": (f"--server-command={sys.executable} {PEER}",),
            "http": (f"--server={server.url}",),
        }
        # The generated attacks run in full in-process; a tenth of them over the wire keeps CI short.
        started = {name: start(tmp / name, *target, DECLARED, env=None if name == "in-process" else QUICK)
                   for name, target in options.items()}
        yield {name: finish(process, tmp / name) for name, process in started.items()}


@pytest.mark.parametrize("transport", ["in-process", "stdio", "http"])
def test_every_case_of_its_tools_passes(runs: dict[str, SuiteRun], transport: str) -> None:
    _passes(runs[transport])


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_same_verdicts_on_the_wire_as_in_process(runs: dict[str, SuiteRun], transport: str) -> None:
    assert _passes(runs[transport]) == _passes(runs["in-process"])
