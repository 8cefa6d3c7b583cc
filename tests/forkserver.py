"""Stdio servers forked from a warm interpreter, for the tests that start many.

A suite run over stdio starts a server process per client identity, and again
after every request a misbehaving server leaves unanswered: `python -m
elicit_conformance.reference` pays 3 s of CPU importing fastmcp and building
its tools each time, and those starts were most of what test_transports and
test_misbehaving cost. Here one interpreter imports the server's module once
and forks a child per start, a process like any other to the suite:

    python tests/forkserver.py serve SOCKET MODULE    # the warm interpreter (in MODULE's folder)
    python tests/forkserver.py SOCKET                 # the server command a suite runs

The command hands its stdin, stdout and stderr, its environment and its folder
to the warm interpreter over a Unix socket; the child forked there becomes
`python -m MODULE` on those very pipes, and the command exits with the child's
code. The suite stops the command as it stops any server (stdin closed, then
terminate, then kill); when the command ends, its child is killed. The module's
`__main__` block is what runs, the import having built the server before the
fork, as a fresh process would build it before serving.

Where a test proves something about starting a server (tests/test_stdio.py,
the peers, the wheel), it starts the real command.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import runpy
import select
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

#: Seconds the warm interpreter may take to import the module and listen.
READY_TIMEOUT = 60


@contextlib.contextmanager
def serving(module: str, folder: Path) -> Iterator[str]:
    """A warm interpreter for `module` (imported from `folder`, as `python -m` run there
    would) while the block runs: the server command to give `--server-command`."""
    with tempfile.TemporaryDirectory(prefix="forkserver-") as scratch:
        path = Path(scratch) / "socket"
        process = subprocess.Popen([sys.executable, __file__, "serve", str(path), module],
                                   cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        try:
            assert process.stdout is not None
            ready = select.select([process.stdout], [], [], READY_TIMEOUT)[0]
            if not ready or process.stdout.readline().strip() != "ready":
                raise RuntimeError(f"tests.forkserver could not serve {module} (exit {process.poll()})")
            yield f"{sys.executable} {__file__} {path}"
        finally:
            process.terminate()
            process.wait(timeout=10)


def serve(path: str, module: str) -> None:
    """Import `module` (a package's `__main__`, short of its main block), then fork a
    `python -m module` for each command that connects."""
    spec = importlib.util.find_spec(module)
    package = spec is not None and spec.submodule_search_locations is not None
    importlib.import_module(f"{module}.__main__" if package else module)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen()
    print("ready", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    children: dict[socket.socket, int] = {}  # each command's connection -> its child's pid
    try:
        while True:
            readable, _, _ = select.select([listener, *children], [], [], 0.05)
            for ready in readable:
                if ready is listener:
                    connection, _ = listener.accept()
                    children[connection] = _fork(connection, module, [listener, *children])
                else:  # the command ended (nothing else is ever sent): so does its child
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(children[ready], signal.SIGKILL)
            for connection, pid in list(children.items()):
                ended, status = os.waitpid(pid, os.WNOHANG)
                if ended:
                    with contextlib.suppress(OSError):
                        connection.sendall(json.dumps(os.waitstatus_to_exitcode(status)).encode())
                    connection.close()
                    del children[connection]
    finally:
        for pid in children.values():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _fork(connection: socket.socket, module: str, others: list[socket.socket]) -> int:
    message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        return pid
    code = 1
    try:
        # The child keeps no other command's connection open (nor the listener).
        for other in [connection, *others]:
            other.close()
        request = json.loads(message)
        for number, fd in enumerate(fds):
            os.dup2(fd, number)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def connect(path: str) -> int:
    """Be the server: hand this process's stdio to the warm interpreter, wait for its child."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(path)
        request = json.dumps({"env": dict(os.environ), "cwd": os.getcwd()}).encode()
        socket.send_fds(connection, [request], [0, 1, 2])
        answer = connection.recv(64)
    return int(answer) if answer else 1


if __name__ == "__main__":
    # As `python -m` has it: the folder it runs in first on the path, not this file's.
    sys.path[0] = os.getcwd()
    if sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3])
    else:
        sys.exit(connect(sys.argv[1]))
