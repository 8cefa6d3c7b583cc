"""tests/forkserver.py: a forked server is a process like any other to the suite, on the
command's own pipes, with its exit code; and it never outlives its command."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from tests import forkserver

ECHO = '''
import os, sys

if __name__ == "__main__":
    print(os.getpid(), os.environ.get("WHO"), os.getcwd(), flush=True)
    print(sys.stdin.readline().strip().upper(), flush=True)
    sys.exit(3)
'''


def _started(command: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(command.split(), cwd=cwd, env={**os.environ, "WHO": "the-command"},
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def test_a_forked_server_serves_on_the_commands_pipes_and_exits_with_its_code(tmp_path: Path) -> None:
    (tmp_path / "echo_server.py").write_text(ECHO)
    with forkserver.serving("echo_server", tmp_path) as command:
        server = _started(command, tmp_path)
        assert server.stdin is not None and server.stdout is not None
        pid, who, folder = server.stdout.readline().split()
        assert int(pid) != server.pid and who == "the-command" and folder == str(tmp_path)
        server.stdin.write("hello\n")
        server.stdin.flush()
        assert server.stdout.readline().strip() == "HELLO"
        assert server.wait(10) == 3


def test_a_forked_server_ends_with_its_command(tmp_path: Path) -> None:
    (tmp_path / "echo_server.py").write_text(ECHO)
    with forkserver.serving("echo_server", tmp_path) as command:
        server = _started(command, tmp_path)
        assert server.stdout is not None
        pid = int(server.stdout.readline().split()[0])
        server.kill()
        server.wait(10)
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), f"the forked server {pid} outlived its command"


def _alive(pid: int) -> bool:
    status = Path(f"/proc/{pid}/stat")
    return status.exists() and status.read_text().split()[2] != "Z"
