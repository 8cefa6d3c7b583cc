"""The resolution engine: which questions go out this round, and what answers count.

No I/O happens here (the h11 idea). A `Leg` is one pass over a tool's questions
with what the client has said so far; the caller runs the resolvers it hands
out, because resolvers are user code that may block, await, or need
dependency injection, and then reads the `Ask` or `Complete` outcome. Both
protocol eras drive the same `Leg`:

- modern (2026-07-28): one leg per `tools/call`; an `Ask` becomes the
  `InputRequiredResult`, its `State` the `request_state`;
- handshake era: legs run in a loop inside one call, the `Ask`'s requests
  going out one by one as `elicitation/create`.

Answers are pinned to a digest of exactly what was shown (message and schema),
so an answer can only ever satisfy the question it answered (DIG-1, DIG-5).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import mcp_types

from elicit_conformance.reference.answers import AnswerRejected, AnswerShape, fits, offering_default, shape_for
from elicit_conformance.reference.markers import Elicit
from elicit_conformance.reference.questions import Question

#: Bumped whenever the `State` layout changes. State of another version is
#: "no progress" (DIG-3): mid-rollout calls re-ask instead of misreading it.
STATE_VERSION = 1


_PAST = {"decline": "declined", "cancel": "cancelled"}


class ElicitationFailed(Exception):
    """The call cannot go on; the message says why and names the parameter."""


@dataclass(frozen=True)
class Answer:
    """One reply, kept exactly as the client sent it, with the question it answered."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None
    digest: str


@dataclass(frozen=True)
class State:
    """What one round carries to the next, inside `request_state`."""

    answers: Mapping[str, Answer] = field(default_factory=dict)
    #: The digest of each question asked last round: a reply is credited only
    #: under a key asked last round, for that exact wording (DIG-4).
    asked: Mapping[str, str] = field(default_factory=dict)
    #: Which call this is, minted on its first round: two calls that ask and are
    #: answered alike carry different state, so a replayed last round is told from
    #: a second call (`reference.once`).
    call: str = ""

    def encode(self) -> str:
        return json.dumps(
            {
                "v": STATE_VERSION,
                "call": self.call,
                "answers": {
                    name: [a.action, a.content, a.digest] for name, a in self.answers.items()
                },
                "asked": dict(self.asked),
            },
            separators=(",", ":"),
        )

    @classmethod
    def decode(cls, text: str | None) -> State:
        """Read carried state; anything unreadable is no progress, not an error.

        The framework has already verified the seal, so what arrives here was
        minted by this fleet; a layout it cannot read is version drift.
        """
        try:
            raw = json.loads(text) if text else None
            if not isinstance(raw, dict) or raw.get("v") != STATE_VERSION:
                return cls()
            answers = {
                str(name): Answer(action, content, str(digest))
                for name, (action, content, digest) in raw["answers"].items()
                if action in ("accept", "decline", "cancel")
                and (content is None or isinstance(content, dict))
            }
            asked = {str(name): str(digest) for name, digest in raw["asked"].items()}
            call = str(raw.get("call", ""))
        except (ValueError, TypeError, KeyError, AttributeError):
            return cls()
        return cls(answers, asked, call)


@dataclass(frozen=True)
class Ask:
    """This round's questions, in signature order, and the state to carry."""

    requests: dict[str, mcp_types.ElicitRequest]
    state: State


@dataclass(frozen=True)
class Complete:
    """Every parameter has its value: the body may run."""

    values: dict[str, Any]
    #: The answers those values came from: what a later leg needs to complete
    #: again without asking (a task made once a call's questions were answered).
    state: State = field(default_factory=State, compare=False)


def digest(request: mcp_types.ElicitRequest) -> str:
    """A short, stable fingerprint of exactly what the client was shown."""
    params = request.params
    # The fields a client shows, read directly: a pydantic dump of the whole
    # request was a tenth of a leg (docs/benchmarks.md).
    shown = {"message": params.message, "mode": params.mode, "requestedSchema": params.requested_schema}
    canonical = json.dumps(shown, sort_keys=True, separators=(",", ":"))
    packed = hashlib.sha256(canonical.encode()).digest()[:16]
    return base64.urlsafe_b64encode(packed).decode().rstrip("=")


class LegProtocolError(Exception):
    """A `Leg` was driven out of order: a bug in the caller, never the client's fault."""


class Leg:
    """One pass over a tool's questions, driven by its caller in three steps.

    Usage::

        leg = Leg(questions, arguments, state, replies)
        while (question := leg.next_resolver()) is not None:
            leg.decide(question, run(question.resolver, leg.inputs_for(question)))
        outcome = leg.outcome()

    The order is enforced: a question's resolver sees the values decided before
    it, so `next_resolver()` hands out one question at a time and waits for its
    `decide()`, and `outcome()` refuses until every question has been visited.
    """

    def __init__(
        self,
        questions: tuple[Question, ...],
        arguments: Mapping[str, Any],
        state: State,
        replies: Mapping[str, Any],
    ) -> None:
        self._questions = questions
        self._arguments = dict(arguments)
        self._state = state
        self._replies = replies
        self._values: dict[str, Any] = {}
        self._carry: dict[str, Answer] = {}
        self._asking: dict[str, tuple[Question, mcp_types.ElicitRequest, str]] = {}
        #: Questions that need an answer still outstanding: next round.
        self._waiting: set[str] = set()
        #: Index of the next question to visit, and the one handed out undecided.
        self._next = 0
        self._pending: Question | None = None

    def next_resolver(self) -> Question | None:
        """The next question, in dependency order, whose resolver the caller must
        run and `decide()`; None when every question has been visited.

        Fixed-text questions are decided here. A question that needs an answer
        still outstanding waits for a later round and is not handed out.
        """
        if self._pending is not None:
            raise LegProtocolError(
                f"decide({self._pending.name!r}, ...) before asking for the next resolver"
            )
        while self._next < len(self._questions):
            question = self._questions[self._next]
            self._next += 1
            if any(need in self._asking or need in self._waiting for need in question.needs):
                self._waiting.add(question.name)
            elif question.resolver is None:
                self._record(question, question.marker)
            else:
                self._pending = question
                return question
        return None

    def inputs_for(self, question: Question) -> dict[str, Any]:
        """The named values `question`'s resolver takes."""
        known = {**self._arguments, **self._values}
        return {need: known[need] for need in question.needs}

    def decide(self, question: Question, decision: Any) -> None:
        """Record what `question`'s resolver returned: a value, or an `Elicit`."""
        if question is not self._pending:
            expected = "nothing is pending" if self._pending is None else f"{self._pending.name!r} is pending"
            raise LegProtocolError(f"decide({question.name!r}, ...) out of turn: {expected}")
        self._pending = None
        self._record(question, decision)

    def _record(self, question: Question, decision: Any) -> None:
        if not isinstance(decision, Elicit):
            # Known without asking: nothing is carried, it is decided afresh
            # every round (RES-1, RES-3).
            self._values[question.name] = decision
            return
        if not isinstance(decision.message, str):
            raise ElicitationFailed(
                f"The resolver for {question.name!r} returned an Elicit wrapping a "
                "callable; a resolver returns the question itself: "
                "Elicit('text', response_type=...)."
            )
        try:
            shape = shape_for(
                decision.response_type or question.answer_type,
                title=decision.title,
                description=decision.description,
            )
        except TypeError as error:  # a resolver's choice of type, seen only now
            raise ElicitationFailed(f"{question.name!r} cannot be asked this way: {error}") from error
        schema = offering_default(shape.schema, question.default) if question.has_default else shape.schema
        request = mcp_types.ElicitRequest(
            params=mcp_types.ElicitRequestFormParams(message=decision.message, requested_schema=schema)
        )
        fingerprint = digest(request)
        answer = self._recalled(question.name, fingerprint) or self._replied(
            question.name, fingerprint
        )
        if answer is None:
            self._asking[question.name] = (question, request, fingerprint)
            return
        self._carry[question.name] = answer
        self._values[question.name] = self._settle(question, decision, shape, answer)

    def outcome(self) -> Ask | Complete:
        """This round's questions, or every value: only once every question was visited."""
        if self._pending is not None or self._next < len(self._questions):
            raise LegProtocolError(
                "outcome() before every resolver ran: call next_resolver() until it returns None"
            )
        if not self._asking:
            return Complete(dict(self._values), State(answers=dict(self._carry), call=self._state.call))
        asking = sorted(self._asking.values(), key=lambda item: item[0].position)
        return Ask(
            requests={question.name: request for question, request, _ in asking},
            state=State(
                answers=dict(self._carry),
                asked={question.name: fingerprint for question, _, fingerprint in asking},
                call=self._state.call or secrets.token_hex(8),
            ),
        )

    def _recalled(self, name: str, fingerprint: str) -> Answer | None:
        """An answer from an earlier round, if it answered this same wording."""
        answer = self._state.answers.get(name)
        return answer if answer is not None and answer.digest == fingerprint else None

    def _replied(self, name: str, fingerprint: str) -> Answer | None:
        """This round's reply, if `name` was asked last round in this wording."""
        if self._state.asked.get(name) != fingerprint or name not in self._replies:
            return None
        reply = self._replies[name]
        if not isinstance(reply, mcp_types.ElicitResult):
            raise ElicitationFailed(
                f"The response for {name!r} is a {type(reply).__name__}, not an "
                "elicitation result; answer it with an ElicitResult."
            )
        if reply.action == "accept" and reply.content is None:
            raise ElicitationFailed(
                f"The answer for {name!r} was accepted but carries no content."
            )
        content = dict(reply.content) if reply.content is not None else None
        return Answer(reply.action, content, fingerprint)

    @staticmethod
    def _settle(
        question: Question, decision: Elicit[Any], shape: AnswerShape, answer: Answer
    ) -> Any:
        if answer.action != "accept":
            if question.has_default:
                return question.default
            raise ElicitationFailed(
                f"Cannot continue without {question.name!r}: the user "
                f"{_PAST[answer.action]} the question. Give the parameter a default to "
                "make it optional."
            )
        try:
            value = shape.read(answer.content)
        except AnswerRejected as error:
            raise ElicitationFailed(
                f"The answer for {question.name!r} does not match the requested "
                f"schema: {error}"
            ) from error
        if decision.response_type is not None and not fits(value, question.answer_type):
            raise ElicitationFailed(
                f"The resolver for {question.name!r} asked for "
                f"{decision.response_type!r}, which the parameter's type "
                f"{question.answer_type!r} cannot hold."
            )
        return value
