"""Driving one tool call as a background task (the tasks extension, 2026-07-28): the
rounds asked in the foreground first, if any, then each `input_required` episode of the
task answered with `tasks/update`, and `tasks/get` polled until the task ends."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio

from elicit_conformance.connection.wire import Peer
from elicit_conformance.exceptions import RpcError, TimedOut
from elicit_conformance.quoting import brief

from .driver import MAX_ROUNDS, Asked, Run, Script, as_object, drive, input_requests, read_requests, request_message


#: How long to wait between `tasks/get` polls when the server names no interval.
DEFAULT_POLL = 0.1


@dataclass
class TaskRun(Run):
    """What happened over one tasked call (the tasks extension, 2026-07-28).

    `rounds` are its `input_required` episodes; `result` is the `CallToolResult`
    a completed task inlines, `error` a failed task's error (or the call's own
    JSON-RPC error, when no task was made).
    """

    #: The answer that ended the call's rounds: the task, where the server made one.
    #: The rounds asked before it, in the foreground (the extension's recommended
    #: composition), are the `asks`, each in `rounds` too.
    created: dict[str, Any] = field(default_factory=dict)
    task_id: str | None = None
    #: Every status `tasks/get` reported, in order (repeats of a poll folded).
    statuses: list[str] = field(default_factory=list)
    #: The `tasks/get` answer that ended the task, as the server sent it.
    ended_as: dict[str, Any] = field(default_factory=dict)
    #: Each request key the task used, with the message it asked under it.
    keys: dict[str, str] = field(default_factory=dict)
    #: Keys the task used again for another request, or asked again once answered
    #: while asking something new (the extension: a key is unique over a task's life).
    reused: list[str] = field(default_factory=list)

    def note_keys(self, asked: list[Asked], answered: set[str]) -> None:
        """Record an episode's keys, and any the task used before for something else."""
        moved_on = any(a.key not in answered for a in asked)
        for a in asked:
            if a.key in self.keys and self.keys[a.key] != a.message:
                self.reused.append(f"{a.key!r} asked {self.keys[a.key]!r}, then {a.message!r}")
            elif a.key in answered and moved_on:
                self.reused.append(f"{a.key!r}, answered, asked again with new questions beside it")
            self.keys[a.key] = a.message


@dataclass(frozen=True)
class Episode:
    """One `input_required` episode of a task, its answers chosen but not sent."""

    peer: Peer
    script: Script
    #: 0 for the task's first episode.
    number: int
    run: TaskRun
    #: The `tasks/update` params the driver would send: every question answered.
    params: dict[str, Any]


#: Runs at each episode before `tasks/update`: returns the update's params
#: (partial answers, foreign keys, ...) or None to send none.
OnEpisode = Callable[[Episode], Awaitable[dict[str, Any] | None]]


async def drive_task(
    peer: Peer,
    tool: str,
    arguments: Mapping[str, Any],
    script: Script,
    *,
    deadline: float,
    on_episode: OnEpisode | None = None,
) -> TaskRun:
    """Call `tool` as a task and see it through: poll `tasks/get` at the server's
    `pollIntervalMs`, answer each `input_required` with `tasks/update`.

    The server decides whether and when a task is made (the tasks extension: it
    "MAY return CreateTaskResult ... at its own discretion"), so the call may first
    ask in foreground rounds, which are answered as `drive` answers them (the
    extension's recommended composition: resolve the rounds "synchronously before
    responding with a CreateTaskResult"), and may end in the foreground with no task.

    Raises:
        TimedOut: The task was still unfinished `deadline` seconds in (the
            `anyio.current_time()` at which to give up).
    """
    run = TaskRun()
    await drive(peer, tool, arguments, script, run=run)
    if run.error is not None or run.gave_up:
        return run
    created = run.created = as_object(run.result)
    task_id = created.get("taskId")
    if created.get("resultType") != "task" or not isinstance(task_id, str):
        return run  # not a task: what came is the call's own answer, judged by the case
    run.result = None  # the task's, once it has ended
    run.task_id = task_id
    answered: set[str] = set()
    for number in range(MAX_ROUNDS + 1):
        task = await poll_task(peer, run, deadline, answered)
        if task.get("status") != "input_required":
            return _ended(run, task)
        asked = read_requests(task, script)
        run.note_keys(asked, answered)
        run.rounds.append(asked)
        params: dict[str, Any] | None = {
            "taskId": task_id, "inputResponses": {a.key: script.reply(a) for a in asked},
        }
        if on_episode is not None:
            params = await on_episode(Episode(peer, script, number, run, params))
        if params is None:  # the case chose not to answer (it cancelled, say)
            return _ended(run, await poll_task(peer, run, deadline))
        answered = set(as_object(params.get("inputResponses")))
        try:
            await peer.request("tasks/update", params)
        except RpcError as error:  # the answers were refused: the client has none better
            run.error = error.error
            return run
    run.gave_up = f"the task still asked after {MAX_ROUNDS} rounds of questions (the suite stopped answering there)"
    return run


async def poll_task(peer: Peer, run: TaskRun, deadline: float, answered: set[str] = frozenset()) -> dict[str, Any]:
    """`tasks/get` until the task is neither working nor still showing the
    questions just answered (`answered`, their keys, each still asking what it
    asked: the update may not have been applied yet, as the extension allows).

    Raises:
        TimedOut: `deadline` passed first.
    """
    while True:
        task = await _get(peer, run)
        status = task.get("status")
        shown = input_requests(task)
        waiting = status == "input_required" and bool(answered) and all(
            key in answered and run.keys.get(key, request_message(request)) == request_message(request)
            for key, request in shown.items())
        if status != "working" and not waiting:
            return task
        pause = _pause(task)
        if anyio.current_time() + pause > deadline:
            raise TimedOut(f"timed out: task {run.task_id} was still {status} when the case's time ran out")
        await anyio.sleep(pause)


#: A task's statuses that do not change again.
TERMINAL = ("completed", "failed", "cancelled")


async def poll_until_ended(peer: Peer, run: TaskRun, until: float) -> dict[str, Any]:
    """`tasks/get` at the server's `pollIntervalMs` until the task reaches a terminal
    status or `until` (an `anyio.current_time()`) passes: the last answer, ended or not
    (the extension's cancellation is eventually consistent: the case judges how long)."""
    while True:
        task = await _get(peer, run)
        pause = _pause(task)
        if task.get("status") in TERMINAL or anyio.current_time() + pause > until:
            return task
        await anyio.sleep(pause)


async def _get(peer: Peer, run: TaskRun) -> dict[str, Any]:
    """One `tasks/get`, its status noted in `run.statuses` where it changed."""
    task = await peer.request("tasks/get", {"taskId": run.task_id})
    if not run.statuses or run.statuses[-1] != task.get("status"):
        run.statuses.append(str(task.get("status")))
    return task


def _pause(task: dict[str, Any]) -> float:
    """Seconds to wait before the next poll: the task's `pollIntervalMs`, where it gives one."""
    interval = task.get("pollIntervalMs")
    return interval / 1000 if isinstance(interval, (int, float)) and interval >= 0 else DEFAULT_POLL


def _ended(run: TaskRun, task: dict[str, Any]) -> TaskRun:
    run.ended_as = task
    status = task.get("status")
    if status == "completed":
        run.result = as_object(task.get("result"))
    elif status == "failed":
        run.error = as_object(task.get("error")) or {"message": f"the task failed: {brief(task)}"}
    elif status == "input_required":
        run.error = {"message": "the task was left waiting for answers"}
    else:
        run.error = {"message": f"the task ended {status!r}: {brief(task)}"}
    return run
