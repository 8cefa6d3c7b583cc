"""The suite never crashes on what a server sends, or on how its connection fails.

The whole suite runs against `tests.misbehaving`, the reference with what it
sends garbled by seed (fields omitted or of the wrong type, content emptied,
messages dropped, duplicated, delayed, truncated, HTTP 500s, a process that
exits mid-call; the handshake and the tool list aside, through which the suite
first reaches a target), over stdio and over HTTP; and against the plain
reference behind `tests.faulty_link`, which resets, refuses, truncates, delays
past the timeout and duplicates HTTP connections' bytes ("link"). Whatever happens,
every case ends as pass, fail with a sentence naming its row, timed out, or not
testable: pytest reports no internal error, no case's reason is an exception of
the suite's own code, and pytest prints no traceback (the MCP client's go to the
report directory's client log).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from elicit_conformance.dev.local_server import LocalServer
from tests import forkserver
from tests.faulty_link import FaultyLink
from tests.suite import QUICK, ROOT, SuiteRun, finish, start, unserved_task

SEEDS = (1, 2)
#: The connection faults' seeds: each run is short (no dropped message waits a timeout).
LINK_SEEDS = (1, 2, 3)
#: Short limits: a dropped answer costs one timeout, a dropped first answer one start-up.
#: "Timed out" is an accepted outcome here, so a slow answer cannot fail the test. 0.8 s
#: outlasts the server's own 0.5 s delays (`tests.misbehaving.DELAY`, which then arrive),
#: and is most of this file's wall time: every dropped message waits it out (3 s made the
#: file 156 s on 2 cores, 1.5 s 86 s).
LIMITS = ("--conformance-timeout=0.8", "--conformance-startup=30")
SUITE_MODULES = ("elicit_conformance", "conformance/")


def _judged(result: SuiteRun, acts: Path, transport: str) -> None:
    assert "INTERNALERROR" not in result.output, result.output[-4000:]
    assert result.returncode in (0, 1), f"pytest exited {result.returncode}:\n{result.output[-4000:]}"
    assert acts.exists() and len(acts.read_text().splitlines()) >= 5, "the server misbehaved too little to prove anything"
    cases = result.index["cases"]
    assert cases, result.output[-3000:]
    others = [c for c in cases if c["status"] not in ("pass", "skipped") and not unserved_task(c["nodeid"], c["status"])]
    assert others, "no case noticed the misbehaviour"
    for case in others:
        message = case["message"]
        assert case["status"] in ("fail", "timed out", "not testable"), case
        assert message and "internal error of elicit-conformance" not in message, case
        assert "Traceback" not in message and "Error(" not in message, case
        if case["status"] == "fail":
            # The sentence names a row the case checks, or says the golden transcript changed.
            assert message.split(":", 1)[0] in case["checks"] or message.startswith("the wire transcript"), case
    # No traceback of the suite's own code is printed (it would be a crash), and over HTTP
    # none at all: the MCP client's go to the report's client log. (A stdio server's stderr,
    # its tracebacks too, is quoted under the case it failed, by design.)
    tracebacks = [line for line in result.output.splitlines()
                  if (transport != "stdio" and "Traceback (most recent call last)" in line)
                  or (line.startswith(("  File ", "Traceback")) and any(m in line for m in SUITE_MODULES))]
    assert not tracebacks, tracebacks[:5]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, int], tuple[SuiteRun, Path]]]:
    """Every seed on both transports, all at once: the runs mostly wait out timeouts."""
    tmp = tmp_path_factory.mktemp("misbehaving")
    with contextlib.ExitStack() as stack:
        # `python -m elicit_conformance.reference` behind the relay, forked from one warm
        # interpreter (tests/forkserver.py): every request left unanswered starts another.
        reference = stack.enter_context(forkserver.serving("elicit_conformance.reference", ROOT))
        command = f"{sys.executable} -m tests.misbehaving -- {reference}"
        started = {}
        for seed in SEEDS:
            acts = {transport: tmp / f"{transport}-{seed}.acts" for transport in ("stdio", "http")}
            mischief = {"MISBEHAVE_SEED": str(seed), "PYTHONPATH": str(ROOT)}
            server = stack.enter_context(LocalServer(
                "tests.misbehaving:asgi", env={**mischief, "MISBEHAVE_LOG": str(acts["http"])},
                log=tmp / f"uvicorn-{seed}.log"))
            targets = {"stdio": f"--server-command={command}", "http": f"--server={server.url}"}
            for transport, target in targets.items():
                env = {**QUICK, **mischief, "MISBEHAVE_LOG": str(acts[transport])}
                directory = tmp / f"{transport}-{seed}"
                started[(transport, seed)] = (start(directory, target, *LIMITS, env=env), directory, acts[transport])
        plain = stack.enter_context(LocalServer("elicit_conformance.reference.asgi:asgi", log=tmp / "plain.log"))
        for seed in LINK_SEEDS:
            acts = tmp / f"link-{seed}.acts"
            link = stack.enter_context(FaultyLink(
                plain.url, {"MISBEHAVE_SEED": str(seed), "MISBEHAVE_LOG": str(acts), "PYTHONPATH": str(ROOT)},
                tmp / f"link-{seed}.log"))
            directory = tmp / f"link-{seed}"
            started[("link", seed)] = (start(directory, f"--server={link.url}", *LIMITS, env=QUICK), directory, acts)
        yield {key: (finish(process, directory), acts) for key, (process, directory, acts) in started.items()}


@pytest.mark.parametrize(("transport", "seed"), [
    *((transport, seed) for transport in ("stdio", "http") for seed in SEEDS),
    *(("link", seed) for seed in LINK_SEEDS),
])
def test_no_crash_of_the_suite(runs: dict[tuple[str, int], tuple[SuiteRun, Path]], transport: str, seed: int) -> None:
    _judged(*runs[(transport, seed)], transport)
