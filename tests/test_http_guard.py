"""The reference over HTTP refuses DNS rebinding: a forged Host or a foreign Origin
never reaches MCP, loopback clients do, and a deployment names its own hosts."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from elicit_conformance.dev.local_server import LocalServer

LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {
    "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {}}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
           "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}


def _post(url: str, **extra: str) -> tuple[int, str]:
    """Status and body of a tools/list POST with `extra` headers (Host may be forged:
    the connection still goes to the server's own loopback address)."""
    target = urlsplit(url)
    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
    try:
        connection.request("POST", target.path, body=json.dumps(LIST), headers={**HEADERS, **extra})
        response = connection.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        connection.close()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with LocalServer("elicit_conformance.reference.asgi:asgi", log=tmp_path_factory.mktemp("guard") / "uvicorn.log") as server:
        yield server.url


def test_a_loopback_client_is_served(reference: str) -> None:
    status, body = _post(reference)
    assert status == 200, body
    assert "book_destination" in body


@pytest.mark.parametrize(("header", "value", "status"), [
    ("Host", "evil.example.com", 421),
    ("Origin", "http://evil.example.com", 403),
])
def test_a_forged_host_or_foreign_origin_is_refused_before_mcp(reference: str, header: str, value: str, status: int) -> None:
    got, body = _post(reference, **{header: value})
    assert got == status, (got, body)
    assert "book_destination" not in body


def test_a_deployment_names_its_own_host_and_origin(tmp_path: Path) -> None:
    env = {"ELICIT_ALLOWED_HOSTS": "mcp.example.com", "ELICIT_ALLOWED_ORIGINS": "https://app.example.com"}
    with LocalServer("elicit_conformance.reference.asgi:asgi", env=env, log=tmp_path / "uvicorn.log") as server:
        named = _post(server.url, Host="mcp.example.com", Origin="https://app.example.com")
        other = _post(server.url, Host="other.example.com")
    assert named[0] == 200, named
    assert other[0] == 421, other
