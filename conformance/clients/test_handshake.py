"""CLI on the handshake era (2025-11-25): the server asks with `elicitation/create` while
the call is open, and the client, which declared elicitation when it initialized, answers
each request with the user's answer."""

from __future__ import annotations

from typing import Any

import pytest

from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.harness.driver import as_object
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import HANDSHAKE
from elicit_conformance.verdict import check

from .play import is_the_answer, params_of, play
from .scenarios import SCENARIOS

pytestmark = pytest.mark.revisions(HANDSHAKE)


def _asked(played_messages: list[tuple[str, dict[str, Any]]]) -> dict[Any, str]:
    """Each `elicitation/create` the server sent: its id, and the question's message."""
    return {m.get("id"): as_object(m.get("params")).get("message", "") for direction, m in played_messages
            if direction == "server->client" and m.get("method") == "elicitation/create"}


@pytest.mark.checks("CLI-11", "CLI-7")
@async_case
async def test_cli_handshake_questions_are_answered_while_the_call_is_open(client_case: Case, era: str) -> None:
    """Scenario handshake: the client's initialize declares elicitation; book_trip asks three
    questions by elicitation/create; the client's result for each is the user's answer
    (destination accepted with {"value": "Paris"}, date declined, cabin accepted with
    {"value": "business"}: the user's value, not the default 'economy' its field offers)."""
    played = await play(client_case, "handshake", era)
    initialize = next((r for r in played.server.requests() if r.get("method") == "initialize"), None)
    check("CLI-11", initialize is not None, f"the client never sent initialize on {era}: {played.exited.said()}")
    capabilities = as_object(params_of(initialize).get("capabilities"))
    check("CLI-11", isinstance(capabilities.get("elicitation"), dict),
          f"the client's initialize declared the capabilities {brief(capabilities)}; a client that answers "
          "elicitation declares it there")
    asked = _asked(client_case.transcript.messages)
    questions = len(SCENARIOS["handshake"].answers)
    check("CLI-7", len(asked) == questions, f"the server asked {len(asked)} question(s) of the {questions} it had; the "
          f"client stopped answering ({played.exited.said()})")
    replies = {body.get("id"): body for body in played.server.bodies() if "method" not in body and "id" in body}
    answers = SCENARIOS["handshake"].answers
    for request_id, message in asked.items():
        reply = replies.get(request_id)
        wanted = answers[message]
        check("CLI-7", is_the_answer(as_object(reply).get("result"), wanted), f"{message!r} was answered {brief(reply)}; the user's answer was {brief(wanted)}")


@pytest.mark.checks("CLI-15")
@async_case
async def test_cli_handshake_a_client_without_a_handler_accepts_no_question(client_case: Case, era: str) -> None:
    """Scenario no-handler-handshake: book_destination asks one question by elicitation/create
    of a client with no elicitation handler; the client's reply is an error, or a decline or
    cancel: nothing accepted."""
    played = await play(client_case, "no-handler-handshake", era)
    asked = _asked(client_case.transcript.messages)
    check("CLI-15", bool(asked), f"the server never asked: the client did not call book_destination "
          f"({played.exited.said()})")
    replies = {body.get("id"): body for body in played.server.bodies() if "method" not in body and "id" in body}
    for request_id in asked:
        result = as_object(as_object(replies.get(request_id)).get("result"))
        check("CLI-15", result.get("action") != "accept", f"the client accepted the question with {brief(result)}, "
              "though it has no elicitation handler: no user gave that answer")
