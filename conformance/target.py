"""The server under test, named the way uvicorn names an app: `module:attribute`."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

DEFAULT_SPEC = "reference.app:app"


class TargetError(Exception):
    """The `--server` value does not name a usable server; the message says how to fix it."""


@dataclass(frozen=True)
class Target:
    """A server object and where the suite was told to find it."""

    spec: str
    #: "--server", "ELICIT_SERVER", "ini", or "default".
    source: str
    server: Any
    module: Any

    @property
    def is_reference(self) -> bool:
        return self.spec == DEFAULT_SPEC

    def registration_probes(self) -> dict[str, Any] | None:
        """The target's REG adapter (`registration()` beside the app), if it has one."""
        adapter = getattr(self.module, "registration", None)
        return adapter() if callable(adapter) else None


def load_target(spec: str, source: str) -> Target:
    """Import `spec` ("package.module:attribute") and check it is an MCP server.

    Raises:
        TargetError: For a malformed spec, a module that does not import, a
            missing attribute, or an object that is not a server.
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise TargetError(
            f"--server={spec!r} (from {source}) is not of the form module:attribute, "
            "e.g. --server=myproject.server:app"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise TargetError(
            f"--server={spec!r} (from {source}): module {module_name!r} could not be "
            f"imported ({error}). Is it installed, or on PYTHONPATH?"
        ) from error
    except Exception as error:  # noqa: BLE001 - the target's own import-time failure
        raise TargetError(
            f"--server={spec!r} (from {source}): importing {module_name!r} raised "
            f"{type(error).__name__}: {error}. The server fails before any case can run."
        ) from error
    server: Any = module
    for part in attribute.split("."):
        if not hasattr(server, part):
            raise TargetError(
                f"--server={spec!r} (from {source}): module {module_name!r} has no "
                f"attribute {attribute!r}."
            )
        server = getattr(server, part)
    if not _is_server(server):
        raise TargetError(
            f"--server={spec!r} (from {source}) is a {type(server).__name__}, not an MCP "
            "server: name a fastmcp.FastMCP or mcp.server.mcpserver.MCPServer instance."
        )
    return Target(spec=spec, source=source, server=server, module=module)


def _is_server(obj: Any) -> bool:
    from fastmcp import FastMCP
    from mcp.server.mcpserver import MCPServer

    return isinstance(obj, (FastMCP, MCPServer))
