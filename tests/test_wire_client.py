"""The suite's client: what it does with an answer before a case reads it."""

from __future__ import annotations

from elicit_conformance.connection.wire import state_only


def test_only_an_ask_with_no_requests_is_retried_at_once() -> None:
    """mrtr: without `inputRequests` "the client MAY retry the original request immediately"."""
    assert state_only({"resultType": "input_required", "requestState": "s"}) == "s"
    assert state_only({"resultType": "input_required", "inputRequests": {}, "requestState": "s"}) == "s"
    asking = {"resultType": "input_required", "inputRequests": {"k": {}}, "requestState": "s"}
    assert state_only(asking) is None
    assert state_only({"resultType": "complete", "requestState": "s"}) is None
    assert state_only({"resultType": "input_required"}) is None  # nothing to retry with
