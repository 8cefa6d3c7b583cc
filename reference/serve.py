"""Glue between the resolution engine and fastmcp: tools, resolvers, both eras.

`declared(fn)` turns a function with `Annotated[T, Elicit(...)]` parameters
into an ordinary fastmcp tool function: the elicited parameters leave its
signature (so they leave the input schema), and before the body runs they are
filled over whichever channel the connection's era has. `DeclarativeFastMCP`
applies it to every `@mcp.tool` and refuses markers where no channel exists.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio.from_thread
import anyio.to_thread
import mcp_types
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.context import Context
from fastmcp.server.dependencies import get_context, resolve_dependencies
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from uncalled_for import get_dependency_parameters

from elicit_conformance.reference.markers import Elicit
from elicit_conformance.reference.questions import (
    Question,
    RegistrationError,
    annotations_of,
    name_of,
    read_questions,
    unpartial,
)
from elicit_conformance.reference.rounds import Ask, Complete, ElicitationFailed, Leg, State


def declared(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A tool function whose `Elicit` parameters are asked of the user.

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

    async def tool(**kwargs: Any) -> Any:
        ctx = get_context()
        # A sync body can share the worker thread of the leg's last sync resolver.
        body = None if is_async else functools.partial(fn, **kwargs)
        try:
            filled = await _fill(questions, kwargs, ctx, body)
        except ElicitationFailed as failure:
            raise ToolError(str(failure)) from failure
        if isinstance(filled, mcp_types.InputRequiredResult):
            return filled  # the body does not run this leg (BAT-2)
        if isinstance(filled, Ran):
            result = filled.result
        else:
            call = functools.partial(fn, **kwargs, **filled)
            result = await call() if is_async else await anyio.to_thread.run_sync(call)
        if isinstance(result, mcp_types.InputRequiredResult):
            raise ToolError(
                "This tool declares Elicit(...) parameters and its body also "
                "returned an InputRequiredResult; a call has one channel for input."
            )
        return result

    tool.__signature__ = signature.replace(parameters=model_facing)  # type: ignore[attr-defined]
    tool.__annotations__ = {
        name: hint
        for name, hint in annotations_of(fn).items()
        if name not in elicited
    }
    tool.__name__ = name_of(fn)
    tool.__qualname__ = getattr(fn, "__qualname__", tool.__name__)
    tool.__doc__ = inspect.getdoc(unpartial(fn))
    tool.__module__ = getattr(unpartial(fn), "__module__", __name__)
    tool.__elicit_questions__ = questions  # type: ignore[attr-defined]
    return tool


@dataclass(frozen=True)
class Ran:
    """The leg completed and the sync body already ran, in the same worker thread."""

    result: Any


async def _fill(
    questions: tuple[Question, ...],
    kwargs: Mapping[str, Any],
    ctx: Context,
    body: Callable[..., Any] | None = None,
) -> dict[str, Any] | Ran | mcp_types.InputRequiredResult:
    """Values for every question, or this leg's ask on a modern connection.

    `body` (a sync tool's body, arguments bound) may be run here, as `Ran`,
    when the leg completes inside a worker thread anyway.
    """
    rc = ctx.request_context
    if rc is not None and rc.protocol_version in MODERN_PROTOCOL_VERSIONS:
        leg = Leg(
            questions, kwargs, State.decode(ctx.request_state), ctx.input_responses or {}
        )
        outcome = await _run_leg(leg, body)
        if isinstance(outcome, Ran):
            return outcome
        if isinstance(outcome, Complete):
            return outcome.values
        return mcp_types.InputRequiredResult(
            input_requests=dict(outcome.requests), request_state=outcome.state.encode()
        )
    return await _fill_in_process(questions, kwargs, ctx)


async def _fill_in_process(
    questions: tuple[Question, ...], kwargs: Mapping[str, Any], ctx: Context
) -> dict[str, Any]:
    """Handshake era: each round's questions go out one by one while the call is open."""
    capability = mcp_types.ClientCapabilities(elicitation=mcp_types.ElicitationCapability())
    if not ctx.session.check_client_capability(capability):
        raise ElicitationFailed(
            f"This tool must ask the user for {questions[0].name!r}, but the client "
            "did not declare the elicitation capability. Connect with a client that "
            "handles elicitation/create."
        )
    state, replies = State(), {}
    # Each round answers at least one question, so the depth of the graph bounds
    # the rounds; a resolver whose wording never settles cannot loop forever.
    for _ in range(len(questions) + 1):
        outcome = await _run_leg(Leg(questions, kwargs, state, replies))
        if isinstance(outcome, Complete):
            return outcome.values
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


async def _run_leg(leg: Leg, body: Callable[..., Any] | None = None) -> Ask | Complete | Ran:
    while (question := leg.next_resolver()) is not None:
        if _plain_sync(question):
            # From the first plain sync resolver on, the leg (and a sync body, if
            # it completes) runs in one worker thread: one hop per leg, as for a
            # sync tool, instead of one per resolver plus one for the body.
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


def _finish_in_thread(leg: Leg, first: Question, body: Callable[..., Any] | None) -> Ask | Complete | Ran:
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
    if isinstance(outcome, Complete) and body is not None:
        return Ran(body(**outcome.values))
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

    def tool(self, name_or_fn: Any = None, **kwargs: Any) -> Any:
        if callable(name_or_fn) and not isinstance(name_or_fn, str):
            return super().tool(declared(name_or_fn), **kwargs)
        register = super().tool(name_or_fn, **kwargs)
        return lambda fn: register(declared(fn))

    def add_tool(self, tool: Any) -> Any:
        if callable(tool) and not hasattr(tool, "run"):
            tool = declared(tool)
        return super().add_tool(tool)

    def prompt(self, name_or_fn: Any = None, **kwargs: Any) -> Any:
        if callable(name_or_fn) and not isinstance(name_or_fn, str):
            return super().prompt(_refuse_markers(name_or_fn, "prompt"), **kwargs)
        register = super().prompt(name_or_fn, **kwargs)
        return lambda fn: register(_refuse_markers(fn, "prompt"))

    def resource(self, uri: str, **kwargs: Any) -> Any:
        register = super().resource(uri, **kwargs)
        return lambda fn: register(_refuse_markers(fn, "resource"))


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
