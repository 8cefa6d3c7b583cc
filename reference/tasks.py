"""Declared parameters on background tasks: what the reference adds to fastmcp-tasks.

fastmcp-tasks runs a guard tool's legs as task executions and keeps each leg's
state and answers in its store, so the engine asks in a task exactly as on
2026-07-28 (`serve._fill`). Two rules of the suite need more than it offers:

- **The capability rule (TASK-5).** A worker has no client to ask what it
  declared, and the task's stored snapshot does not keep the client's
  capabilities. So the rule is applied where the client still is: a tasked call
  of a tool that declares questions, from a client without form elicitation, is
  refused at creation with the same -32021 a foreground call gets. Refusing
  before the task exists is what the client can act on; a task that could only
  fail later would tell it after the work had started.
- **Signature order (BAT-4).** A leg's requests are stored in a hash, which
  does not keep their order, so `tasks/get` puts each waiting task's requests
  back in the order its tool declares them.

This module reads fastmcp-tasks' store through its private helpers; every
fastmcp-tasks release pins fastmcp to its own version, so the pair moves together.
"""

from __future__ import annotations

from typing import Any

from fastmcp.exceptions import NotFoundError
from fastmcp.server.context import Context
from fastmcp.server.dependencies import _is_client_tool_call
from fastmcp.utilities.tasks import TASKS_EXTENSION_ID
from fastmcp_tasks import TasksExtension
from fastmcp_tasks.context import get_task_scope
from fastmcp_tasks.creation import registered_component_for_key
from fastmcp_tasks.handlers import _lookup_task
from fastmcp_tasks.input_store import _read_outstanding_map
from fastmcp_tasks.keys import parse_task_key
from fastmcp_tasks.models import GetTaskParams, GetTaskResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elicit_conformance.reference.serve import declares_form_elicitation, missing_form_elicitation


class DeclarativeTasks(TasksExtension):
    """The tasks extension, with the capability rule and question order of declared tools."""

    async def intercept_tool_call(self, params: Any, context: Context, call_next: Any) -> Any:
        names = await self._questions_of_task(params, context)
        if names and not declares_form_elicitation(context):
            raise missing_form_elicitation(names)
        return await super().intercept_tool_call(params, context, call_next)

    async def _questions_of_task(self, params: Any, context: Context) -> list[str]:
        """The declared questions of the tool this call would run as a task, if it would."""
        rc = context.request_context
        if rc is None or rc.protocol_version not in MODERN_PROTOCOL_VERSIONS or not _is_client_tool_call():
            return []
        if context.client_extension_settings(TASKS_EXTENSION_ID) is None:
            return []
        try:
            tool = await context.fastmcp.get_tool(params.name)
        except NotFoundError:
            return []
        if tool is None or not tool.task_config.supports_tasks():
            return []
        return [q.name for q in _declared(tool)]

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


def _declared(tool: Any) -> tuple[Any, ...]:
    """The questions a tool's function declares (`serve.declared` records them)."""
    return getattr(getattr(tool, "fn", None), "__elicit_questions__", ())
