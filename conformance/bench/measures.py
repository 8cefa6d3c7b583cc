"""Each measurement the benchmark table reports, taken here and only here."""


from __future__ import annotations

import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import anyio
from fastmcp.client.transports.memory import FastMCPTransport

from elicit_conformance.bench import costs
from elicit_conformance.catalog import Scenario, load
from elicit_conformance.connection.client import Client
from elicit_conformance.connection.wire import Transcript, connect
from elicit_conformance.dev.local_server import LocalServer
from elicit_conformance.harness.driver import Run, Script, drive
from elicit_conformance.harness.tasked import drive_task
from elicit_conformance.revisions import MODERN

ROOT = Path(__file__).resolve().parents[2]
#: Tasked calls timed (each pays the poll interval several times).
TASK_CALLS = 20


def servers() -> dict[str, Any]:
    try:
        from elicit_conformance.fixtures.peers import hand_guard, mcp_sdk
    except ModuleNotFoundError as error:  # the wheel ships no peers
        raise SystemExit(
            "the benchmark compares the reference with the peers in the repository's "
            "fixtures/peers: run it from a clone (pip install -e .)."
        ) from error
    from elicit_conformance.reference.app import app

    return {"reference": app, "MCP SDK peer": mcp_sdk.app,
            "hand guard, one a round": hand_guard.one_at_a_time, "hand guard, batched": hand_guard.batched}


def _connect(server: Any) -> Any:
    # The client declares elicitation, as one that answers InputRequiredResults does.
    return connect(FastMCPTransport(server), Client(MODERN), Transcript())


async def rounds(server: Any, scenario: Scenario) -> int | None:
    async with _connect(server) as peer:
        listed = await peer.request("tools/list", {})
        if scenario.tool not in {t["name"] for t in listed["tools"]}:
            return None
        script = Script(scenario.tool, scenario.arguments, scenario.answers)
        return len((await drive(peer, scenario.tool, dict(scenario.arguments), script)).rounds)


# -- server time per leg ---------------------------------------------------------


class LegTimer:
    """A server middleware timing each tools/call leg inside the seal."""

    def __init__(self) -> None:
        self.label = ""
        self.samples: dict[str, list[float]] = {}

    async def __call__(self, ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        if ctx.method != "tools/call":
            return await call_next(ctx)
        started = time.perf_counter()
        try:
            return await call_next(ctx)
        finally:
            self.samples.setdefault(self.label, []).append(time.perf_counter() - started)


def _middleware(server: Any) -> list[Any]:
    """The SDK's low-level middleware list (innermost last) for either kind of server.

    MCPServer exposes it; fastmcp keeps it on its low-level server. `FastMCP.middleware`
    is fastmcp's own list, a layer further in: timing there would not compare.
    """
    from mcp.server.mcpserver import MCPServer

    return server.middleware if isinstance(server, MCPServer) else server._mcp_server.middleware


async def time_legs(servers: dict[str, Any], tool: str, calls: int) -> dict[str, dict[str, float]]:
    """Median server time of each leg of `tool`, per server.

    The servers take turns call by call, so drift in the machine's speed
    falls on all of them alike.
    """
    timers = {name: LegTimer() for name in servers}
    for name, server in servers.items():
        _middleware(server).append(timers[name])
    scenario = next(s for s in load().scenarios.values() if s.tool == tool)
    try:
        async with contextlib.AsyncExitStack() as stack:
            peers = {name: await stack.enter_async_context(_connect(server)) for name, server in servers.items()}
            for number in range(calls):
                for name, peer in peers.items():
                    await _one_call(peer, timers[name], tool, scenario, f"bench-{name}-{number}")
    finally:
        for name, server in servers.items():
            _middleware(server).remove(timers[name])
    return {name: {leg: statistics.median(v) for leg, v in sorted(t.samples.items())} for name, t in timers.items()}


async def _one_call(peer: Any, timer: LegTimer, tool: str, scenario: Scenario, ref: str) -> None:
    arguments = {**scenario.arguments, **({"ref": ref} if "ref" in scenario.arguments else {})}

    async def next_leg(number: int, run: Run, params: dict[str, Any]) -> dict[str, Any]:
        timer.label = f"leg {number + 2}"
        return params

    timer.label = "leg 1"
    await drive(peer, tool, arguments, Script(tool, arguments, scenario.answers), on_round=next_leg)


# -- a tasked call against the foreground ------------------------------------------


class _Busy:
    """A peer whose requests are timed: what is left of a tasked call's wall time
    is the client waiting between polls."""

    def __init__(self, peer: Any) -> None:
        self.peer, self.era, self.seconds, self.polls = peer, peer.era, 0.0, 0

    async def call_tool(self, name: str, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return await self._timed(self.peer.call_tool(name, arguments, **extra))

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.polls += method == "tasks/get"
        return await self._timed(self.peer.request(method, params))

    async def _timed(self, sent: Any) -> dict[str, Any]:
        started = time.perf_counter()
        try:
            return await sent
        finally:
            self.seconds += time.perf_counter() - started


@dataclass(frozen=True)
class TaskTime:
    foreground: float
    tasked: float
    waiting: float
    polls: float


async def tasked_against_foreground(server: Any, case_id: str, calls: int) -> TaskTime:
    """Medians over `calls` calls of each kind, taking turns."""
    scenario = load().scenarios[case_id]
    script = Script(scenario.tool, scenario.arguments, scenario.answers)
    foreground, tasked, waiting, polls = [], [], [], []
    async with _connect(server) as plain, \
            connect(FastMCPTransport(server), Client(MODERN, tasks=True), Transcript()) as opted:
        for _ in range(calls):
            started = time.perf_counter()
            await drive(plain, scenario.tool, dict(scenario.arguments), script)
            foreground.append(time.perf_counter() - started)
            busy = _Busy(opted)
            started = time.perf_counter()
            run = await drive_task(busy, scenario.tool, scenario.arguments, script, deadline=anyio.current_time() + 60)
            wall = time.perf_counter() - started
            if run.task_id is None or run.result is None:
                raise SystemExit(f"the tasked {scenario.tool} did not complete as a task: {run}")
            tasked.append(wall)
            waiting.append(wall - busy.seconds)
            polls.append(busy.polls)
    return TaskTime(*(statistics.median(v) for v in (foreground, tasked, waiting, polls)))


# -- request_state size ------------------------------------------------------------


def _state_tool(k: int) -> Any:
    """A reference tool with k questions, then one confirmation quoting all of them."""
    from elicit_conformance.reference import Elicit

    names = [f"q{i}" for i in range(k)]
    namespace: dict[str, Any] = {"Annotated": Annotated, "Elicit": Elicit}
    exec(  # noqa: S102 - a benchmark builds signatures of any width
        f"def confirm_all({', '.join(f'{n}: str' for n in names)}) -> Elicit[bool]:\n"
        f"    return Elicit('Book with ' + ', '.join([{', '.join(names)}]) + '?', response_type=bool)\n"
        f"def book_{k}({', '.join(f'{n}: Annotated[str, Elicit({chr(39)}Question {n}?{chr(39)})]' for n in names)},"
        f" proceed: Annotated[bool, Elicit(confirm_all)]) -> str:\n    return 'ok'\n",
        namespace,
    )
    return namespace[f"book_{k}"]


async def state_bytes(ks: list[int]) -> dict[int, int]:
    from elicit_conformance.reference import DeclarativeFastMCP

    server = DeclarativeFastMCP("bench-state")
    for k in ks:
        server.tool(_state_tool(k))
    sizes = {}
    async with _connect(server) as peer:
        for k in ks:
            first = await peer.call_tool(f"book_{k}", {})
            replies = {key: {"action": "accept", "content": {"value": "Paris-CDG"}} for key in first["inputRequests"]}
            second = await peer.call_tool(f"book_{k}", {}, inputResponses=replies, requestState=first["requestState"])
            sizes[k] = len(second["requestState"].encode())
    return sizes


# -- suite wall time ---------------------------------------------------------------


@dataclass
class SuiteTime:
    seconds: float
    returncode: int
    #: Each case's status, registration cases left out (they run in-process only).
    statuses: dict[str, str]
    #: CPU seconds of the pytest process (a server over HTTP or stdio is not counted).
    cpu: float = 0.0


def suite(*options: str) -> SuiteTime:
    """The whole suite against the reference, timed from outside, as a user runs it."""
    with tempfile.TemporaryDirectory() as report:
        before = _children_cpu()
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "conformance/cases", "-q", "-p", "no:cacheprovider",
             f"--conformance-report={report}", *options],
            cwd=ROOT, capture_output=True, text=True,
        )
        seconds = time.perf_counter() - started
        cpu = _children_cpu() - before
        index = Path(report, "index.json")
        cases = json.loads(index.read_text())["cases"] if index.exists() else []
    statuses = {c["nodeid"]: c["status"] for c in cases if "test_registration.py" not in c["nodeid"]}
    return SuiteTime(seconds, done.returncode, statuses, cpu)


def _children_cpu() -> float:
    """CPU seconds of every child process waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def transports() -> dict[str, SuiteTime]:
    times = {"in-process": suite()}
    with LocalServer("elicit_conformance.reference.asgi:asgi") as server:
        times["HTTP"] = suite(f"--server={server.url}")
        times["HTTP, -n 2"] = suite(f"--server={server.url}", "-n", "2")
    times["stdio"] = suite(f"--server-command={sys.executable} -m elicit_conformance.reference")
    return times


@dataclass(frozen=True)
class CiRun:
    """`.ci/run` on a fresh clone: wall and CPU seconds (of every process it started, once
    each has been waited for, which .ci/run's do), its exit code, and each test file's
    (CPU seconds, wall seconds) as its test run wrote them (`bench.costs`)."""

    seconds: float
    cpu: float
    returncode: int
    files: dict[str, tuple[float, float]]


def ci_run() -> CiRun:
    """`.ci/run` on a fresh clone of this repository's HEAD: venv, install, every test."""
    with tempfile.TemporaryDirectory() as parent:
        clone, cost_file = Path(parent, "clone"), Path(parent, "cost.json")
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        before = _children_cpu()
        started = time.perf_counter()
        done = subprocess.run(["bash", ".ci/run"], cwd=clone, capture_output=True, text=True,
                              env={**os.environ, costs.ENV_VAR: str(cost_file)})
        seconds = time.perf_counter() - started
        cpu = _children_cpu() - before
        files = costs.read(cost_file)
    if done.returncode != 0:  # the table says "exit N"; here is why
        print(f".ci/run failed:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}", file=sys.stderr)
    return CiRun(seconds, cpu, done.returncode, files)


def plugin_overhead(repeats: int = 7) -> tuple[float, float]:
    """Median seconds of an unrelated 3-test project's run, with and without the plugin."""
    with tempfile.TemporaryDirectory() as project:
        Path(project, "test_three.py").write_text(
            "def test_one():\n    assert 1\n\n\ndef test_two():\n    assert 2\n\n\ndef test_three():\n    assert 3\n"
        )
        base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        timings: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(repeats):  # interleaved, so drift in machine load hits both alike
            for loaded in (True, False):
                started = time.perf_counter()
                subprocess.run([*base, *([] if loaded else ["-p", "no:elicit_conformance"])],
                               cwd=project, capture_output=True, check=True)
                timings[loaded].append(time.perf_counter() - started)
    return statistics.median(timings[True]), statistics.median(timings[False])
