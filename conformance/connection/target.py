"""The target under test, and how to reach it.

Three kinds of server, one per way an MCP server is deployed:

- `module:attribute`: a FastMCP or MCP SDK server object, connected in-process.
- `http://host:port/path`: a running streamable-HTTP server, in any language.
- a command (`--server-command`): a stdio server, started as a desktop client
  starts it: once per client identity, kept for the run (`stdio`).

And two kinds of client (`elicit_conformance.clients`): a command (`--client-command`),
started once per client case against that case's scenario server, and a Python client's
`async def main(url)` (`--client=module:function`), run in the suite's process.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import os
import re
import shlex
import shutil
import ssl
from collections import deque
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from fastmcp.client.transports.base import ClientTransport
from mcp.shared.inbound import MCP_METHOD_HEADER

from elicit_conformance.exceptions import NotTestable, TargetError

from .client import Client
from .stdio import StdioServers
from .wire import Peer, Transcript, connect

DEFAULT_SPEC = "elicit_conformance.reference.app:app"

Kind = Literal["module", "url", "command", "client"]


class HttpStatus(NamedTuple):
    """One HTTP response of a URL target."""

    method: str
    code: int
    reason: str

    def __str__(self) -> str:
        return f"HTTP {self.code} {self.reason}".strip()



@dataclass(frozen=True)
class Target:
    """A server and where the suite was told to find it."""

    spec: str
    #: "--server", "--server-command", "ELICIT_SERVER", "ini", or "default".
    source: str
    kind: Kind
    #: The server object and its module (module targets only).
    server: Any = None
    module: Any = None
    #: The stdio server's or the client's command line (command and client targets only).
    argv: tuple[str, ...] = ()
    #: An in-process client's `async def main(url)` (`--client`), instead of a command.
    main: Any = None
    #: The run's stdio processes (command targets only).
    servers: StdioServers | None = field(default=None, compare=False, repr=False)
    #: Tool names, read once per run to tell "not implemented" from "wrong".
    tools: dict[str, frozenset[str]] = field(default_factory=dict, compare=False, repr=False)
    #: Revisions the target refused when first reached, with its answer.
    refused: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    #: The latest HTTP responses (URL targets only), newest last: each request's MCP
    #: method (its Mcp-Method header, where the revision sends one) and status.
    http_statuses: deque[HttpStatus] = field(default_factory=lambda: deque(maxlen=64), compare=False, repr=False)

    @property
    def is_reference(self) -> bool:
        return self.spec == DEFAULT_SPEC

    @property
    def is_client(self) -> bool:
        return self.kind == "client"

    def registration_probes(self) -> dict[str, Any] | None:
        """The target's REG adapter (`registration()` beside the app), if it has one."""
        adapter = getattr(self.module, "registration", None)
        return adapter() if callable(adapter) else None

    def running(self) -> AbstractAsyncContextManager[Any]:
        """What keeps the server up for one case. A server process enters its lifespan
        once; in-process, fastmcp's transport enters it for each connection instead,
        starting and stopping the server's task worker every time. Held for the case
        (fastmcp counts the entries), it runs once, as in a deployed process: a task
        made on one connection is worked while another polls it, and a case costs
        less. Any other target runs on its own."""
        enter = getattr(self.server, "_lifespan_manager", None) if self.kind == "module" else None
        return enter() if enter is not None else contextlib.nullcontext()

    def connect(
        self, client: Client, transcript: Transcript, *, tools: frozenset[str] | None = None,
        timeout: float | None = None,
    ) -> AbstractAsyncContextManager[Peer]:
        """A recorded connection to the target as `client` (see `wire.connect`).

        In-process and over HTTP every connection is its own; over stdio it
        rides the process kept for that client (revision and declared modes).

        Raises:
            NotTestable: The target refused the client's revision when first reached: its
                cases say so instead of failing one by one.
        """
        startup = self.servers.startup if self.servers is not None else None
        return connect(self._transport(client), client, transcript, tools=tools, timeout=timeout, startup=startup,
                       statuses=self.http_statuses if self.kind == "url" else None)

    def _transport(self, client: Client) -> ClientTransport:
        if client.era in self.refused:
            raise NotTestable(f"the target does not serve {client.era}: it refused it when first reached "
                              f"({self.refused[client.era]})")
        if self.kind == "module":
            from fastmcp.client.transports.memory import FastMCPTransport

            return FastMCPTransport(self.server)
        if self.kind == "url":
            from fastmcp.client.transports.http import StreamableHttpTransport

            return StreamableHttpTransport(self.spec, httpx_client_factory=self._http_client)
        assert self.servers is not None
        return self.servers.transport(client)

    def _http_client(self, headers: dict[str, str] | None = None, auth: Any = None, **_: Any) -> Any:
        """An HTTP client that imposes no limit of its own (the suite's `--conformance-timeout`
        bounds every request), on the run's one TLS context (building one loads the CA
        bundle anew, tens of ms, more than a local request), noting each HTTP error status."""
        import httpx2

        async def note(response: Any) -> None:
            self.http_statuses.append(HttpStatus(response.request.headers.get(MCP_METHOD_HEADER, ""),
                                                 response.status_code, response.reason_phrase))

        return httpx2.AsyncClient(headers=headers, auth=auth, follow_redirects=True, verify=_tls_context(),
                                  timeout=httpx2.Timeout(None), event_hooks={"response": [note]})

    def close(self) -> None:
        """Stop what the run started (the stdio processes)."""
        if self.servers is not None:
            self.servers.close()


@functools.cache
def _tls_context() -> ssl.SSLContext:
    import httpx2

    return httpx2.create_ssl_context()


def load_target(spec: str, source: str) -> Target:
    """The target named by `spec`: a URL, or `package.module:attribute` to import.

    Raises:
        TargetError: For a malformed spec, a module that does not import, a
            missing attribute, or an object that is not a server.
    """
    if spec.startswith(("http://", "https://")):
        return Target(spec=spec, source=source, kind="url")
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", spec):
        raise TargetError(
            f"--server={spec!r} (from {source}) looks like a URL, but the suite speaks streamable HTTP "
            "only: give an http:// or https:// URL (e.g. --server=http://127.0.0.1:8000/mcp), or "
            "--server-command for a stdio server."
        )
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise TargetError(
            f"--server={spec!r} (from {source}) is neither module:attribute "
            "(e.g. --server=myproject.server:app) nor a URL "
            "(e.g. --server=http://127.0.0.1:8000/mcp); for a stdio server use "
            "--server-command."
        )
    module, server = _imported(f"--server={spec!r} (from {source})", module_name, attribute, "server")
    if not _is_server(server):
        raise TargetError(
            f"--server={spec!r} (from {source}) is a {type(server).__name__}, not an MCP "
            "server: name a fastmcp.FastMCP or mcp.server.mcpserver.MCPServer instance."
        )
    return Target(spec=spec, source=source, kind="module", server=server, module=module)


def command_target(command: str) -> Target:
    """A stdio target from a shell-style command line."""
    argv = tuple(shlex.split(command))
    if not argv:
        raise TargetError("--server-command is empty: give the command that starts the server.")
    # The target inherits the suite's environment, as a shell would give it.
    return Target(spec=command, source="--server-command", kind="command", argv=argv,
                  servers=StdioServers(argv, os.environ))


def client_target(command: str) -> Target:
    """A client under test, from a shell-style command line.

    Raises:
        TargetError: The command is empty, or its program is not on PATH.
    """
    argv = tuple(shlex.split(command))
    if not argv:
        raise TargetError("--client-command is empty: give the command that runs the client.")
    if shutil.which(argv[0]) is None:
        raise TargetError(f"--client-command={command!r}: {argv[0]!r} is not a command on PATH.")
    return Target(spec=command, source="--client-command", kind="client", argv=argv)


def client_module_target(spec: str) -> Target:
    """A Python client under test, in-process: `module:function`, an async `main(url)` that
    reads its scenario as a client command does (`clients.in_process`).

    Raises:
        TargetError: A malformed spec, a module that does not import, a missing attribute,
            or an object that is not an async function.
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise TargetError(f"--client={spec!r} is not module:function (e.g. "
                          "--client=elicit_conformance.fixtures.clients.fastmcp_client:main).")
    _, main = _imported(f"--client={spec!r}", module_name, attribute, "client")
    if not inspect.iscoroutinefunction(main):
        raise TargetError(f"--client={spec!r} is a {type(main).__name__}, not an async function: name an "
                          "`async def main(url)` that makes the scenario's calls (as a client command does).")
    return Target(spec=spec, source="--client", kind="client", main=main)


def _imported(named: str, module_name: str, attribute: str, what: str) -> tuple[Any, Any]:
    """`module_name` imported and its `attribute` (dotted) got, for the option `named`
    that names a `what` ("server", "client"); each failure a sentence."""
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise TargetError(
            f"{named}: module {module_name!r} could not be imported ({error}). Is it installed, or on PYTHONPATH?"
        ) from error
    except Exception as error:
        raise TargetError(
            f"{named}: importing {module_name!r} raised {type(error).__name__}: {error}. "
            f"The {what} fails before any case can run."
        ) from error
    found: Any = module
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise TargetError(f"{named}: module {module_name!r} has no attribute {attribute!r}.") from None
        except Exception as error:  # a lazy attribute (a module __getattr__) that builds it
            raise TargetError(
                f"{named}: getting {attribute!r} from {module_name!r} raised {type(error).__name__}: {error}. "
                f"The {what} fails before any case can run."
            ) from error
    return module, found


def _is_server(obj: Any) -> bool:
    from fastmcp import FastMCP
    from mcp.server.mcpserver import MCPServer

    return isinstance(obj, (FastMCP, MCPServer))
