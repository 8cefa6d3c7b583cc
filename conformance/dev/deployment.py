"""The reference deployment under faults: what its clients see while a process is
killed and restarted, and while Redis restarts.

Two reference processes (uvicorn, one seal key, one records file) behind HAProxy
configured by docs/haproxy.cfg unchanged, their tasks in one redis-server that
persists every write (`appendfsync always`). Calls run concurrently through the
balancer while a fault runs; each call is a client that retries a failed request
once (a new connection, the same request: what a client does about a response it
lost). A `Tally` counts what a deployment owes its clients:

- no call credited with another's answers (each call answers with its own);
- no body run twice (the records count each `ref`'s runs; SEC-5 makes a retried
  last round answer the first result);
- every task completes once or reports that it failed; none is lost;
- and the share of calls that completed, at once or after their one retry.

tests/test_deployment.py runs it small in CI; `python -m elicit_conformance.bench
--deployment` full size, for docs/benchmarks.md. Repository-only, as `dev` is.
"""

from __future__ import annotations

import contextlib
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types

from elicit_conformance.connection.client import Client
from elicit_conformance.connection.target import load_target
from elicit_conformance.connection.wire import Transcript
from elicit_conformance.exceptions import CheckFailed, RpcError, TimedOut
from elicit_conformance.harness.case import body_run_count
from elicit_conformance.harness.driver import Run, Script, drive
from elicit_conformance.harness.tasked import drive_task
from elicit_conformance.revisions import MODERN
from elicit_conformance.verdict import unwrapped

from .local_server import LocalServer
from .services import HAProxy, RedisServer

REFERENCE = "elicit_conformance.reference.asgi:asgi"
#: One request may take this long before the client gives it up (and retries once).
REQUEST_TIMEOUT = 10.0
#: How long one tasked call may take, its polls included.
TASK_DEADLINE = 60.0
#: A two-round call whose answers are the call's own (`destination` then `airport`).
MODERN_TOOL = "book_reworded"
#: A tasked call: one question in the foreground, then a task whose worker runs the body.
TASKED_TOOL = "book_destination"


@dataclass
class Tally:
    """What the clients saw."""

    calls: int = 0
    #: Completed with the call's own answers: at once, or after one retried request.
    at_once: int = 0
    after_retry: int = 0
    #: Completed with answers that are not the call's own (credited another's).
    wrong: int = 0
    #: What the first of those answered, and what it should have.
    wrong_said: list[str] = field(default_factory=list)
    #: Did not complete: the sentence each client was left with, counted.
    failed: Counter[str] = field(default_factory=Counter)
    #: Body runs per call, counted ({1: 198, 0: 2}).
    runs: Counter[int] = field(default_factory=Counter)
    #: HTTP responses with a 5xx status the clients received.
    http_5xx: int = 0
    #: The tasks the server made (their ids), and how many a later tasks/get no longer knew.
    made_ids: set[str] = field(default_factory=set)
    lost: int = 0
    #: Set when the server makes the first task: a fault on the task store waits for it.
    made: anyio.Event = field(default_factory=anyio.Event)

    @property
    def tasks(self) -> int:
        return len(self.made_ids)

    @property
    def completed(self) -> int:
        return self.at_once + self.after_retry

    @property
    def twice(self) -> int:
        return sum(count for runs, count in self.runs.items() if runs > 1)

    def line(self) -> str:
        failed = "; ".join(f"{count} x {why}" for why, count in self.failed.most_common(3))
        return (f"{self.calls} calls: {self.at_once} completed at once, {self.after_retry} after one retry, "
                f"{self.wrong} with another call's answers; body runs per call {dict(sorted(self.runs.items()))}; "
                f"HTTP 5xx seen {self.http_5xx}; tasks made {self.tasks}, lost {self.lost}"
                + (f"; failed: {failed}" if failed else "")
                + (f"; another's answers: {self.wrong_said[0]}" if self.wrong_said else ""))


class Deployment:
    """`with Deployment(directory) as deployment:` then call `deployment.url`."""

    def __init__(self, directory: Path, *, persistent: bool = True) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        key = uuid.uuid4().hex
        # Without persistence (the bench's comparison): a Redis restart forgets every task.
        self.redis = RedisServer(directory / "redis.log", data=directory / "redis-data" if persistent else None)
        self.env = {"ELICIT_SEAL_KEYS": key, "ELICIT_REFERENCE_RECORDS": str(directory / "records.sqlite")}
        self.processes: list[LocalServer] = []
        self.balancer: HAProxy | None = None

    @property
    def url(self) -> str:
        assert self.balancer is not None
        return self.balancer.url

    def __enter__(self) -> Deployment:
        with contextlib.ExitStack() as stack:
            stack.enter_context(self.redis)
            env = {**self.env, "FASTMCP_DOCKET_URL": self.redis.url}
            for number in (1, 2):
                process = LocalServer(REFERENCE, env=env, log=self.directory / f"server-{number}.log")
                self.processes.append(stack.enter_context(process))
            self.balancer = stack.enter_context(HAProxy(self.directory / "haproxy.log",
                                                        [p.url.removesuffix("/mcp") for p in self.processes]))
            self._stack = stack.pop_all()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def kill(self, number: int) -> None:
        """kill -9 process `number` (1 or 2), as a crash would."""
        self.processes[number - 1].kill()

    def restart(self, number: int) -> None:
        """Start process `number` again on its port, where the balancer expects it."""
        old = self.processes[number - 1]
        self.processes[number - 1] = LocalServer(REFERENCE, env=dict(old.env), log=old.log, port=old.port).__enter__()
        self._stack.callback(self.processes[number - 1].stop)

    def restart_redis(self) -> None:
        """kill -9 Redis and start it again on its port and its data."""
        self.redis.kill()
        self.redis = RedisServer(self.redis.log, port=self.redis.port, data=self.redis.data).__enter__()
        self._stack.callback(self.redis._stop)


class Retrying:
    """A client of the balancer: each request on a connection of its own, a failed one
    (the connection failed, an HTTP error status, no answer in time, an internal error)
    sent once more."""

    era = MODERN

    def __init__(self, url: str, tasks: bool, tally: Tally) -> None:
        self.url = url
        self.client = Client(MODERN, tasks=tasks)
        self.tally = tally
        self.retried = False

    async def call_tool(self, name: str, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return await self.request("tools/call", {"name": name, "arguments": arguments, **extra})

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return await self._once(method, params)
        except RpcError as error:
            if error.error.get("code") != mcp_types.INTERNAL_ERROR:
                raise  # the server's answer: sending it again changes nothing
            self.retried = True  # "could not do it now" (a store restarting): worth once more
        except (CheckFailed, TimedOut):
            self.retried = True
        await anyio.sleep(0.5)  # what a client waits before it tries again
        return await self._once(method, params)

    async def _once(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        target = load_target(self.url, "deployment")
        try:
            async with target.connect(self.client, Transcript(), timeout=REQUEST_TIMEOUT) as peer:
                result = await peer.request(method, params)
            if result.get("resultType") == "task" and isinstance(result.get("taskId"), str):
                self.tally.made_ids.add(result["taskId"])
                self.tally.made.set()
            return result
        except BaseExceptionGroup as group:  # the transport's task group around what failed
            cause = unwrapped(group)
            if cause is group:
                raise
            raise cause from None
        finally:
            self.tally.http_5xx += sum(1 for status in target.http_statuses if status.code >= 500)


async def _body_runs(url: str, ref: str, tally: Tally) -> int:
    return body_run_count(await Retrying(url, False, tally).call_tool("body_runs", {"ref": ref}))


#: A fault, run beside the calls; it may wait on what they did so far.
Fault = Callable[[Tally], Awaitable[None]]


async def modern_calls(url: str, calls: int, fault: Fault) -> Tally:
    """`calls` two-round calls at once through `url`, while `fault` runs."""
    tally = Tally(calls=calls)
    prefix = uuid.uuid4().hex[:8]

    async def one(number: int) -> None:
        ref = f"{prefix}-{number}"
        answers = {"destination": {"accept": f"City-{number}"}, "airport": {"accept": f"A{number:03d}"}}
        client = Retrying(url, False, tally)
        try:
            run = await drive(client, MODERN_TOOL, {"ref": ref}, Script(MODERN_TOOL, {}, answers))
        except (CheckFailed, TimedOut, RpcError) as error:
            tally.failed[_said(error)] += 1
        else:
            _count(tally, client, run, f"Booked a flight to City-{number}/A{number:03d}")
        tally.runs[await _body_runs(url, ref, tally)] += 1

    await _together(one, calls, fault, tally)
    return tally


async def tasked_calls(url: str, calls: int, fault: Fault) -> Tally:
    """`calls` tasked calls at once through `url`, while `fault` runs."""
    tally = Tally(calls=calls)
    prefix = uuid.uuid4().hex[:8]

    async def one(number: int) -> None:
        ref = f"{prefix}-{number}"
        answers = {"destination": {"accept": f"City-{number}"}}
        client = Retrying(url, True, tally)
        try:
            run = await drive_task(client, TASKED_TOOL, {"ref": ref}, Script(TASKED_TOOL, {}, answers),
                                   deadline=anyio.current_time() + TASK_DEADLINE)
        except (CheckFailed, TimedOut, RpcError) as error:
            said = _said(error)
            tally.failed[said] += 1
            tally.lost += "not found" in said.lower()
        else:
            lost = run.error is not None and "not found" in str(run.error.get("message", "")).lower()
            tally.lost += lost
            _count(tally, client, run, f"Booked a flight to City-{number}")
        tally.runs[await _body_runs(url, ref, tally)] += 1

    await _together(one, calls, fault, tally)
    return tally


def _count(tally: Tally, client: Retrying, run: Run, own: str) -> None:
    if run.failed:  # a JSON-RPC error or an error result: the client was told it failed
        tally.failed[(run.gave_up or run.text)[:160]] += 1
    elif run.text != own:
        tally.wrong += 1
        tally.wrong_said.append(f"{run.text!r}, not {own!r}")
    elif client.retried:
        tally.after_retry += 1
    else:
        tally.at_once += 1


def _said(error: BaseException) -> str:
    return (str(error) if not isinstance(error, RpcError) else str(error.error.get("message")))[:160]


async def _together(one: Callable[[int], Awaitable[None]], calls: int, fault: Fault, tally: Tally) -> None:
    async with anyio.create_task_group() as group:
        for number in range(calls):
            group.start_soon(one, number)
        group.start_soon(fault, tally)


def kill_and_restart(deployment: Deployment, number: int, after: float, down: float) -> Fault:
    """A fault: `after` seconds in, kill -9 process `number`; `down` seconds later, start it again."""

    async def fault(tally: Tally) -> None:
        await anyio.sleep(after)
        deployment.kill(number)
        await anyio.sleep(down)
        await anyio.to_thread.run_sync(deployment.restart, number)

    return fault


def redis_restart(deployment: Deployment, after: float) -> Fault:
    """A fault: `after` seconds after the first task is made, kill -9 Redis and start it
    again on its data (where it has any)."""

    async def fault(tally: Tally) -> None:
        await tally.made.wait()
        await anyio.sleep(after)
        await anyio.to_thread.run_sync(deployment.restart_redis)

    return fault

