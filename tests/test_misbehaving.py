"""The suite never crashes on what a server sends.

The whole suite runs against `tests.misbehaving`, the reference with what it
sends garbled by seed (fields omitted or of the wrong type, content emptied,
messages dropped, duplicated, delayed, truncated, HTTP 500s, a process that
exits mid-call), over stdio and over HTTP. Whatever happens, every case ends
as pass, fail with a sentence naming its row, timed out, or not testable:
pytest reports no internal error, and no case's reason is an exception of the
suite's own code.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from elicit_conformance.local_server import LocalServer
from tests.suite import ROOT, SuiteRun, run

SEEDS = (1, 2)
#: Short limits: a dropped answer costs one timeout, a dropped first answer one start-up.
#: "Timed out" is an accepted outcome here, so a slow answer cannot fail the test.
LIMITS = ("--conformance-timeout=1", "--conformance-startup=10")
SUITE_MODULES = ("elicit_conformance", "conformance/")


def _judged(result: SuiteRun, acts: Path) -> None:
    assert acts.exists() and len(acts.read_text().splitlines()) >= 5, "the server misbehaved too little to prove anything"
    assert "INTERNALERROR" not in result.output, result.output[-4000:]
    assert result.returncode in (0, 1), f"pytest exited {result.returncode}:\n{result.output[-4000:]}"
    cases = result.index["cases"]
    assert cases, result.output[-3000:]
    others = [c for c in cases if c["status"] not in ("pass", "skipped")]
    assert others, "no case noticed the misbehaviour"
    for case in others:
        message = case["message"]
        assert case["status"] in ("fail", "timed out", "not testable"), case
        assert message and "internal error of elicit-conformance" not in message, case
        assert "Traceback" not in message and "Error(" not in message, case
        if case["status"] == "fail":
            # The sentence names a row the case checks, or says the golden transcript changed.
            assert message.split(":", 1)[0] in case["checks"] or message.startswith("the wire transcript"), case
    # Nothing of the suite's own code is printed as a traceback.
    tracebacks = [line for line in result.output.splitlines()
                  if line.startswith(("  File ", "Traceback")) and any(m in line for m in SUITE_MODULES)]
    assert not tracebacks, tracebacks[:5]


@pytest.mark.parametrize("seed", SEEDS)
def test_over_stdio(tmp_path: Path, seed: int) -> None:
    acts = tmp_path / "acts.log"
    command = f"{sys.executable} -m tests.misbehaving -- {sys.executable} -m elicit_conformance.reference"
    env = {"MISBEHAVE_SEED": str(seed), "MISBEHAVE_LOG": str(acts), "ELICIT_FUZZ": "quick", "PYTHONPATH": str(ROOT)}
    _judged(run(tmp_path / "run", f"--server-command={command}", *LIMITS, env=env), acts)


@pytest.mark.parametrize("seed", SEEDS)
def test_over_http(tmp_path: Path, seed: int) -> None:
    acts = tmp_path / "acts.log"
    env = {"MISBEHAVE_SEED": str(seed), "MISBEHAVE_LOG": str(acts), "PYTHONPATH": str(ROOT)}
    with LocalServer("tests.misbehaving:asgi", env=env, log=tmp_path / "uvicorn.log") as server:
        result = run(tmp_path / "run", f"--server={server.url}", *LIMITS, env={"ELICIT_FUZZ": "quick"})
    _judged(result, acts)
