"""The reference app over streamable HTTP: `uvicorn elicit_conformance.reference.asgi:asgi` serves it at `/mcp`."""

from elicit_conformance.reference.app import app

asgi = app.http_app()
