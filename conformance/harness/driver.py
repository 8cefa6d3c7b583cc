"""Driving one tool call round by round, answering from a scenario's script.

The driver never trusts keys: a request is matched to the catalog's question by
its message, rendered from the tool's arguments and the answers given so far.
That keeps key naming implementation-defined, as it is (the MCP SDK keys by
resolver name, the reference by parameter name).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import mcp_types

from elicit_conformance import verdict
from elicit_conformance.catalog import Reply, load
from elicit_conformance.connection.wire import Answerer, Peer
from elicit_conformance.exceptions import RpcError
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import MODERN

#: A modern call that has not finished after this many rounds never will.
MAX_ROUNDS = 8
CANCEL = Reply("cancel")


@dataclass(frozen=True)
class Asked:
    """One request as the client saw it."""

    key: str
    #: The catalog parameter whose message this is; None if no question matches.
    param: str | None
    message: str
    schema: dict[str, Any]
    #: A form-mode `elicitation/create` (what a client without form mode cannot answer).
    form: bool = True


@dataclass
class Run:
    """What happened over one driven call."""

    rounds: list[list[Asked]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    #: Each 2026-07-28 round's `InputRequiredResult`, as the server sent it.
    asks: list[dict[str, Any]] = field(default_factory=list)
    #: Where the suite stopped answering a server still asking after `MAX_ROUNDS`
    #: rounds: what it says of that, in its own words ("" while it did not).
    gave_up: str = ""

    @property
    def states(self) -> list[str]:
        """Each 2026-07-28 round's `requestState` ("" where it carried none)."""
        return [str(state_of(ask).get("requestState", "")) for ask in self.asks]

    @property
    def asked_params(self) -> list[list[str | None]]:
        return [[a.param for a in r] for r in self.rounds]

    @property
    def text(self) -> str:
        """The text content of a result, or the message of an error of either kind."""
        if self.error is not None:
            data = self.error.get("data")  # absent: nothing more to say (not a trailing "null")
            message = str(self.error.get("message", ""))
            return message if data is None else f"{message} {json.dumps(data, default=repr)}"
        return result_text(self.result)

    @property
    def failed(self) -> bool:
        """A JSON-RPC error or a tool error result, or no end at all: none is a result."""
        return self.error is not None or bool(as_object(self.result).get("isError")) or bool(self.gave_up)

    @property
    def ended(self) -> str:
        """How the call ended, as a sentence quotes it: the server's words are quoted,
        the suite's giving up is said as the suite's, never as the server's result."""
        if self.gave_up:
            return self.gave_up
        if self.failed:
            return f"the call failed: {brief(self.text)}"
        return f"the call completed with {brief(self.text)}"


def result_text(result: Any) -> str:
    """The text blocks of a tool result, of a prompt's messages, or of a resource's
    contents, a line each."""
    result = as_object(result)
    content, messages, contents = result.get("content"), result.get("messages"), result.get("contents")
    blocks = [*(content if isinstance(content, list) else []),
              *(m.get("content") for m in (messages if isinstance(messages, list) else []) if isinstance(m, dict)),
              *(contents if isinstance(contents, list) else [])]
    texts = [b.get("text") for b in blocks if isinstance(b, dict)]
    return "\n".join(t for t in texts if isinstance(t, str))


class Script:
    """The user's side of one call: a reply per catalog question of `tool` (or prompt)."""

    def __init__(
        self, tool: str, arguments: Mapping[str, Any], answers: Mapping[str, Reply | Mapping[str, Any]]
    ) -> None:
        self.tool = tool
        self.questions = load().questions(tool)
        #: What a message may quote: the arguments, then each accepted answer.
        self.known: dict[str, Any] = dict(arguments)
        self.answers = {p: r if isinstance(r, Reply) else Reply.parse(r) for p, r in answers.items()}

    def identify(self, message: str) -> str | None:
        """The catalog question whose rendered message this is. A message no catalog
        question reads is cancelled; the case's verdict notes it, with the nearest."""
        for param, question in self.questions.items():
            if question.render(self.known) == message:
                return param
        quoted = brief(message, 120)
        verdict.current().note(f"the server asked {quoted}, which the suite cancelled: "
                               + unknown_message(message, self.tool), about=quoted)
        return None

    def reply(self, asked: Asked) -> dict[str, Any]:
        """The raw ElicitResult for one request; unknown questions are cancelled."""
        reply = self.answers.get(asked.param or "", CANCEL)
        if reply.action == "accept" and asked.param and isinstance(reply.content, Mapping):
            self.known[asked.param] = reply.value
        return reply.wire()


def unknown_message(message: str, tool: str) -> str:
    """Why a message matched no question: the nearest catalog message of `tool`."""
    questions = load().questions(tool)
    templates = {q.message: p for p, q in questions.items()}
    nearest = difflib.get_close_matches(message, list(templates), n=1, cutoff=0)
    if not nearest:
        return f"{tool} asks no question in the catalog"
    return (f"no catalog question of {tool} reads so; the nearest is {templates[nearest[0]]!r}: "
            f"{nearest[0]!r}")


# What a server sends is read leniently here: a field absent or of the wrong shape
# reads as empty, so a check can say what the server did instead of the suite crashing.


def as_object(value: Any) -> dict[str, Any]:
    """`value` if it is a JSON object, else {}."""
    return value if isinstance(value, dict) else {}


def input_requests(result: Any) -> dict[str, dict[str, Any]]:
    """A result's `inputRequests`; {} when absent or not an object."""
    return {str(k): as_object(v) for k, v in as_object(as_object(result).get("inputRequests")).items()}


def request_message(request: Any) -> str:
    """The message of one input request; "" when it has none."""
    message = as_object(as_object(request).get("params")).get("message", "")
    return message if isinstance(message, str) else json.dumps(message)


def state_of(result: Any) -> dict[str, Any]:
    """What a retry sends back of a result's `requestState`: exactly what came, or
    nothing (the field is optional)."""
    state = as_object(result).get("requestState")
    return {} if state is None else {"requestState": state}


def tool_entries(listed: Any) -> list[dict[str, Any]]:
    """The tools of a `tools/list` result that have a name."""
    tools = as_object(listed).get("tools")
    return [t for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)] if isinstance(tools, list) else []


def read_requests(result: Mapping[str, Any], script: Script) -> list[Asked]:
    asked = []
    for key, request in input_requests(result).items():
        message = request_message(request)
        params = as_object(request.get("params"))
        schema = as_object(params.get("requestedSchema"))
        form = request.get("method") == "elicitation/create" and params.get("mode", "form") == "form"
        asked.append(Asked(key, script.identify(message), message, schema, form))
    return asked


#: Runs after each 2026-07-28 ask is answered, before the retry, and returns the
#: retry's params: the place to change the server's world (RES-3, DIG-1) or to
#: tamper with what the client sends (SEC cases).
OnRound = Callable[[int, Run, dict[str, Any]], Awaitable[dict[str, Any]]]


async def drive(
    peer: Peer,
    tool: str,
    arguments: Mapping[str, Any],
    script: Script,
    *,
    on_round: OnRound | None = None,
    method: str = "tools/call",
    run: Run | None = None,
) -> Run:
    """Call `tool` until it completes, answering every question from `script`.

    On 2026-07-28 each round is a call of its own; on the handshake era the
    questions arrive as `elicitation/create` during the one call, each a round.
    `method="prompts/get"` renders the prompt `tool` the same way: the request
    has the same `name` and `arguments`, and may ask the same way;
    `method="resources/read"` reads the URI `tool` (no arguments). `run` is the
    record to fill, when the caller goes on from where the call ends (`drive_task`).
    """
    run = run if run is not None else Run()
    arguments = dict(arguments)

    async def send(**extra: Any) -> dict[str, Any]:
        if method == "tools/call":
            return await peer.call_tool(tool, arguments, **extra)
        if method == "resources/read":
            return await peer.request(method, {"uri": tool, **extra})
        return await peer.request(method, {"name": tool, "arguments": arguments, **extra})

    if peer.era != MODERN:
        with peer.answering(in_process_answerer(script, run)):
            try:
                run.result = await send()
            except RpcError as error:
                run.error = error.error
        return run
    params: dict[str, Any] = {}
    for number in range(MAX_ROUNDS + 1):
        try:
            result = await send(**params)
        except RpcError as error:
            run.error = error.error
            return run
        if not isinstance(result, dict) or result.get("resultType") != "input_required":
            run.result = result
            return run
        asked = read_requests(result, script)
        run.rounds.append(asked)
        run.asks.append(result)
        params = {"inputResponses": {a.key: script.reply(a) for a in asked}, **state_of(result)}
        if on_round is not None:
            params = await on_round(number, run, params)
    run.gave_up = f"the server still asked after {MAX_ROUNDS} rounds (the suite stopped answering there)"
    return run


def in_process_answerer(script: Script, run: Run) -> Answerer:
    """The handshake-era answerer: each `elicitation/create` is a round of one."""

    async def answer(params: mcp_types.ElicitRequestParams) -> mcp_types.ElicitResult:
        schema = getattr(params, "requested_schema", None) or {}
        asked = Asked("", script.identify(params.message), params.message, dict(schema))
        run.rounds.append([asked])
        return mcp_types.ElicitResult.model_validate(script.reply(asked))

    return answer
