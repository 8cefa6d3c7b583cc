"""SEC-4 and concurrency: the reference as separate uvicorn processes on 127.0.0.1.

- Two processes sharing the seal key, the app's records and one redis-server
  (the task store): every multi-round scenario, its rounds alternating between
  them, ends as on one process; so does every tasked scenario in both flows the
  reference has: asking in foreground rounds and then making the task (its
  rounds, the creation and the polls spread over both), and, served by the
  variant `asks_inside_the_task`, making the task first, its `tasks/get` and
  `tasks/update` alternating; and the whole suite through HAProxy
  (docs/haproxy.cfg: round-robin, sticky by Mcp-Session-Id) gives the same
  verdicts and golden transcripts, with rounds and task legs on both processes.
- Two processes with different keys: the continuation is rejected clearly; two
  on `memory://` task stores: the second does not know the first's task.
- One process: 50 multi-round calls in flight at once each end with their own answers.
"""

from __future__ import annotations


import functools
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from elicit_conformance.catalog import load
from elicit_conformance.connection.client import Client
from elicit_conformance.connection.target import load_target
from elicit_conformance.connection.wire import Peer, Transcript
from elicit_conformance.dev.local_server import LocalServer
from elicit_conformance.exceptions import RpcError
from elicit_conformance.grading.checks import check_outcome, check_rounds
from elicit_conformance.harness.case import body_run_count
from elicit_conformance.harness.driver import OnRound, Run, Script, drive
from elicit_conformance.harness.tasked import TaskRun, drive_task
from elicit_conformance.reference.app.records import ENV_VAR as RECORDS, SEAL_VAR
from elicit_conformance.revisions import MODERN
from elicit_conformance.dev.services import HAProxy, RedisServer
from tests.suite import BRIEF, TASKS_SERVED, golden_all_same, run

# Their checks are the cases' own, made outside a case: they record in a ledger of their own.
pytestmark = pytest.mark.usefixtures("ledger")

CATALOG = load()
SCENARIOS = CATALOG.scenarios
MULTI_ROUND = [case_id for case_id, s in SCENARIOS.items() if len(s.expect.rounds) > 1]
TASKED = [case_id for case_id, s in SCENARIOS.items() if CATALOG.tools[s.tool].task]
#: Where pydocket keeps fastmcp-tasks' tasks: every process of a deployment names the same Redis.
DOCKET_URL = "FASTMCP_DOCKET_URL"
#: One task wait in these tests, in seconds.
TASK_DEADLINE = 60.0
#: The reference asks a tasked call's questions before it makes the task; this variant
#: of it makes the task first and asks inside it, which is where legs can part.
REFERENCE = "elicit_conformance.reference.asgi:asgi"
TASK_FIRST = "elicit_conformance.fixtures.variants.asks_inside_the_task:asgi"


def _base(url: str) -> str:
    return url.removesuffix("/mcp")


def _servers(tmp: Path, keys: tuple[str, str], docket: str | None = None, app: str = REFERENCE) -> list[LocalServer]:
    records = str(tmp / "records.sqlite")
    tasks = {DOCKET_URL: docket} if docket else {}
    return [
        LocalServer(app, env={SEAL_VAR: key, RECORDS: records, **tasks}, log=tmp / f"server-{n}.log")
        for n, key in enumerate(keys)
    ]


def _deployment(tmp: Path, app: str) -> Iterator[list[str]]:
    """Two processes of `app` sharing a seal key, records and a redis-server: their URLs."""
    key = uuid.uuid4().hex
    with RedisServer(tmp / "redis.log") as redis:
        servers = _servers(tmp, (key, key), redis.url, app)
        with servers[0], servers[1]:
            yield [s.url for s in servers]


@pytest.fixture(scope="module")
def shared_key(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    yield from _deployment(tmp_path_factory.mktemp("shared-key"), REFERENCE)


@pytest.fixture(scope="module")
def task_first(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    yield from _deployment(tmp_path_factory.mktemp("task-first"), TASK_FIRST)


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
    async with load_target(urls[0], "test").connect(Client(MODERN), Transcript()) as first, \
            load_target(urls[1], "test").connect(Client(MODERN), Transcript()) as second:
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


def _foreground_without_tasks(result: Run) -> bool:
    """Without the tasks extra the reference serves no tasks: a tasked call runs in
    the foreground (what the suite's TASK cases then read as "not implemented")."""
    if TASKS_SERVED:
        return False
    assert isinstance(result, TaskRun) and result.task_id is None, result
    assert result.created.get("resultType") != "task", result.created
    return True


#: The catalog tools the reference makes a task for first, asking inside it, whichever
#: flow its other tools follow (reference/app/tools.py: `task=INSIDE`).
ASKS_INSIDE = {"book_trip"}


@pytest.mark.parametrize("flow", ["asks-then-task", "task-then-asks"])
@pytest.mark.parametrize("case_id", TASKED)
def test_sec_4_task_legs_spread_over_processes_sharing_redis(request: pytest.FixtureRequest, case_id: str,
                                                            flow: str, tmp_path: Path) -> None:
    """One client, one request at a time, through HAProxy's round-robin. Asked before
    the task: the rounds, the creation and the polls spread over the processes (the
    answers the task starts from are in Redis, not in the process that made it). Made
    first: the task's own tasks/get and tasks/update alternate between them."""
    urls = request.getfixturevalue("shared_key" if flow == "asks-then-task" else "task_first")
    with HAProxy(tmp_path / "haproxy.log", [_base(url) for url in urls]) as balancer:
        result = anyio.run(functools.partial(_tasked, balancer.url), case_id, uuid.uuid4().hex[:8])
        routed = balancer.routed()
    if _foreground_without_tasks(result):
        return
    check_rounds(result, SCENARIOS[case_id], MODERN)
    check_outcome(result, SCENARIOS[case_id], f"{case_id}/clear")
    task = [r.server for r in routed if r.task == result.task_id]
    if not SCENARIOS[case_id].expect.rounds:
        # Nothing to ask (RES-1): the task is made at once and completes in one leg.
        assert result.task_id is not None and not result.asks and result.statuses[-1:] == ["completed"], result
        return
    if flow == "asks-then-task" and SCENARIOS[case_id].tool not in ASKS_INSIDE:
        assert result.asks and "input_required" not in result.statuses, (result.asks, result.statuses)
        legs = [r.server for r in routed if r.method == "tools/call"] + task
        assert set(legs) == {"one", "two"}, f"the call's requests went to {legs}"
        # A call refused by the round that would complete it (a required question declined,
        # an answer that does not fit) ends there: no task is made for work that cannot run.
        made = SCENARIOS[case_id].expect.result is not None
        assert (result.task_id is not None and task) if made else result.task_id is None, (result, task)
    else:
        assert result.task_id is not None and not result.asks, result
        assert len(task) >= 2 and set(task) == {"one", "two"}, f"task {result.task_id}'s legs went to {task}"


async def _tasked(url: str, case_id: str, run_id: str) -> TaskRun:
    scenario = SCENARIOS[case_id].for_run(run_id)
    script = Script(scenario.tool, scenario.arguments, scenario.answers)
    async with load_target(url, "test").connect(Client(MODERN, tasks=True), Transcript()) as peer:
        return await drive_task(peer, scenario.tool, scenario.arguments, script,
                                deadline=anyio.current_time() + TASK_DEADLINE)


def test_sec_4_on_memory_task_stores_another_process_does_not_know_the_task(tmp_path: Path) -> None:
    key = uuid.uuid4().hex
    servers = _servers(tmp_path, (key, key), "memory://")

    async def create_then_poll_elsewhere(urls: list[str]) -> tuple[dict[str, Any], Any]:
        async with load_target(urls[0], "test").connect(Client(MODERN, tasks=True), Transcript()) as first, \
                load_target(urls[1], "test").connect(Client(MODERN, tasks=True), Transcript()) as second:
            # A task with no questions: made at once (a tool that asks makes it after its rounds).
            created = await first.call_tool("slow_compute", {"seconds": 0})
            if created.get("resultType") != "task":
                return created, None
            try:
                return created, await second.request("tasks/get", {"taskId": created["taskId"]})
            except RpcError as error:
                return created, error

    with servers[0], servers[1]:
        created, polled = anyio.run(create_then_poll_elsewhere, [s.url for s in servers])
    if not TASKS_SERVED:
        assert created.get("resultType") != "task", created
        return
    assert created.get("resultType") == "task", created
    assert isinstance(polled, RpcError), f"the second process answered tasks/get with {polled}"
    assert "not found" in str(polled).lower() and created["taskId"] in str(polled), polled.error


def test_sec_4_the_whole_suite_through_haproxy(shared_key: list[str], tmp_path: Path) -> None:
    with HAProxy(tmp_path / "haproxy.log", [_base(url) for url in shared_key]) as balancer:
        # Every kind of attack through the balancer, once each, not ci's 450 calls of them:
        # the reference's verdict on hostile input is test_transports' in-process run.
        result = run(tmp_path / "run", f"--server={balancer.url}", "--golden-transcripts", env=BRIEF)
        routed = balancer.routed()
    assert result.returncode == 0, result.output[-5000:]
    assert golden_all_same(result.output), "the golden transcripts were not compared, or differ"
    continuations = [r.server for r in routed if r.continuation]
    assert len(continuations) > 50 and set(continuations) == {"one", "two"}, "rounds did not spread over both processes"
    if TASKS_SERVED:
        legs = [r for r in routed if r.task is not None]
        tasks = {r.task for r in legs}
        assert len(tasks) >= len(TASKED) and {r.server for r in legs} == {"one", "two"}, (
            f"HAProxy saw {len(tasks)} tasks, their legs on {sorted({r.server for r in legs})}")


async def _book(url: str, number: int, ref: str, wait: OnRound) -> tuple[int, Run, dict[str, Any]]:
    answers = {"destination": {"accept": f"City-{number}"}, "airport": {"accept": f"A{number:02d}"}}
    async with load_target(url, "test").connect(Client(MODERN), Transcript()) as peer:
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
