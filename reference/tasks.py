"""Declared parameters on background tasks: what the reference adds to fastmcp-tasks.

fastmcp-tasks runs a guard tool's legs as task executions and keeps each leg's
state and answers in its store, so the engine can ask in a task exactly as on
2026-07-28 (`serve._fill`). The reference does more:

- **Ask, then make the task (TASK-1).** The tasks extension recommends that a
  server "SHOULD resolve all MRTR exchanges synchronously before responding
  with a CreateTaskResult". So a tasked call of a tool that declares questions
  first runs as an ordinary 2026-07-28 leg without its body: while questions
  remain it answers `InputRequiredResult` rounds (no task yet), and the round
  that completes them makes the task, whose first leg starts from that round's
  answers and runs the body once. fastmcp-tasks makes a task only from a tool's
  arguments, so the answers ride in as the new task's carried `request_state`,
  written under its id before its first leg is enqueued (`_carrying`): the one
  parameter (`create_task(..., request_state=...)`) a contribution would add.
  A client that declared no form elicitation is refused with -32021 in the
  foreground round that would ask it (TASK-5), as any 2026-07-28 call is.
  `asks_before_the_task` is the switch: a tool whose `task=` is
  `AsksInsideTheTask(...)` (two of the official suite's fixtures), or every tool
  in a variant and some mutants, has the task made first and asks through
  `tasks/get`, which is legal too; such a client is then refused when the task
  would be made, since its worker has no client to check capabilities against.
  The round that makes the task, sent again (a client that lost its response),
  answers the same task instead of making a second (`reference.once`).
- **Signature order (BAT-4).** A leg's requests are stored in a hash, which
  does not keep their order, so `tasks/get` puts each waiting task's requests
  back in the order its tool declares them.

This module reads fastmcp-tasks' store through its private helpers; every
fastmcp-tasks release pins fastmcp to its own version, so the pair moves together.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Any

from fastmcp.exceptions import NotFoundError, ToolError
from fastmcp.server.context import Context
from fastmcp.server.dependencies import _is_client_tool_call
from fastmcp.utilities.tasks import TASKS_EXTENSION_ID, TaskConfig
from fastmcp_tasks import TasksExtension, creation
from fastmcp_tasks.context import get_task_scope
from fastmcp_tasks.creation import registered_component_for_key
from fastmcp_tasks.handlers import _lookup_task
from fastmcp_tasks.input_store import _read_outstanding_map, store_outstanding
from fastmcp_tasks.keys import parse_task_key
from fastmcp_tasks.models import CreateTaskResult, GetTaskParams, GetTaskResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elicit_conformance.reference.once import once
from elicit_conformance.reference.rounds import ElicitationFailed, State
from elicit_conformance.reference.serve import (
    asking_before_a_task,
    declares_form_elicitation,
    missing_form_elicitation,
)


@dataclass
class AsksInsideTheTask(TaskConfig):
    """The task configuration of a tool whose tasked calls make the task first and ask
    inside it, through `tasks/get`; every other tool asks before its task. The official
    suite's `tasks-mrtr-input` needs such tools, its `tasks-mrtr-composition` the other kind."""


#: The answers a task being made starts from (see `_carrying`).
_CARRIED: contextvars.ContextVar[State | None] = contextvars.ContextVar("elicit_carried", default=None)


class DeclarativeTasks(TasksExtension):
    """The tasks extension, asking a declared tool's questions before its task, in order."""

    def asks_before_the_task(self, tool: Any) -> bool:
        """Whether a tasked call's questions go out in foreground rounds before the task
        is made (recommended), or inside the task made at once (also legal)."""
        return not isinstance(tool.task_config, AsksInsideTheTask)

    async def intercept_tool_call(self, params: Any, context: Context, call_next: Any) -> Any:
        tool, names = await self._questions_of_task(params, context)
        if not names:
            return await super().intercept_tool_call(params, context, call_next)
        if not self.asks_before_the_task(tool):
            # A task made first asks in its worker, which has no client to check: refuse now.
            if not declares_form_elicitation(context):
                raise missing_form_elicitation(names)
            return await super().intercept_tool_call(params, context, call_next)
        with asking_before_a_task() as handoff:
            answer = await call_next()
        if handoff.state is None:
            return answer  # a round still asking, or the call's own error: no task yet
        token = _CARRIED.set(handoff.state)
        try:
            make = lambda: super(DeclarativeTasks, self).intercept_tool_call(params, context, call_next)  # noqa: E731
            completions = getattr(self.server, "completions", None)
            if completions is None or not context.request_state:
                return await make()
            # The round that makes the task, sent again, gets the same task, not a second. Its
            # record is the task's, apart from any of the body's for the same round.
            return await once(completions, params.name, params.arguments or {}, f"task of {context.request_state}",
                              context.input_responses, make,
                              # By field name: the model's aliases serialize only, so validation reads names.
                              keep=lambda made: made.model_dump(mode="json"), restore=CreateTaskResult.model_validate)
        except ElicitationFailed as failure:
            raise ToolError(str(failure)) from failure
        finally:
            _CARRIED.reset(token)

    async def _questions_of_task(self, params: Any, context: Context) -> tuple[Any, list[str]]:
        """The tool this call would run as a task, if it would, and its declared questions."""
        rc = context.request_context
        if rc is None or rc.protocol_version not in MODERN_PROTOCOL_VERSIONS or not _is_client_tool_call():
            return None, []
        if context.client_extension_settings(TASKS_EXTENSION_ID) is None:
            return None, []
        try:
            tool = await context.fastmcp.get_tool(params.name)
        except NotFoundError:
            return None, []
        if tool is None or not tool.task_config.supports_tasks():
            return None, []
        return tool, [q.name for q in _declared(tool)]

    async def _handle_get(self, ctx: Any, params: GetTaskParams) -> GetTaskResult:
        result = await super()._handle_get(ctx, params)
        if result.status != "input_required" or not result.input_requests:
            return result
        docket = self.server._docket
        scope = get_task_scope()
        _, base_key, leg, _, _ = await _lookup_task(docket, scope, params.task_id)
        tool = await registered_component_for_key(self.server, parse_task_key(base_key)["component_identifier"])
        order = {q.name: i for i, q in enumerate(_declared(tool))}
        asks = await _read_outstanding_map(docket, scope, params.task_id, leg)
        ordered = sorted(result.input_requests.items(), key=lambda item: order.get(asks.get(item[0], ""), len(order)))
        return result.model_copy(update={"input_requests": dict(ordered)})


def _carrying(save_current_leg: Any) -> Any:
    """fastmcp-tasks' `save_current_leg`, which `create_task` calls with the new
    task's id before it enqueues the first leg, also writing the answers the task
    starts from as its carried `request_state` (what a leg that asked would store)."""

    async def saved(docket: Any, task_scope: Any, task_id: str, *args: Any, **kwargs: Any) -> None:
        await save_current_leg(docket, task_scope, task_id, *args, **kwargs)
        if (state := _CARRIED.get()) is not None:
            await store_outstanding(docket, task_scope, task_id, 1, {}, state.encode())

    return saved


creation.save_current_leg = _carrying(creation.save_current_leg)


def _declared(tool: Any) -> tuple[Any, ...]:
    """The questions a tool's function declares (`serve.declared` records them)."""
    return getattr(getattr(tool, "fn", None), "__elicit_questions__", ())
