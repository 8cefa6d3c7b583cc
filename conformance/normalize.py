"""Making a transcript byte-identical across runs without hiding behaviour.

Volatile values become placeholders that keep identity: the same sealed state
echoed back stays `<state#1>`, so a reviewer still sees that the client
returned exactly what it was given, and a server that re-mints state on a
retry shows up as `<state#2>`.
"""

from __future__ import annotations

import json
from typing import Any

from elicit_conformance.wire import Transcript

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
    out = []
    for direction, message in transcript.messages:
        body = _walk(message, placeholder, volatile)
        if "id" in body:
            # Requests from each side are numbered independently.
            origin = direction if "method" in body else _flip(direction)
            body["id"] = placeholder(f"id:{origin}", body["id"])
        out.append({"direction": direction, "message": body})
    return out


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
