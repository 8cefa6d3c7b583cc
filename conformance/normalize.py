"""Making a transcript byte-identical across runs without hiding behaviour.

Volatile values become placeholders that keep identity: the same sealed state
echoed back stays `<state#1>`, so a reviewer still sees that the client
returned exactly what it was given, and a server that re-mints state on a
retry shows up as `<state#2>`.
"""

from __future__ import annotations

import json
from typing import Any

from elicit_conformance.wire import TASKS, Transcript

_VERSION_KEYS = {"version"}


class _Placeholders:
    def __init__(self) -> None:
        self._seen: dict[tuple[str, Any], str] = {}

    def __call__(self, kind: str, value: Any) -> str:
        key = (kind, json.dumps(value, sort_keys=True))
        if key not in self._seen:
            count = sum(1 for k, _ in self._seen if k == kind) + 1
            self._seen[key] = f"<{kind}#{count}>"
        return self._seen[key]


def normalize(transcript: Transcript, volatile: dict[str, str]) -> list[dict[str, Any]]:
    """The transcript as plain data, volatile values replaced.

    `volatile` maps literal substrings (a per-run id, say) to their placeholder.
    """
    placeholder = _Placeholders()
    ids = _RequestIds()
    out = []
    for direction, message in transcript.messages:
        body = _walk(_without_optional_extensions(message), placeholder, volatile)
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


def _walk(value: Any, placeholder: _Placeholders, volatile: dict[str, str], key: str = "") -> Any:
    if isinstance(value, dict):
        return {
            k: _walk(v, placeholder, volatile, k)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_walk(v, placeholder, volatile, key) for v in value]
    if isinstance(value, str):
        if key == "requestState":
            return placeholder("state", value)
        if key in _VERSION_KEYS and value[:1].isdigit():
            return "<version>"
        for literal, name in volatile.items():
            value = value.replace(literal, name)
    return value


def render(transcript: list[dict[str, Any]]) -> str:
    return json.dumps(transcript, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
