"""SEC-4 and concurrency: the reference as separate uvicorn processes on 127.0.0.1.

- Two processes sharing the seal key (and the app's records): every multi-round
  scenario, its rounds alternating between them, ends as on one process; and the
  whole suite through a round-robin balancer gives the same verdicts and golden
  transcripts.
- Two processes with different keys: the continuation is rejected clearly.
- One process: 50 multi-round calls in flight at once each end with their own answers.
"""

from __future__ import annotations

import json
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from elicit_conformance.case import body_run_count
from elicit_conformance.checks import check_outcome, check_rounds
from elicit_conformance.catalog import load
from elicit_conformance.driver import OnRound, Run, Script, drive
from elicit_conformance.local_server import LocalServer
from elicit_conformance.target import load_target
from elicit_conformance.wire import MODERN, Peer, Transcript
from elicit_conformance.reference.records import ENV_VAR as RECORDS
from elicit_conformance.reference.records import SEAL_VAR
from tests.suite import run

SCENARIOS = load().scenarios
MULTI_ROUND = [case_id for case_id, s in SCENARIOS.items() if len(s.expect.rounds) > 1]


def _base(url: str) -> str:
    return url.removesuffix("/mcp")


def _servers(tmp: Path, keys: tuple[str, str]) -> list[LocalServer]:
    records = str(tmp / "records.sqlite")
    return [
        LocalServer("elicit_conformance.reference.asgi:asgi", env={SEAL_VAR: key, RECORDS: records}, log=tmp / f"server-{n}.log")
        for n, key in enumerate(keys)
    ]


@pytest.fixture(scope="module")
def shared_key(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    tmp = tmp_path_factory.mktemp("shared-key")
    key = uuid.uuid4().hex
    servers = _servers(tmp, (key, key))
    with servers[0], servers[1]:
        yield [s.url for s in servers]


class Alternating:
    """A peer whose every request goes to the next process in turn."""

    era = MODERN

    def __init__(self, peers: list[Peer]) -> None:
        self._peers = peers
        self._turn = 0

    async def call_tool(self, name: str, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
        peer = self._peers[self._turn % len(self._peers)]
        self._turn += 1
        return await peer.call_tool(name, arguments, **extra)


async def _alternate(urls: list[str], case_id: str, run_id: str) -> Run:
    scenario = SCENARIOS[case_id].for_run(run_id)
    script = Script(scenario.tool, scenario.arguments, scenario.answers)
    async with load_target(urls[0], "test").connect(MODERN, Transcript()) as first, \
            load_target(urls[1], "test").connect(MODERN, Transcript()) as second:
        return await drive(Alternating([first, second]), scenario.tool, scenario.arguments, script)


@pytest.mark.parametrize("case_id", MULTI_ROUND)
def test_sec_4_rounds_alternate_between_processes_sharing_the_key(shared_key: list[str], case_id: str) -> None:
    result = anyio.run(_alternate, shared_key, case_id, uuid.uuid4().hex[:8])
    check_rounds(result, SCENARIOS[case_id], MODERN)
    check_outcome(result, SCENARIOS[case_id], f"{case_id}/clear")


def test_sec_4_with_different_keys_the_continuation_is_rejected_clearly(tmp_path: Path) -> None:
    servers = _servers(tmp_path, (uuid.uuid4().hex, uuid.uuid4().hex))
    with servers[0], servers[1]:
        result = anyio.run(_alternate, [s.url for s in servers], "ORD-1", "keys")
    assert len(result.rounds) == 1 and result.error is not None, result
    assert result.error["code"] == -32602 and "requestState" in result.error["message"], result.error


def test_sec_4_the_whole_suite_through_a_balancer(shared_key: list[str], tmp_path: Path) -> None:
    backends = " ".join(_base(url) for url in shared_key)
    with LocalServer("elicit_conformance.balancer:asgi", env={"ELICIT_BACKENDS": backends},
                     log=tmp_path / "balancer.log") as balancer:
        result = run(tmp_path / "run", f"--server={balancer.url}", "--golden-transcripts")
        with urllib.request.urlopen(_base(balancer.url) + "/balancer/log", timeout=10) as response:
            log = json.loads(response.read())
    assert result.returncode == 0, result.output[-5000:]
    assert "snapshots passed" in result.output
    continuations = [entry["backend"] for entry in log if entry["continuation"]]
    assert len(continuations) > 50 and set(continuations) == {0, 1}, "rounds did not spread over both processes"


async def _book(url: str, number: int, ref: str, wait: OnRound) -> tuple[int, Run, dict[str, Any]]:
    answers = {"destination": {"accept": f"City-{number}"}, "airport": {"accept": f"A{number:02d}"}}
    async with load_target(url, "test").connect(MODERN, Transcript()) as peer:
        script = Script("book_reworded", {}, answers)
        result = await drive(peer, "book_reworded", {"ref": ref}, script, on_round=wait)
        runs = await peer.call_tool("body_runs", {"ref": ref})
    return number, result, runs


def test_fifty_calls_in_flight_keep_their_own_answers(tmp_path: Path) -> None:
    calls = 50
    prefix = uuid.uuid4().hex[:8]

    async def all_at_once(url: str) -> list[Any]:
        outcomes: list[Any] = []
        halfway, everyone_halfway = [0], anyio.Event()

        async def after_round_one(number: int, current: Run, params: dict[str, Any]) -> dict[str, Any]:
            # No call sends its second round until all fifty are mid-call.
            if number == 0:
                halfway[0] += 1
                if halfway[0] == calls:
                    everyone_halfway.set()
                await everyone_halfway.wait()
            return params

        async def one(number: int) -> None:
            outcomes.append(await _book(url, number, f"{prefix}-{number}", after_round_one))

        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                for number in range(calls):
                    group.start_soon(one, number)
        return outcomes

    with LocalServer("elicit_conformance.reference.asgi:asgi", log=tmp_path / "server.log") as server:
        outcomes = anyio.run(all_at_once, server.url)
    assert len(outcomes) == calls
    for number, result, runs in outcomes:
        assert len(result.rounds) == 2, (number, result.rounds)
        assert result.text == f"Booked a flight to City-{number}/A{number:02d}", (number, result.text)
        assert body_run_count(runs) == 1, (number, runs)


def test_sec_4_scenarios_exist() -> None:
    # Guards the parametrization: an empty list would run nothing and pass.
    assert len(MULTI_ROUND) >= 3, MULTI_ROUND
