"""The reference app over streamable HTTP: `uvicorn elicit_conformance.reference.asgi:asgi` serves it at `/mcp`.

Host and Origin are checked before a request reaches MCP, because a server on a
loopback port is otherwise reachable from any web page by DNS rebinding (the
specification: servers MUST validate `Origin`). Loopback names (127.0.0.1,
localhost, ::1) are allowed; a deployment behind a real name lists its own,
comma-separated, `*` patterns allowed:

    ELICIT_ALLOWED_HOSTS=mcp.example.com ELICIT_ALLOWED_ORIGINS=https://app.example.com \\
        uvicorn elicit_conformance.reference.asgi:asgi

A forged `Host` is answered 421 and a foreign `Origin` 403, before any session exists.
"""

import os

from elicit_conformance.reference.app import app


def _listed(variable: str) -> list[str] | None:
    """The comma-separated names an environment variable holds; None when unset."""
    names = [name.strip() for name in os.environ.get(variable, "").split(",") if name.strip()]
    return names or None


asgi = app.http_app(
    host_origin_protection=True,
    allowed_hosts=_listed("ELICIT_ALLOWED_HOSTS"),
    allowed_origins=_listed("ELICIT_ALLOWED_ORIGINS"),
)
