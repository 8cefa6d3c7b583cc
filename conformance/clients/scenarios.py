"""The client scenarios: what the scenario server asks, what the client is to call, and
what its handler answers, as data. A client adapter reads the same data from
`MCP_CONFORMANCE_CONTEXT`: `calls` (each `{"tool", "arguments"}`, made concurrently),
`answers` (by question message: the `ElicitResult` to answer with), a key for each
other ability the client has (`sampling`, `roots`, `tasks`), `then` (calls made once those
have ended) and `cancel` (the user cancels each call once it has become a task)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from elicit_conformance.revisions import HANDSHAKE, MODERN

from .scenario_server import Round, Script, Task

#: A requestState no client could mistake for its own: JSON-looking, with spaces,
#: quotes, a backslash and characters outside ASCII. It must come back as it went.
AWKWARD_STATE = '{"v": 1, "note": "caf\u00e9 \u2708 \\"quoted\\"  two  spaces\\\\"}'


def _text(message: str, mode: str | None = "form", default: str | None = None) -> dict[str, Any]:
    """A form question for a string; with `mode=None` the request names no mode, as a server
    may for a form ("servers MAY omit the mode field for form mode elicitation requests");
    with a `default`, the field offers it (and is optional)."""
    field = {"type": "string", **({"default": default} if default is not None else {})}
    return {"method": "elicitation/create", "params": {
        "message": message, **({"mode": mode} if mode else {}),
        "requestedSchema": {"type": "object", "properties": {"value": field},
                            "required": [] if default is not None else ["value"]}}}


def _flag(message: str) -> dict[str, Any]:
    return {"method": "elicitation/create", "params": {
        "message": message, "mode": "form",
        "requestedSchema": {"type": "object", "properties": {"value": {"type": "boolean"}}, "required": ["value"]}}}


def _sample(prompt: str) -> dict[str, Any]:
    return {"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}], "maxTokens": 50}}


ROOTS_REQUEST = {"method": "roots/list", "params": {}}


def accept(value: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"value": value}}


@dataclass(frozen=True)
class ClientScenario:
    """One client case's world: the server's tools, the calls the client makes, and the
    user's answers by question message."""

    name: str
    about: str
    scripts: tuple[Script, ...]
    calls: tuple[tuple[str, Mapping[str, Any]], ...]
    #: What each handler of the client returns; None (or, for sampling, empty): the client
    #: has no such handler.
    answers: Mapping[str, Mapping[str, Any]] | None = field(default_factory=dict)
    #: By the text of a sampling request's last message: the `CreateMessageResult`.
    sampling: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    roots: tuple[Mapping[str, Any], ...] | None = None
    #: Tools whose first calls the server answers together (the client makes them at once).
    together: frozenset[str] = frozenset()
    #: The revision it is played on.
    revision: str = MODERN
    #: Whether the client takes tasks: it declares the tasks extension and drives a
    #: `CreateTaskResult` to the call's result.
    tasks: bool = False
    #: Calls made once every call of `calls` has ended (at once, as those are).
    then: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    #: The user cancels each call once the server has made it a task: the client cancels the task.
    cancel: bool = False

    def context(self) -> dict[str, Any]:
        """What the client reads from `MCP_CONFORMANCE_CONTEXT` (beside `name`): the calls, and
        a key for each handler it has."""
        context: dict[str, Any] = {"calls": [{"tool": tool, "arguments": dict(arguments)} for tool, arguments in self.calls]}
        if self.answers is not None:
            context["answers"] = {message: dict(answer) for message, answer in self.answers.items()}
        if self.sampling:
            context["sampling"] = {prompt: dict(result) for prompt, result in self.sampling.items()}
        if self.roots is not None:
            context["roots"] = [dict(root) for root in self.roots]
        if self.tasks:
            context["tasks"] = True
        if self.then:
            context["then"] = [{"tool": tool, "arguments": dict(arguments)} for tool, arguments in self.then]
        if self.cancel:
            context["cancel"] = True
        return context


WHERE, WHEN, CABIN = "Where would you like to fly?", "When would you like to fly?", "Which cabin class?"
SEAT = "Window or aisle on the way to Paris?"
PROMPT = "Suggest a neighbourhood in Paris for a first visit, in five words."
SUGGESTION = {"role": "assistant", "content": {"type": "text", "text": "Le Marais, walkable and central."},
              "model": "scripted-model", "stopReason": "endTurn"}
TRIP_ROOTS = ({"uri": "file:///home/traveller/trips", "name": "Trips"},)
HOTEL = "Which hotel in Paris?"
CONFIRM = "Shall we book it?"

SCENARIOS = {s.name: s for s in (
    ClientScenario(
        "one-question", "One question, with a requestState of awkward bytes; answering it completes the call.",
        (Script("book_destination", (Round({"destination": _text(WHERE)}, AWKWARD_STATE),), "Booked"),),
        (("book_destination", {"ref": "one"}),), {WHERE: accept("Paris")}),
    ClientScenario(
        "batch", "Three questions in one round: one accepted, one declined, one cancelled.",
        (Script("book_trip", (Round({"destination": _text(WHERE), "date": _text(WHEN), "cabin": _text(CABIN)},
                                    "trip-1"),), "Booked"),),
        (("book_trip", {}),),
        {WHERE: accept("Paris"), WHEN: {"action": "decline"}, CABIN: {"action": "cancel"}}),
    ClientScenario(
        "no-state", "One question and no requestState: the retry carries none.",
        (Script("confirm_booking", (Round({"confirm": _flag(CONFIRM)}),), "Confirmed"),),
        (("confirm_booking", {}),), {CONFIRM: accept(True)}),
    ClientScenario(
        "dependent-rounds", "A question, then one built from its answer, then a round that carries only "
        "requestState (the server asks nothing more): three retries, each with the latest state.",
        (Script("book_seat", (Round({"destination": _text(WHERE)}, "seat-1"), Round({"seat": _text(SEAT)}, "seat-2"),
                              Round({}, "seat-3")), "Booked"),),
        (("book_seat", {}),), {WHERE: accept("Paris"), SEAT: accept("window")}),
    ClientScenario(
        "parallel", "Two calls at once, each asked its own question with its own state, both asks held by "
        "the client together: each retry carries its own call's answer and state, nothing of the other's.",
        (Script("book_destination", (Round({"destination": _text(WHERE)}, "flight-1"),), "Booked"),
         Script("book_hotel", (Round({"hotel": _text(HOTEL)}, "hotel-1"),), "Reserved")),
        (("book_destination", {"ref": "parallel"}), ("book_hotel", {})), {WHERE: accept("Paris"), HOTEL: accept("Ritz")},
        together=frozenset({"book_destination", "book_hotel"})),
    ClientScenario(
        "no-mode", "One question whose elicitation/create params name no mode: a form all the same.",
        (Script("book_destination", (Round({"destination": _text(WHERE, mode=None)}, "no-mode-1"),), "Booked"),),
        (("book_destination", {"ref": "no-mode"}),), {WHERE: accept("Lisbon")}),
    ClientScenario(
        "endless", "A server that never stops asking: each answer of the question is met by the same "
        "question under a new requestState.",
        (Script("book_destination", (Round({"destination": _text(WHERE)}, "endless-1"),), "Never", endless=True),),
        (("book_destination", {"ref": "endless"}),), {WHERE: accept("Paris")}),
    ClientScenario(
        "handshake", "On 2025-11-25: a call that asks three questions by elicitation/create while it is open "
        "(a real fastmcp server, with a session); the client answers each, accepting one, declining one, and "
        "accepting one whose field offers a default ('economy') with the user's own value ('business').",
        (Script("book_trip", (Round({"destination": _text(WHERE), "date": _text(WHEN),
                                     "cabin": _text(CABIN, default="economy")}),), "Booked"),),
        (("book_trip", {}),), {WHERE: accept("Paris"), WHEN: {"action": "decline"}, CABIN: accept("business")},
        revision=HANDSHAKE),
    ClientScenario(
        "sampling-roots", "A round of a sampling/createMessage and a roots/list request, no question: a client "
        "with a sampling and a roots handler, and no elicitation handler, answers both through them.",
        (Script("plan_trip", (Round({"suggestion": _sample(PROMPT), "folders": ROOTS_REQUEST}, "plan-1"),), "Planned"),),
        (("plan_trip", {}),), None, {PROMPT: SUGGESTION}, TRIP_ROOTS),
    ClientScenario(
        "no-handler", "One question asked of a client with no elicitation handler (which declared none): it "
        "has no answer to give, so it gives none: it ends the call, hands the round to its caller, or declines "
        "or cancels it, and accepts nothing.",
        (Script("book_destination", (Round({"destination": _text(WHERE)}, "nh-1"),), "Booked"),),
        (("book_destination", {"ref": "no-handler"}),), None),
    ClientScenario(
        "no-handler-handshake", "On 2025-11-25: a call that asks one question by elicitation/create of a client "
        "with no elicitation handler: its reply accepts nothing (an error, or a decline or cancel).",
        (Script("book_destination", (Round({"destination": _text(WHERE)}),), "Booked"),),
        (("book_destination", {}),), None, revision=HANDSHAKE),
    ClientScenario(
        "cacheable", "One question, and a result with caching hints (ttlMs 60000, cacheScope public) that "
        "answers the retry; then the same call again: it goes to the server, since a retry's result is never "
        "cached.",
        (Script("fare_quote", (Round({"cabin": _text(CABIN)}, "fare-1"),), "Fare: 420 EUR", ttl_ms=60000),),
        (("fare_quote", {"route": "CDG-JFK"}),), {CABIN: accept("business")},
        then=(("fare_quote", {"route": "CDG-JFK"}),)),
    ClientScenario(
        "absent-result-type", "A result without resultType, as a server of an earlier revision sends it (from "
        "this 2026-07-28 server: the client need not complete the call with it, only not take it as asking).",
        (Script("flight_status", (), "On time", result_type=None),),
        (("flight_status", {}),)),
    ClientScenario(
        "unknown-result-type", "A result whose resultType is a kind no client knows ('itinerary'): it is invalid, "
        "so the client neither retries the call nor completes it with that result.",
        (Script("trip_summary", (), "Three nights in Paris", result_type="itinerary"),),
        (("trip_summary", {}),)),
    ClientScenario(
        "task-after-rounds", "The flow the tasks extension recommends: one question in a round first, and the "
        "retry that answers it is answered with a CreateTaskResult; the client, which declares the extension, "
        "polls tasks/get until the task is completed, and the call completes with the task's result.",
        (Script("book_flight", (Round({"destination": _text(WHERE)}, "flight-task-1"),), "Booked", task=Task()),),
        (("book_flight", {}),), {WHERE: accept("Paris")}, tasks=True),
    ClientScenario(
        "task-first", "A call answered with a CreateTaskResult at once: polled, the task is input_required "
        "with two questions, which the client answers through tasks/update (in one or several), then working, "
        "then completed with the call's result.",
        (Script("book_trip", (), "Booked", task=Task({"destination": _text(WHERE), "date": _text(WHEN)})),),
        (("book_trip", {}),), {WHERE: accept("Paris"), WHEN: {"action": "decline"}}, tasks=True),
    ClientScenario(
        "task-cancel", "A call answered with a CreateTaskResult at once, whose task keeps working until it is "
        "cancelled; the user cancels the call once it is a task: the client cancels the task with tasks/cancel "
        "(not notifications/cancelled), and need not poll it again.",
        (Script("search_fares", (), "Fares found", task=Task(until_cancelled=True)),),
        (("search_fares", {"route": "CDG-JFK"}),), {}, tasks=True, cancel=True),
)}
