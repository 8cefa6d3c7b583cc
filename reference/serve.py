"""Glue between the resolution engine and fastmcp: tools, resolvers, both eras.

`declared(fn)` turns a function with `Annotated[T, Elicit(...)]` parameters
into an ordinary fastmcp tool function: the elicited parameters leave its
signature (so they leave the input schema), and before the body runs they are
filled over whichever channel the connection's era has. `DeclarativeFastMCP`
applies it to every `@mcp.tool` and refuses markers where no channel exists.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import anyio.from_thread
import anyio.to_thread
import mcp_types
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.context import Context
from fastmcp.server.dependencies import resolve_dependencies
from mcp.shared.exceptions import MCPError
from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY, MissingRequiredClientCapabilityErrorData
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from uncalled_for import get_dependency_parameters

from elicit_conformance.reference.markers import Elicit
from elicit_conformance.reference.once import Completions, InMemory, once
from elicit_conformance.reference.questions import (
    Question,
    RegistrationError,
    annotations_of,
    name_of,
    read_questions,
    unpartial,
)
from elicit_conformance.reference.rounds import Ask, Complete, ElicitationFailed, Leg, State


def declared(fn: Callable[..., Any], completions: Completions | None = None) -> Callable[..., Any]:
    """A tool function whose `Elicit` parameters are asked of the user, its last
    round's body run once however often that round is sent (`reference.once`;
    recorded in `completions`, else in this process).

    Raises:
        RegistrationError: The declared questions cannot work as written.
    """
    questions = read_questions(fn)
    if not questions:
        return fn
    elicited = {q.name for q in questions}
    signature = inspect.signature(fn)
    model_facing = [p for n, p in signature.parameters.items() if n not in elicited]
    is_async = inspect.iscoroutinefunction(inspect.unwrap(unpartial(fn)))
    record = completions if completions is not None else InMemory()
    injected = frozenset(get_dependency_parameters(fn))

    async def tool(**kwargs: Any) -> Any:
        ctx = kwargs.pop(_CONTEXT)
        try:
            outcome = await _fill(questions, kwargs, ctx, Body(fn, kwargs, is_async, name_of(fn), record, injected))
        except ElicitationFailed as failure:
            raise ToolError(str(failure)) from failure
        if isinstance(outcome, Ask):  # the body does not run this leg (BAT-2)
            return mcp_types.InputRequiredResult(
                input_requests=dict(outcome.requests), request_state=outcome.state.encode()
            )
        if isinstance(outcome.result, mcp_types.InputRequiredResult):
            raise ToolError(
                "This tool declares Elicit(...) parameters and its body also "
                "returned an InputRequiredResult; a call has one channel for input."
            )
        return outcome.result

    # A declared Context is what fastmcp injects everywhere, a task's worker
    # included (there `get_context()` finds none); it is not in the input schema.
    context = inspect.Parameter(_CONTEXT, inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    tool.__signature__ = signature.replace(parameters=_with(model_facing, context))  # type: ignore[attr-defined]
    tool.__annotations__ = {
        **{name: hint for name, hint in annotations_of(fn).items() if name not in elicited},
        _CONTEXT: Context,
    }
    tool.__name__ = name_of(fn)
    tool.__qualname__ = getattr(fn, "__qualname__", tool.__name__)
    tool.__doc__ = inspect.getdoc(unpartial(fn))
    tool.__module__ = getattr(unpartial(fn), "__module__", __name__)
    tool.__elicit_questions__ = questions  # type: ignore[attr-defined]
    return tool


#: The generated tool's own Context parameter; a name no tool declares.
_CONTEXT = "_elicit_context"


def _with(parameters: list[inspect.Parameter], extra: inspect.Parameter) -> list[inspect.Parameter]:
    """`parameters` with a keyword-only `extra`, before any `**kwargs`."""
    tail = [p for p in parameters if p.kind is inspect.Parameter.VAR_KEYWORD]
    return [p for p in parameters if p not in tail] + [extra] + tail


@dataclass(frozen=True)
class Ran:
    """Every value was known and the body ran: what it returned."""

    result: Any


@dataclass(frozen=True)
class Body:
    """The tool body, its arguments bound, run once every elicited value is known.

    Where it runs is the point: a sync body runs in the worker thread its leg's
    sync resolvers already occupy (one thread hop per leg, as fastmcp makes for
    any sync tool), an async body on the event loop.
    """

    fn: Callable[..., Any]
    kwargs: Mapping[str, Any]
    is_async: bool
    #: The tool's name and where its last rounds are recorded (`reference.once`).
    tool: str
    completions: Completions
    #: The parameters a dependency fills (`Depends`): no part of what the client sent.
    injected: frozenset[str] = frozenset()

    @property
    def arguments(self) -> dict[str, Any]:
        """The call's own arguments, as the client sent them: what names its last round,
        where an injected value may differ on every send of the same round."""
        return {name: value for name, value in self.kwargs.items() if name not in self.injected}

    def run_here(self, values: Mapping[str, Any]) -> Ran | None:
        """From a worker thread: run a sync body now; an async one must wait for the loop."""
        return None if self.is_async else Ran(self.fn(**self.kwargs, **values))

    async def run(self, values: Mapping[str, Any]) -> Ran:
        call = functools.partial(self.fn, **self.kwargs, **values)
        return Ran(await call() if self.is_async else await anyio.to_thread.run_sync(call))

    async def run_once(self, values: Mapping[str, Any], state: str, responses: Any) -> Ran:
        """The last round of a continued call: run, unless this round already ran."""
        return Ran(await once(self.completions, self.tool, self.arguments, state, responses,
                              lambda: self._result(values)))

    async def _result(self, values: Mapping[str, Any]) -> Any:
        return (await self.run(values)).result


@dataclass
class Handoff:
    """A call that becomes a task once its questions are answered (`reference.tasks`):
    the leg that completes them leaves here the answers the task's worker needs,
    instead of running the body in the foreground."""

    state: State | None = None


_HANDOFF: contextvars.ContextVar[Handoff | None] = contextvars.ContextVar("elicit_handoff", default=None)


@contextlib.contextmanager
def asking_before_a_task() -> Iterator[Handoff]:
    """Run a modern leg in the foreground whose body, once every value is known,
    belongs to a task: the `Handoff` holds the answers if the leg completed."""
    handoff = Handoff()
    token = _HANDOFF.set(handoff)
    try:
        yield handoff
    finally:
        _HANDOFF.reset(token)


async def _fill(
    questions: tuple[Question, ...], kwargs: Mapping[str, Any], ctx: Context, body: Body
) -> Ask | Ran:
    """This leg's questions on a modern connection or in a background task, or
    the body's result once every value is known.

    A task is answered the modern way (TASK-2): its worker has no open call to
    send `elicitation/create` on, and the tasks extension keeps each leg's
    state and answers in its store. A worker has no client to check
    capabilities against: the reference asks a tasked call's questions in the
    foreground before it makes the task (`reference.tasks`), where it does.
    """
    rc = ctx.request_context
    in_task = ctx.is_background_task
    if in_task or (rc is not None and rc.protocol_version in MODERN_PROTOCOL_VERSIONS):
        handoff = None if in_task else _HANDOFF.get()
        carried = State.decode(ctx.request_state)
        leg = Leg(questions, kwargs, carried, ctx.input_responses or {})
        # A foreground round carrying state may be the last, sent again: claimed first.
        continued = ctx.request_state if not in_task and handoff is None else None
        # A task's leg may be delivered again (its worker stopped before it was
        # acknowledged), and a call whose task-making round failed halfway may have
        # made two tasks: the body runs once per call (per task where nothing was asked).
        per_task = (f"call {carried.call}" if carried.call else f"task {ctx.task_id}") if in_task else None
        outcome = await _run_leg(leg, None if handoff is not None or continued or per_task else body)
        if isinstance(outcome, Ask) and not in_task:
            _require_form_elicitation(ctx, outcome, modern=True)
        if handoff is not None and isinstance(outcome, Complete):
            handoff.state = outcome.state
            return Ran(None)  # the body runs once, in the task the caller makes now
        if continued and isinstance(outcome, Complete):
            return await body.run_once(outcome.values, continued, ctx.input_responses)
        if per_task and isinstance(outcome, Complete):
            return await body.run_once(outcome.values, per_task, None)
    else:
        outcome = Complete(await _fill_in_process(questions, kwargs, ctx))
    return await body.run(outcome.values) if isinstance(outcome, Complete) else outcome


def _require_form_elicitation(ctx: Context, ask: Ask, *, modern: bool) -> None:
    """Ask only a client that declared form elicitation.

    Raises:
        MCPError: On 2026-07-28, -32021 (see `missing_form_elicitation`).
        ElicitationFailed: On the handshake era, a tool error saying the same.
    """
    if declares_form_elicitation(ctx):
        return
    if not modern:
        raise ElicitationFailed(_cannot_ask(list(ask.requests)))
    raise missing_form_elicitation(list(ask.requests))


def declares_form_elicitation(ctx: Context) -> bool:
    """Whether this request's client declared form elicitation (a bare
    `elicitation: {}`, from before modes existed, counts; URL mode alone does not)."""
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def missing_form_elicitation(names: list[str]) -> MCPError:
    """The protocol's missing-capability error (-32021) for a 2026-07-28 client that
    must be asked `names` and cannot be, naming the capability it lacks."""
    required = mcp_types.ClientCapabilities(
        elicitation=mcp_types.ElicitationCapability(form=mcp_types.FormElicitationCapability())
    )
    return missing_capability(required, _cannot_ask(names))


def missing_capability(required: mcp_types.ClientCapabilities, message: str) -> MCPError:
    """JSON-RPC -32021, its data naming the capabilities the client must declare."""
    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=message,
        data=MissingRequiredClientCapabilityErrorData(required_capabilities=required).model_dump(
            by_alias=True, mode="json", exclude_none=True
        ),
    )


def _cannot_ask(names: list[str]) -> str:
    listed = ", ".join(repr(name) for name in names)
    return (
        f"This tool must ask the user for {listed}, but the client did not declare the "
        "form elicitation capability. Connect with a client that handles form elicitation."
    )


async def _fill_in_process(
    questions: tuple[Question, ...], kwargs: Mapping[str, Any], ctx: Context
) -> dict[str, Any]:
    """Handshake era: each round's questions go out one by one while the call is open."""
    state, replies = State(), {}
    # Each round answers at least one question, so the depth of the graph bounds
    # the rounds; a resolver whose wording never settles cannot loop forever.
    for _ in range(len(questions) + 1):
        outcome = await _run_leg(Leg(questions, kwargs, state, replies))
        if isinstance(outcome, Complete):
            return outcome.values
        _require_form_elicitation(ctx, outcome, modern=False)
        replies = {}
        for name, request in outcome.requests.items():
            replies[name] = await ctx.session.elicit(
                message=request.params.message,
                requested_schema=request.params.requested_schema,
                related_request_id=ctx.request_id,
            )
        state = outcome.state
    raise ElicitationFailed(
        "The questions kept changing their wording between rounds, so no answer "
        "could be credited; make each resolver's text depend only on its inputs."
    )


async def _run_leg(leg: Leg, body: Body | None = None) -> Ask | Complete | Ran:
    """Run a leg's resolvers: on the event loop until the first plain sync one,
    then the rest of the leg, and `body` if the leg completes, in one worker thread."""
    while (question := leg.next_resolver()) is not None:
        if _plain_sync(question):
            return await anyio.to_thread.run_sync(_finish_in_thread, leg, question, body)
        leg.decide(question, await _run_resolver(question, leg.inputs_for(question)))
    return leg.outcome()


def _plain_sync(question: Question) -> bool:
    resolver = question.resolver
    return (
        resolver is not None
        and not inspect.iscoroutinefunction(resolver)
        and not get_dependency_parameters(resolver)
    )


def _finish_in_thread(leg: Leg, first: Question, body: Body | None) -> Ask | Complete | Ran:
    question: Question | None = first
    while question is not None:
        if _plain_sync(question):
            assert question.resolver is not None
            decision = question.resolver(**leg.inputs_for(question))
            if inspect.isawaitable(decision):
                decision = anyio.from_thread.run(_awaited, decision)
        else:
            decision = anyio.from_thread.run(_run_resolver, question, leg.inputs_for(question))
        leg.decide(question, decision)
        question = leg.next_resolver()
    outcome = leg.outcome()
    if isinstance(outcome, Complete) and body is not None and (ran := body.run_here(outcome.values)):
        return ran
    return outcome


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


async def _run_resolver(question: Question, inputs: dict[str, Any]) -> Any:
    """Run one resolver with its own `Depends(...)`; sync ones off the event loop (RES-6)."""
    resolver = question.resolver
    assert resolver is not None
    try:
        async with resolve_dependencies(resolver, inputs) as kwargs:
            if inspect.iscoroutinefunction(resolver):
                return await resolver(**kwargs)
            outcome = await anyio.to_thread.run_sync(functools.partial(resolver, **kwargs))
            return await outcome if inspect.isawaitable(outcome) else outcome
    except RuntimeError as error:
        # fastmcp reports a dependency it could not build this way, naming it.
        if str(error).startswith("Failed to resolve dependency"):
            raise ElicitationFailed(
                f"The resolver for {question.name!r} could not be run: {error} "
                f"({error.__cause__!r})."
            ) from error
        raise


class DeclarativeFastMCP(FastMCP):
    """FastMCP whose tools may declare `Elicit` parameters.

    Prompts and resources have no input-required channel on either era, so a
    marker on one is refused at registration rather than left to fail at run
    time (ERA-6).
    """

    def __init__(self, *args: Any, completions: Completions | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Where every tool's last rounds are recorded; several processes serving one
        #: deployment pass one store they share.
        self.completions: Completions = completions if completions is not None else InMemory()

    def tool(self, name_or_fn: Any = None, **kwargs: Any) -> Any:
        if callable(name_or_fn) and not isinstance(name_or_fn, str):
            return super().tool(declared(name_or_fn, self.completions), **kwargs)
        register = super().tool(name_or_fn, **kwargs)
        return lambda fn: register(declared(fn, self.completions))

    def add_tool(self, tool: Any) -> Any:
        if callable(tool) and not hasattr(tool, "run"):
            tool = declared(tool, self.completions)
        else:
            _refuse_undeclared(tool)
        return super().add_tool(tool)

    def prompt(self, name_or_fn: Any = None, **kwargs: Any) -> Any:
        if callable(name_or_fn) and not isinstance(name_or_fn, str):
            return super().prompt(_refuse_markers(name_or_fn, "prompt"), **kwargs)
        register = super().prompt(name_or_fn, **kwargs)
        return lambda fn: register(_refuse_markers(fn, "prompt"))

    def resource(self, uri: str, **kwargs: Any) -> Any:
        register = super().resource(uri, **kwargs)
        return lambda fn: register(_refuse_markers(fn, "resource"))


def _refuse_undeclared(tool: Any) -> None:
    """A tool object built from a function whose markers nobody read would list
    each question as an argument for the model: refused, never silently so (REG-10)."""
    # A declared function's own signature no longer holds its markers: it passes.
    fn = getattr(tool, "fn", None)
    if callable(fn) and (questions := read_questions(fn)):
        raise RegistrationError(
            f"Tool {tool.name!r} was built from {name_of(fn)!r} without reading its Elicit(...) "
            f"parameters, so {questions[0].name!r} would become an argument the model fills. "
            "Build it from declared(fn), or register the function itself."
        )


def _refuse_markers(fn: Callable[..., Any], kind: str) -> Callable[..., Any]:
    questions = read_questions(fn)
    if questions:
        raise RegistrationError(
            f"The {kind} {name_of(fn)!r} declares Elicit(...) on {questions[0].name!r}, "
            f"but a {kind} has no channel to ask the user; only tools can elicit. "
            "Take the value as an ordinary argument."
        )
    return fn



__all__ = ["DeclarativeFastMCP", "Elicit", "RegistrationError", "declared"]
