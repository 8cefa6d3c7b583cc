"""What a server said, quoted short enough for a verdict sentence: long strings and
structures elided, one line."""

from __future__ import annotations

import json
from typing import Any


def brief(value: Any, limit: int = 240) -> str:
    """A server's answer (or any value) as a short, readable quote: long strings elided."""
    text = value if isinstance(value, str) else _json(value)
    if len(text) <= limit:
        return repr(text) if isinstance(value, str) else text
    head = text[: limit - 40]
    elided = f"{head}... ({len(text):,} characters)"
    return repr(elided) if isinstance(value, str) else elided


def _json(value: Any) -> str:
    try:
        return json.dumps(_shorten(value), ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        return repr(value)


def _shorten(value: Any, limit: int = 80) -> Any:
    """Long strings inside a structure elided, so one quote stays one line."""
    if isinstance(value, str):
        return value if len(value) <= limit else f"{value[:limit]}... ({len(value):,} characters)"
    if isinstance(value, dict):
        return {k: _shorten(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shorten(v, limit) for v in value]
    return value
