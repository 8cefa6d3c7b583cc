"""A warm interpreter that forks one child per suite run (`tests.suite.Warm`).

Every suite run against a fastmcp target imports fastmcp's client and server,
mcp, fastmcp-tasks where installed, pytest and hypothesis: over a second, a
third of a mutant's quick run. Imported here once, each forked child starts
from them. None of the suite's own modules is imported before the fork, so the
child imports and assertion-rewrites them as a fresh process does (the
reference and the mutant's patches included). Of the pytest plugins only
anyio's comes early (fastmcp imports anyio): pytest says so with one
PytestAssertRewriteWarning, and its plugin module, which holds no verdict, is
not rewritten. The other plugins (syrupy, xdist, pytest-asyncio, hypothesis's
own plugin module) are left for the child to import.

Protocol, one JSON object a line: in, `{"id", "argv", "env", "output"}`; out,
`{"id", "pid"}` when that run's child starts, then `{"id", "returncode", "cpu"}`
when it ends. Several runs may be going at once; the loop stays single-threaded (a fork
of a threaded process could inherit a lock held by another thread).
"""

from __future__ import annotations

import gc
import importlib.util
import json
import os
import select
import sys
import traceback
from typing import Any

import fastmcp.client.transports.base  # noqa: F401 - imported once, before any fork
import fastmcp.server.server  # noqa: F401
import griffe  # noqa: F401 - fastmcp reads tools' docstrings with it when a server is built: 0.2 s
import hypothesis  # noqa: F401
import mcp.server.mcpserver  # noqa: F401
import pytest

if importlib.util.find_spec("fastmcp_tasks") is not None:
    import fastmcp_tasks  # noqa: F401 - the reference registers it when installed


def main() -> None:
    # What the children inherit, out of the collector's sight: a child's collections
    # would otherwise walk (and so copy, page by page) the whole inherited heap.
    gc.freeze()
    running: dict[int, int] = {}  # pid -> run id
    requests = os.fdopen(sys.stdin.fileno(), "rb", buffering=0)
    pending = b""
    open_ = True
    while open_ or running:
        # Wake for a request, or every 20 ms to reap the children that ended.
        readable, _, _ = select.select([requests] if open_ else [], [], [], 0.02)
        if readable:
            chunk = requests.read(65536)
            open_ = bool(chunk)
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                request = json.loads(line)
                pid = os.fork()
                if pid == 0:
                    _child(request)
                running[pid] = request["id"]
                _answer(id=request["id"], pid=pid)
        while running:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
            if pid == 0:
                break
            # The child's CPU, its own waited-for children included: the test process waits
            # for this interpreter only at its end, so it counts each run by this (tests/cost.py).
            _answer(id=running.pop(pid), returncode=os.waitstatus_to_exitcode(status),
                    cpu=usage.ru_utime + usage.ru_stime)


def _answer(**fields: Any) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def _child(request: dict[str, Any]) -> None:
    """Become `python -m pytest ARGV` with ENV, writing to OUTPUT; never return."""
    code = 3
    try:
        output = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.dup2(output, 1)
        os.dup2(output, 2)
        os.environ.clear()
        os.environ.update(request["env"])
        # What the interpreter would have read from the environment at start.
        sys.path[1:1] = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
        code = int(pytest.main(request["argv"]))
    except BaseException:  # noqa: BLE001 - the child must end here, whatever happened
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


if __name__ == "__main__":
    main()
