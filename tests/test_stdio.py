"""Over stdio the suite runs a server as a desktop client does: one process per
client identity, kept for the run, so a server that keeps its records in
memory is judged exactly as in-process. Servers here are not the reference:
the MCP SDK peer, and a small hand-written guard counting body runs in a dict.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio

from elicit_conformance.connection.stdio import StdioServers
from elicit_conformance.connection.client import Client
from elicit_conformance.connection.wire import Transcript, connect
from elicit_conformance.exceptions import TimedOut
from elicit_conformance.harness.case import body_run_count
from elicit_conformance.revisions import MODERN
from tests.suite import SuiteRun, finish, run, start

#: `book_destination` and `body_runs`, written by hand on fastmcp, the records in
#: memory. BODY_FIRST runs the body before the answer is checked: a declined or
#: cancelled call (OPT-3, OPT-4) or a wrong type (TYP-4) fails, but only after
#: running the body.
COUNTING = '''
import sys
from collections import Counter

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

app = FastMCP("counting")
runs = Counter()
BODY_FIRST = {body_first}
QUESTION = "Where would you like to fly?"
SCHEMA = {{"type": "object", "properties": {{"value": {{"type": "string"}}}}, "required": ["value"]}}


@app.tool
def body_runs(ref: str) -> int:
    return runs[ref]


@app.tool
async def book_destination(ref: str, ctx: Context) -> str | mcp_types.InputRequiredResult:
    print(f"counting: book_destination {{ref}}", file=sys.stderr, flush=True)
    if ctx.request_context.protocol_version in MODERN_PROTOCOL_VERSIONS:
        reply = (ctx.input_responses or {{}}).get("destination")
        if reply is None:
            return mcp_types.InputRequiredResult(input_requests={{"destination": mcp_types.ElicitRequest(
                params=mcp_types.ElicitRequestFormParams(message=QUESTION, requested_schema=SCHEMA))}})
    else:
        reply = await ctx.session.elicit(message=QUESTION, requested_schema=SCHEMA, related_request_id=ctx.request_id)
    if BODY_FIRST:
        runs[ref] += 1
    value = (getattr(reply, "content", None) or {{}}).get("value")
    if getattr(reply, "action", None) != "accept" or not isinstance(value, str):
        raise ToolError("destination was not given: the booking needs one")
    if not BODY_FIRST:
        runs[ref] += 1
    return f"Booked a flight to {{value}}"


if __name__ == "__main__":
    print("COUNTING SERVER BANNER", file=sys.stderr, flush=True)
    app.run("stdio", show_banner=False)
'''
#: The cases on `book_destination`.
CASES = "OPT-3 or OPT-4 or TYP-4 or SEC-3 or BAT-1"
#: What running the body first costs: every call refused after the body ran.
BODY_FIRST_FAILS = {
    *(f"test_scenario[{case}-{era}]" for case in ("OPT-3", "OPT-4", "TYP-4") for era in ("2025-11-25", "2026-07-28")),
    *(f"test_sec_3_malformed_replies_never_reach_the_body[2026-07-28-{kind}]"
      for kind in ("wrong-kind", "wrong-type", "no-content")),
}


def _failed(result: SuiteRun) -> set[str]:
    assert result.index["cases"], result.output[-3000:]
    return {nodeid.split("::")[-1] for nodeid, status in result.statuses().items() if status == "fail"}


def test_a_server_counting_in_memory_gets_the_in_process_verdicts_over_stdio(tmp_path: Path) -> None:
    env = {"PYTHONPATH": str(tmp_path)}
    for name, body_first in (("counting", False), ("body_first", True)):
        (tmp_path / f"{name}.py").write_text(COUNTING.format(body_first=body_first))
        pids = tmp_path / f"{name}.pids"
        # Each start of the server writes its pid: the processes the run started.
        command = f"sh -c 'echo $$ >> {pids}; exec {sys.executable} {tmp_path / name}.py'"
        here = start(tmp_path / f"{name}-in-process", f"--server={name}:app", "-k", CASES, env=env)
        there = run(tmp_path / f"{name}-stdio", f"--server-command={command}", "-k", CASES, env=env)
        here = finish(here, tmp_path / f"{name}-in-process")
        assert here.statuses() == there.statuses(), (here.output[-2000:], there.output[-2000:])
        assert _failed(there) == (BODY_FIRST_FAILS if body_first else set()), there.output[-3000:]
        # Four client identities: each revision declaring elicitation (the cases)
        # and declaring none (reaching the target first): a process each, not one
        # per connection.
        assert len(pids.read_text().split()) == 4, pids.read_text()


#: A stdio server whose tools hang, crash the process, or answer.
FRAGILE = '''
import os

import anyio
from fastmcp import FastMCP

app = FastMCP("fragile")


@app.tool
async def hang() -> str:
    await anyio.sleep_forever()
    return "never"


@app.tool
def crash() -> str:
    os._exit(3)


@app.tool
def pid() -> int:
    return os.getpid()


if __name__ == "__main__":
    app.run("stdio", show_banner=False)
'''


async def _pid(servers: StdioServers) -> int:
    async with connect(servers.transport(Client(MODERN, ())), Client(MODERN, ()), Transcript(), timeout=30) as peer:
        return body_run_count(await peer.call_tool("pid", {}))


async def _fails(servers: StdioServers, tool: str) -> type[BaseException]:
    """How a call of `tool` ended: the exception inside the transport's task groups."""
    try:
        async with connect(servers.transport(Client(MODERN, ())), Client(MODERN, ()), Transcript(), timeout=2) as peer:
            await peer.call_tool(tool, {})
    except BaseException as error:  # noqa: BLE001 - whatever ends the call is the point
        while isinstance(error, BaseExceptionGroup):
            error = error.exceptions[0]
        return type(error)
    raise AssertionError(f"{tool} returned")


def test_a_process_left_waiting_or_gone_is_replaced_by_a_fresh_one(tmp_path: Path) -> None:
    (tmp_path / "fragile.py").write_text(FRAGILE)
    servers = StdioServers((sys.executable, str(tmp_path / "fragile.py")))
    try:
        first = anyio.run(_pid, servers)
        assert anyio.run(_pid, servers) == first and servers.started == 1, "one process serves every connection"
        assert anyio.run(_fails, servers, "hang") is TimedOut
        second = anyio.run(_pid, servers)  # the hung call's process is in an unknown state
        assert second != first and servers.started == 2
        anyio.run(_fails, servers, "crash")
        third = anyio.run(_pid, servers)
        assert third not in (first, second) and servers.started == 3
        assert all(not _alive(pid) for pid in (first, second)), "replaced processes were stopped"
    finally:
        servers.close()
    assert not _alive(third)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A stopped child of ours stays a zombie until reaped; Popen.wait reaps it.
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split()[2] != "Z"


def test_a_stdio_server_that_takes_15_s_to_start_is_reached(tmp_path: Path) -> None:
    """Starting is not a request: the first answer gets the start-up allowance (120 s
    by default), not the 10 s the MCP client gives `server/discover`, nor the
    per-request timeout, here cut to 5 s. (Only the first process sleeps: one is proof.)"""
    (tmp_path / "counting.py").write_text(COUNTING.format(body_first=False))
    slept = tmp_path / "slept"
    command = (f"sh -c '[ -e {slept} ] || {{ touch {slept}; sleep 15; }}; "
               f"exec {sys.executable} {tmp_path / 'counting.py'}'")
    result = run(tmp_path / "run", f"--server-command={command}", "--revision=2026-07-28", "-k", "test_scenario and BAT-1",
                 "--conformance-timeout=5")
    assert result.returncode == 0, result.output[-3000:]
    assert set(result.statuses().values()) == {"pass"}


def test_stdio_stderr_goes_to_a_log_per_process_and_is_quoted_where_a_case_fails(tmp_path: Path) -> None:
    (tmp_path / "body_first.py").write_text(COUNTING.format(body_first=True))
    result = run(tmp_path / "run", f"--server-command={sys.executable} {tmp_path / 'body_first.py'}",
                 "--revision=2026-07-28", "-k", "BAT-1 or OPT-3")
    assert result.returncode == 1
    logs = sorted((tmp_path / "run" / "report" / "stdio").glob("*.log"))
    assert len(logs) == 3, logs  # reaching the target opens each revision once; then the cases' process
    assert all("COUNTING SERVER BANNER" in log.read_text() for log in logs)
    # Never among pytest's lines; quoted once, under the case that failed.
    assert result.output.count("COUNTING SERVER BANNER") == 0
    section = result.output.split("the stdio server's stderr while the case ran")
    assert len(section) == 2, result.output[-3000:]
    assert "counting: book_destination" in section[1] and "test_scenario[OPT-3-2026-07-28]" in section[0]
