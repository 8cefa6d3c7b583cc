"""The reference app over streamable HTTP: `uvicorn reference.asgi:asgi` serves it at `/mcp`."""

from reference.app import app

asgi = app.http_app()
