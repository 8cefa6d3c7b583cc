"""The suite's client: what it does with an answer before a case reads it."""

from __future__ import annotations

from elicit_conformance.connection.wire import state_only
from elicit_conformance.connection.state_only import retry_of


def test_only_an_ask_with_no_requests_is_retried_at_once() -> None:
    """mrtr: without `inputRequests` "the client MAY retry the original request immediately"."""
    assert state_only({"resultType": "input_required", "requestState": "s"}) == "s"
    assert state_only({"resultType": "input_required", "inputRequests": {}, "requestState": "s"}) == "s"
    asking = {"resultType": "input_required", "inputRequests": {"k": {}}, "requestState": "s"}
    assert state_only(asking) is None
    assert state_only({"resultType": "complete", "requestState": "s"}) is None
    assert state_only({"resultType": "input_required"}) is None  # nothing to retry with


def test_a_state_only_ask_is_retried_with_the_original_request_and_no_earlier_answers() -> None:
    """The result asked nothing: answers of the round before it would answer requests of
    another result, which a server may refuse (issue: a server shedding load and refusing
    unasked answers failed 46 MUST cases while the client re-sent them)."""
    sent = {"name": "book", "arguments": {"ref": "r"}, "inputResponses": {"date": {"action": "accept"}},
            "requestState": "old", "_meta": {"m": 1}}
    assert retry_of(sent, "new") == {"name": "book", "arguments": {"ref": "r"}, "requestState": "new",
                                     "_meta": {"m": 1}}
    assert sent["requestState"] == "old" and "inputResponses" in sent  # the original is left as it was


def _client_made(body: bytes) -> dict[str, object]:
    """The -32700 the MCP client makes for `body`, made by its own code path's words."""
    from mcp_types.jsonrpc import jsonrpc_message_adapter
    from pydantic import ValidationError

    try:
        jsonrpc_message_adapter.validate_json(body, by_name=False)
    except ValidationError as error:
        return {"code": -32700, "message": f"Failed to parse JSON response: {error}"}
    raise AssertionError(f"{body!r} parsed")


def test_bytes_the_client_could_not_parse_are_quoted_as_the_servers() -> None:
    """The MCP client's -32700 is not the server's answer: the bytes it met are."""
    from elicit_conformance.connection.faults import not_json_rpc, unparsed

    assert unparsed(_client_made(b"Internal Server Error")) == "b'Internal Server Error'"
    assert unparsed(_client_made(b"")) == "an empty body"
    assert "'result': 7" in str(unparsed(_client_made(b'{"jsonrpc":"2.0","id":1,"result":7}')))
    sentence = str(not_json_rpc("tools/call", "b'Internal Server Error'"))
    assert sentence == "the server answered tools/call with b'Internal Server Error', which is not a JSON-RPC message"
    # The server's own -32700 (or any error it sends) is its answer, not bytes to quote.
    assert unparsed({"code": -32700, "message": "Parse error"}) is None
    assert unparsed({"code": -32602, "message": "Failed to parse JSON response: x"}) is None


def test_a_failed_http_connection_is_said_as_what_the_server_did() -> None:
    import httpx2

    from elicit_conformance.connection.faults import connection_fault

    assert str(connection_fault(httpx2.ReadError(""), "tools/call")) == (
        "the server reset the connection while tools/call waited for its answer")
    assert str(connection_fault(httpx2.ConnectError("All connection attempts failed"), "server/discover")) == (
        "the connection was refused while server/discover waited for its answer (All connection attempts failed)")
    cut = httpx2.RemoteProtocolError("peer closed connection without sending complete message body (received 2 bytes, expected 4)")
    assert str(connection_fault(cut, None)) == (
        "the connection closed between requests (peer closed connection without sending complete message body "
        "(received 2 bytes, expected 4))")


def test_a_bare_http_error_status_is_said_as_that_status() -> None:
    """The MCP client answers a 5xx without a JSON-RPC body with a -32603 of its own."""
    import mcp_types
    from mcp.shared.exceptions import MCPError

    from elicit_conformance.connection.faults import STATUS_ONLY
    from elicit_conformance.connection.wire import answer_of
    from elicit_conformance.exceptions import RpcError

    made = MCPError(code=mcp_types.INTERNAL_ERROR, message=STATUS_ONLY)
    assert str(answer_of(made, "tools/call", "HTTP 502 Bad Gateway")) == (
        "the server answered tools/call with HTTP 502 Bad Gateway and no JSON-RPC message")
    # The server's own -32603 is its answer.
    own = answer_of(MCPError(code=mcp_types.INTERNAL_ERROR, message="boom"), "tools/call", "HTTP 500")
    assert isinstance(own, RpcError) and own.error["message"] == "boom"


def test_the_connection_layers_own_failure_is_said_as_what_the_server_did() -> None:
    """Seen once in CI (a process killed under 40 calls): httpcore2's error reached the
    client without httpx2's mapping, and a run ended in a traceback."""
    import httpcore2

    from elicit_conformance.connection.faults import connection_fault, fault_in

    cut = httpcore2.RemoteProtocolError("Server disconnected without sending a response.")
    found = fault_in(BaseExceptionGroup("the transport's task group", [cut]))
    assert found is cut
    assert str(connection_fault(found, "tools/call")) == (
        "the connection closed while tools/call waited for its answer "
        "(Server disconnected without sending a response.)")
