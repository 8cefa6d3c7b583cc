"""Making a transcript byte-identical across runs without hiding behaviour.

Volatile values become placeholders that keep identity where it is behaviour:
the sealed state a client echoes reads as the state it was given (`<state#1>`),
a forged one as a state of its own; each state the server sends is a new one
(`_Placeholders` says why); task ids likewise. Request ids are numbered in
order, versions, timestamps and progress tokens read as what they are.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from elicit_conformance.connection.wire import TASKS, Transcript

_VERSION_KEYS = {"version"}


class _Placeholders:
    """Server-minted values as numbered placeholders. Each value the server sends is
    a new one, even if it sent the same bytes before: a server that seals a timestamp
    into its state repeats a state only when two rounds fall in the same second, and
    that must not show. A value the client sends reads as the latest the server sent
    with the same bytes (what it echoes), or as a new one (a forgery)."""

    def __init__(self) -> None:
        self._count: dict[str, int] = {}
        self._latest: dict[tuple[str, str], str] = {}

    def __call__(self, kind: str, value: Any, *, minted: bool) -> str:
        key = (kind, json.dumps(value, sort_keys=True))
        if minted or key not in self._latest:
            self._count[kind] = self._count.get(kind, 0) + 1
            self._latest[key] = f"<{kind}#{self._count[kind]}>"
        return self._latest[key]


def normalize(transcript: Transcript, volatile: dict[str, str]) -> list[dict[str, Any]]:
    """The transcript as plain data, volatile values replaced.

    `volatile` maps literal substrings (a per-run id, say) to their placeholder.
    """
    placeholder = _Placeholders()
    ids = _RequestIds()
    out = []
    for direction, message in transcript.messages:
        minted = functools.partial(placeholder, minted=direction == "server->client")
        body = _walk(_without_optional_extensions(message), minted, volatile)
        if "id" in body:
            body["id"] = ids.request(direction, body["id"]) if "method" in body else ids.response(direction, body["id"])
        out.append({"direction": direction, "message": body})
    return out


#: Extensions a deployment may or may not register (the tasks extension needs the
#: `tasks` extra); the TASK cases judge them, a golden transcript leaves them out
#: of the server's advertised capabilities so that it reads the same either way.
_OPTIONAL_EXTENSIONS = frozenset({TASKS})


def _without_optional_extensions(message: dict[str, Any]) -> dict[str, Any]:
    result = message.get("result")
    capabilities = result.get("capabilities") if isinstance(result, dict) else None
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    if not isinstance(extensions, dict) or not _OPTIONAL_EXTENSIONS & set(extensions):
        return message
    kept = {k: v for k, v in extensions.items() if k not in _OPTIONAL_EXTENSIONS}
    return {**message, "result": {**result, "capabilities": {**capabilities, "extensions": kept}}}


class _RequestIds:
    """Each request numbered in order, per side; a response takes its request's number.

    Numbered by request, not by raw value: connections of their own restart
    their ids, connections sharing a stdio process never reuse one, and the
    same calls must read the same either way.
    """

    def __init__(self) -> None:
        self._count: dict[str, int] = {}
        self._open: dict[tuple[str, str], str] = {}

    def request(self, direction: str, raw: Any) -> str:
        self._count[direction] = self._count.get(direction, 0) + 1
        name = f"<id:{direction}#{self._count[direction]}>"
        self._open[(direction, json.dumps(raw))] = name
        return name

    def response(self, direction: str, raw: Any) -> str:
        # A reply to no request sent (a wrong id) gets a number of its own.
        origin = _flip(direction)
        return self._open.pop((origin, json.dumps(raw)), None) or self.request(origin, raw)


def _flip(direction: str) -> str:
    return "server->client" if direction == "client->server" else "client->server"


#: Minted by the server per request or per moment, meaning nothing across runs: a
#: progress token counts up over a stdio process's life but restarts per HTTP
#: connection, and a timestamp is the clock's.
_MINTED = {"progressToken": "<progressToken>", "createdAt": "<time>", "lastUpdatedAt": "<time>"}
#: Server-minted ids whose identity a reader follows: the same id stays one placeholder.
_IDENTIFIERS = {"requestState": "state", "taskId": "task"}


def _walk(value: Any, placeholder: Callable[[str, Any], str], volatile: dict[str, str], key: str = "") -> Any:
    if key in _MINTED and isinstance(value, (str, int, float)):
        return _MINTED[key]
    if isinstance(value, dict):
        return {
            k: _walk(v, placeholder, volatile, k)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_walk(v, placeholder, volatile, key) for v in value]
    if isinstance(value, str):
        if key in _IDENTIFIERS:
            return placeholder(_IDENTIFIERS[key], value)
        if key in _VERSION_KEYS and value[:1].isdigit():
            return "<version>"
        for literal, name in volatile.items():
            value = value.replace(literal, name)
    return value


def render(transcript: list[dict[str, Any]]) -> str:
    return json.dumps(transcript, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
