"""The official MCP conformance suite's fixtures for asking, on the reference engine.

The official suite (`@modelcontextprotocol/conformance`) judges a server through
tools and prompts with names and wording of its own; each scenario's description
is their contract. Every fixture that asks the user one form question after
another is written with `Elicit` declarations, so the official checks judge the
declarative engine itself. Where a scenario asks for what a declaration cannot
say, the fixture is the guard a careful author writes by hand, and its docstring
says why: sampling and roots requests (a declaration asks the user, not the
client's model or file system), choosing the kind of request by the client's
capabilities, and a prompt that asks (the reference refuses `Elicit` on prompts,
ERA-6).

`register(app)` adds them; `tests/test_official_suite.py` runs the official suite.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import anyio
import mcp_types
from fastmcp import Context
from fastmcp.exceptions import ToolError
from fastmcp.utilities.tasks import TaskConfig
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, Field

from elicit_conformance.reference.markers import Elicit
from elicit_conformance.reference.serve import DeclarativeFastMCP, missing_capability

class Name(BaseModel):
    name: str


class Confirmation(BaseModel):
    ok: bool


class Colour(BaseModel):
    color: str


class Contact(BaseModel):
    username: str = Field(description="User's response")
    email: str = Field(description="User's email address")


class Defaults(BaseModel):
    """Every primitive type with a default (SEP-1034)."""

    name: str = Field("John Doe", description="User name")
    age: int = Field(30, description="User age")
    score: float = Field(95.5, description="User score")
    status: Literal["active", "inactive", "pending"] = Field("active", description="User status")
    verified: bool = Field(True, description="Verification status")


class Choices(BaseModel):
    """The five enum forms of SEP-1330, each the way pydantic spells it."""

    untitledSingle: Literal["option1", "option2", "option3"]  # noqa: N815 - the scenario's names
    # A titled choice states its options once, as oneOf, with no enum beside it.
    titledSingle: str = Field(json_schema_extra={"oneOf": [  # noqa: N815
        {"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"},
        {"const": "value3", "title": "Third Option"}]})
    legacyEnum: Literal["opt1", "opt2", "opt3"] = Field(  # noqa: N815
        json_schema_extra={"enumNames": ["Option One", "Option Two", "Option Three"]})
    untitledMulti: list[Literal["option1", "option2", "option3"]]  # noqa: N815
    titledMulti: list[Literal["value1", "value2", "value3"]] = Field(json_schema_extra={"items": {"anyOf": [  # noqa: N815
        {"const": "value1", "title": "First Choice"}, {"const": "value2", "title": "Second Choice"},
        {"const": "value3", "title": "Third Choice"}]}})


def as_asked(message: str) -> Elicit[Contact]:
    # The tool's argument is the question's wording.
    return Elicit(message, response_type=Contact)


def favourite_colour(step1: Name) -> Elicit[Colour]:
    # Takes the first answer, so it is asked in the round after it.
    return Elicit("Step 2: What is your favorite color?", response_type=Colour)


def _elicit(message: str, fields: dict[str, str]) -> mcp_types.ElicitRequest:
    schema = {"type": "object", "properties": {f: {"type": t} for f, t in fields.items()}, "required": list(fields)}
    return mcp_types.ElicitRequest(params=mcp_types.ElicitRequestFormParams(message=message, requested_schema=schema))


def _sample(text: str, max_tokens: int) -> mcp_types.CreateMessageRequest:
    message = mcp_types.SamplingMessage(role="user", content=mcp_types.TextContent(type="text", text=text))
    return mcp_types.CreateMessageRequest(params=mcp_types.CreateMessageRequestParams(messages=[message], max_tokens=max_tokens))


def _said(reply: Any) -> str:
    """What a client answered, as text: its content, sampled text or roots."""
    if isinstance(reply, mcp_types.ElicitResult):
        return json.dumps(reply.content or {})
    if isinstance(reply, mcp_types.CreateMessageResult):
        content = reply.content
        return getattr(content, "text", None) or str(content)
    if isinstance(reply, mcp_types.ListRootsResult):
        return ", ".join(str(root.uri) for root in reply.roots)
    return str(reply)


def _by_hand(ctx: Context, wanted: dict[str, Any], done: str) -> str | mcp_types.InputRequiredResult:
    """A guard's one round: complete once every key was answered, else ask them all."""
    replies = ctx.input_responses or {}
    if all(key in replies for key in wanted):
        return done + ": " + "; ".join(f"{key}={_said(replies[key])}" for key in wanted)
    return mcp_types.InputRequiredResult(input_requests=wanted, request_state="by-hand")


def register(app: DeclarativeFastMCP) -> None:
    """Add the official suite's fixtures for asking to `app`."""

    @app.tool
    def test_input_required_result_elicitation(user_name: Annotated[Name, Elicit("What is your name?")]) -> str:
        """Asks the user's name (official: input-required-result-basic-elicitation, -result-type, -missing-input-response)."""
        return f"Hello, {user_name.name}!"

    @app.tool
    def test_input_required_result_request_state(confirm: Annotated[Confirmation, Elicit("Please confirm")]) -> str:
        """Asks for a confirmation; the engine seals the state and checks it on return (official: input-required-result-request-state)."""
        return f"state-ok: confirmed {str(confirm.ok).lower()}"

    @app.tool
    def test_input_required_result_multi_round(
        step1: Annotated[Name, Elicit("Step 1: What is your name?")],
        step2: Annotated[Colour, Elicit(favourite_colour)],
    ) -> str:
        """Asks a name, then a colour in the next round (official: input-required-result-multi-round)."""
        return f"{step1.name} likes {step2.color}"

    @app.tool
    def test_input_required_result_tampered_state(note: Annotated[str, Elicit("Anything to add?")]) -> str:
        """Asks once; a tampered requestState is refused with -32602 (official: input-required-result-tampered-state)."""
        return f"Noted: {note}"

    @app.tool
    def test_elicitation(message: str, reply: Annotated[Contact, Elicit(as_asked)]) -> str:
        """Asks a username and email with the caller's message (official, 2025-11-25: tools-call-elicitation)."""
        return f"User response: action=accept, content={reply.model_dump_json()}"

    @app.tool
    def test_elicitation_sep1034_defaults(
        form: Annotated[Defaults, Elicit("Please review and update the form fields with defaults")],
    ) -> str:
        """Asks a form whose every field has a default (official, 2025-11-25: elicitation-sep1034-defaults)."""
        return f"Elicitation completed: action=accept, content={form.model_dump_json()}"

    @app.tool
    def test_elicitation_sep1330_enums(form: Annotated[Choices, Elicit("Please choose from the enum options")]) -> str:
        """Asks the five enum forms of SEP-1330 (official, 2025-11-25: elicitation-sep1330-enums)."""
        return f"Elicitation completed: action=accept, content={form.model_dump_json()}"

    @app.tool
    async def test_input_required_result_sampling(ctx: Context) -> str | mcp_types.InputRequiredResult:
        """By hand: a declaration asks the user, and this asks the client's model (official: input-required-result-basic-sampling)."""
        return _by_hand(ctx, {"capital_question": _sample("What is the capital of France?", 100)}, "Sampled")

    @app.tool
    async def test_input_required_result_list_roots(ctx: Context) -> str | mcp_types.InputRequiredResult:
        """By hand: asks the client for its roots (official: input-required-result-basic-list-roots)."""
        return _by_hand(ctx, {"client_roots": mcp_types.ListRootsRequest()}, "Roots")

    @app.tool
    async def test_input_required_result_multiple_inputs(ctx: Context) -> str | mcp_types.InputRequiredResult:
        """By hand: a question, a sampling request and a roots request in one round (official: input-required-result-multiple-input-requests)."""
        wanted = {"user_name": _elicit("What is your name?", {"name": "string"}),
                  "greeting": _sample("Generate a greeting", 50), "client_roots": mcp_types.ListRootsRequest()}
        return _by_hand(ctx, wanted, "All answered")

    @app.tool
    async def test_input_required_result_capabilities(ctx: Context) -> str | mcp_types.InputRequiredResult:
        """By hand: asks only by the kinds of request the client declared (official: input-required-result-capability-check)."""
        capabilities = ctx.session.client_capabilities
        wanted: dict[str, Any] = {}
        if capabilities is not None and capabilities.elicitation is not None:
            wanted["user_name"] = _elicit("What is your name?", {"name": "string"})
        if capabilities is not None and capabilities.sampling is not None:
            wanted["greeting"] = _sample("Generate a greeting", 50)
        if not wanted:
            raise missing_capability(mcp_types.ClientCapabilities(elicitation=mcp_types.ElicitationCapability()),
                                     "MissingRequiredClientCapabilityError")
        return _by_hand(ctx, wanted, "Answered")

    @app.tool
    async def test_missing_capability(ctx: Context) -> str:
        """By hand: needs the client's sampling capability and says so with -32021 (official: server-stateless)."""
        capabilities = ctx.session.client_capabilities
        if capabilities is None or capabilities.sampling is None:
            raise missing_capability(mcp_types.ClientCapabilities(sampling=mcp_types.SamplingCapability()),
                                     "MissingRequiredClientCapabilityError")
        return "Success"

    @app.prompt
    async def test_input_required_result_prompt(ctx: Context) -> str | mcp_types.InputRequiredResult:
        """By hand: a prompt that asks (the reference refuses Elicit on prompts, ERA-6) (official: input-required-result-non-tool-request)."""
        reply = (ctx.input_responses or {}).get("user_context")
        if isinstance(reply, mcp_types.ElicitResult) and reply.content:
            return f"Answer with this context in mind: {reply.content.get('context')}"
        request = _elicit("What context should the prompt use?", {"context": "string"})
        return mcp_types.InputRequiredResult(input_requests={"user_context": request})


def deleting(filename: str) -> Elicit[Confirmation]:
    return Elicit(f"Delete {filename}?", response_type=Confirmation)


def register_tasks(app: DeclarativeFastMCP, task: Any) -> None:
    """Add the official suite's fixtures for the tasks extension (the `tasks-*` scenarios);
    `task` is how the reference runs a tool as a task (`app.TASK`).

    The asking ones are declarations. `test_tool_with_task` asks as every tasked tool of
    the reference does: in foreground rounds, the task made on the round that completes
    them (tasks-mrtr-composition). `confirm_delete` and `multi_input` make the task first
    and ask inside it, through `tasks/get` (tasks-mrtr-input): `AsksInsideTheTask`."""
    from elicit_conformance.reference.tasks import AsksInsideTheTask

    required = TaskConfig(mode="required", poll_interval=task.poll_interval)
    inside = AsksInsideTheTask(mode=task.mode, poll_interval=task.poll_interval)

    @app.tool
    def greet(name: str) -> str:
        """Greets by name, in the foreground only (official: tasks-*)."""
        return f"Hello, {name}!"

    @app.tool(task=task)
    async def slow_compute(seconds: float = 1, label: str = "") -> str:
        """Sleeps `seconds`, then answers with `label`; cancellable while it sleeps (official: tasks-*)."""
        await anyio.sleep(seconds)
        return f"{label or 'Computed'} after {seconds:g} s"

    @app.tool(task=required)
    async def failing_job() -> str:
        """Always fails as a tool, after about a second, and only as a task (official: tasks-*)."""
        await anyio.sleep(1)
        raise ToolError("failing_job always fails")

    @app.tool(task=task)
    async def protocol_error_job() -> str:
        """Fails with a protocol error, not a tool error (official: tasks-lifecycle)."""
        raise MCPError(code=mcp_types.INTERNAL_ERROR, message="protocol_error_job always fails")

    @app.tool(task=inside)
    def confirm_delete(filename: str, confirmation: Annotated[Confirmation, Elicit(deleting)]) -> str:
        """Asks to confirm, then deletes nothing (official: tasks-mrtr-input, tasks-dispatch-and-envelope)."""
        return f"{'Deleted' if confirmation.ok else 'Kept'} {filename}"

    @app.tool(task=inside)
    def multi_input(
        name: Annotated[Name, Elicit("What is your name?")], colour: Annotated[Colour, Elicit("What is your favourite colour?")],
    ) -> str:
        """Asks two questions in one round (official: tasks-mrtr-input)."""
        return f"{name.name} likes {colour.color}"

    @app.tool(task=required)
    def test_tool_with_task(user_name: Annotated[Name, Elicit("What is your name?")]) -> str:
        """Asks a name, then runs as a task (official: tasks-mrtr-composition)."""
        return f"Hello, {user_name.name}!"
