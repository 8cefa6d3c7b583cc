"""docs/implementations.md: which implementation conforms to which requirement.

The verdict matrix (`elicit_conformance.matrix`) of the reference and the two
peers, from what their runs' reports say, kept in fixtures/peers/reports/ (each
`kept` of a report: the cases' checks, revisions, statuses, causes and row
results; nothing that varies run to run). The tests that run each of them check
that what they kept is what a run says today (tests/test_compare.py for the
reference, tests/test_mcp_sdk_peer.py, tests/test_typescript_peer.py), and
tests/test_matrix.py that the page (and the MCP SDK peer's own table in docs/mcp-sdk.md)
is drawn from what is kept.
`python -m elicit_conformance.dev.regenerate --peers` rewrites both.

    python -m elicit_conformance.dev.implementations            # the page, from what is kept
    python -m elicit_conformance.dev.implementations NAME=REPORT  # keep a run's report, then the page
    python -m elicit_conformance.dev.implementations --official NAME=RESULTS  # keep a client's official runs
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from elicit_conformance.matrix import columns, markdown
from elicit_conformance.reporting.report import Report, load_index
from elicit_conformance.requirements import Table
from elicit_conformance.run.sides import CLIENT_TABLE

ROOT = Path(__file__).resolve().parents[2]
KEPT = ROOT / "fixtures" / "peers" / "reports"
#: The real clients' reports, of the client cases (`elicit_conformance.clients`).
CLIENTS_KEPT = ROOT / "fixtures" / "clients" / "reports"
PAGE = ROOT / "docs" / "implementations.md"
#: Each kept report, by file name, with its column label, in the page's order. The MCP SDK
#: peer gives the same verdicts in-process, over HTTP and over stdio (tests/test_mcp_sdk_peer.py).
IMPLEMENTATIONS = {
    "reference": "reference",
    "mcp-sdk": "MCP Python SDK peer",
    "typescript-http": "TypeScript SDK peer",
    "typescript-stdio": "TypeScript SDK peer",
}
#: The clients, the same way (tests/test_clients.py runs each and compares what is kept).
CLIENTS = {
    "fastmcp-client": "fastmcp 4.1",
    "fastmcp-4.2-client": "fastmcp 4.2",
    "mcp-sdk-client": "MCP Python SDK",
    "typescript-client": "TypeScript SDK",
}
#: The clients the official client scenarios run against: all of them (fastmcp 4.2's from the
#: built wheel's venv, tests/test_wheel.py; the others from this checkout's, tests/test_official_suite.py).
OFFICIAL_CLIENTS = tuple(CLIENTS)
CLIENTS_HEAD = """
## Clients

The client cases (`pytest --pyargs elicit_conformance.clients --client-command=...`) against
real clients, each through its adapter in `fixtures/clients/`: fastmcp 4.1 (4.1.4, with
fastmcp-tasks, in this repository's venv), fastmcp 4.2 (4.2.3, what pip resolves for the
suite installed without the tasks extra: tests/test_wheel.py's venv), the MCP Python SDK
(mcp 2.3.0) and the TypeScript SDK (@modelcontextprotocol/client 2.4.0, pinned by
`fixtures/clients/typescript/package-lock.json`): a row per client requirement
(docs/client-contract.md).

Every cell passes but a result of an unknown kind (CLI-24) and the tasked calls' (CLI-16 to
CLI-20, CLI-22 and CLI-23, the tasks extension).

A result whose `resultType` is `"itinerary"` completes the call on the three Python clients
(CLI-24: "A resultType of any value unrecognized by the client MUST be considered invalid"):
the MCP SDK's `ResultType` is an open union, `Literal["complete", "input_required"] | str`
(`mcp_types/_types.py:160-162`), and its session routes a tag no claim owns to the core arm,
`CallToolResult | InputRequiredResult` (`mcp/client/session.py:328-338`), whose
`CallToolResult` takes any string as its `result_type`; its comment expects such a tag to
"fail core validation there", which the open union does not. fastmcp calls through that
session (`fastmcp/client/mixins/tools.py:211`). The TypeScript SDK's 2026-07-28 decoder
refuses any kind but `complete` and `input_required` ("Unsupported result type",
`@modelcontextprotocol/client/dist/src-CeKsbNLO.mjs:3991-3996`). Only fastmcp
4.1 (with fastmcp-tasks) and the TypeScript SDK (with `@modelcontextprotocol/ext-tasks` 0.2.2)
declare the extension; the others are offered no task and read "not implemented". The MCP SDK
ships no tasks extension, only the hooks one is written on (`ClientExtension`, `ResultClaim`:
`mcp/client/extension.py:145`), and fastmcp 4.2 without the tasks extra lacks fastmcp-tasks,
whose import is what turns a `Client`'s task support on (`fastmcp/client/extension_hooks.py:1-20`).
fastmcp 4.1 drives both tasks to the call's result, answering the task's questions right, and
cancels a task with `tasks/cancel` through its task handle (`fastmcp_tasks/client.py:119-130`,
`:512-514`), but posts `tasks/get`, `tasks/update` and `tasks/cancel` without the `Mcp-Name`
header (CLI-17): its request classes
(`fastmcp_tasks/client_models.py:108-130`) leave the SDK's `name_param` unset, and the SDK's
session sets `Mcp-Name` only from it (`mcp/client/session.py:566-571`) or for `tools/call`,
`prompts/get` and `resources/read` (`mcp/shared/inbound.py:72-78`, `mcp/client/session.py:185-187`).
Since the case stops there, its CLI-16, CLI-18, CLI-19, CLI-22 and CLI-23 read "not reached",
though their checks held. It also polls a working task again after 20 ms whatever `pollIntervalMs` says
(CLI-20, a SHOULD, a warning): its delay is a backoff from 20 ms that `pollIntervalMs` only
caps (`fastmcp_tasks/client.py:64`, `:139-165`, `:293-300`). The TypeScript SDK client calls
through ext-tasks, whose 2026-07-28 requests go through a dispatcher the host supplies
(`ext-tasks/dist/client/sdk-client-adapter.d.ts:7`); its adapter posts them with the headers
ext-tasks gives, `Mcp-Name` among them (`ext-tasks/dist/client/port.js:110-116`).

What every client does that no row judges: each refuses a result without
`resultType` from the scenario's server, a 2026-07-28 one (whose results MUST carry it), and
the call fails. The MCP SDK's session validates every 2026-07-28 result against the revision's
schema (`mcp/client/session.py:591`, into `mcp_types/methods.py:654`), fastmcp's client calls
through that session (`fastmcp/client/mixins/tools.py:211`), and the TypeScript SDK's
2026-07-28 decoder says why in its error (`@modelcontextprotocol/client/dist/src-CeKsbNLO.mjs:3959`:
"the absent-means-complete bridge applies only to earlier-revision servers"). The sentence
("For backward compatibility with servers implementing earlier protocol versions ... clients
MUST treat an absent resultType as complete") binds results of earlier revisions' servers, so
CLI-6 judges what it binds here, that the client does not take such a result as asking (no
retry), as the official suite's `sep-2322-default-result-type-complete` does.
"""
OFFICIAL_HEAD = """
### Beside the official client mode

The official suite's client scenarios on asking (`@modelcontextprotocol/conformance`
0.2.0-alpha.12: `sep-2322-client-request-state`, `request-metadata`,
`elicitation-sep1034-client-defaults`), run against the same adapters
(tests/test_official_suite.py, and fastmcp 4.2's from the built wheel in tests/test_wheel.py; each adapter makes the calls of the official everything-client,
`fixtures/clients/adapter.py`'s `OFFICIAL`). Where both judge the same behaviour (the last
column names the row) they agree, and the test fails if they stop agreeing.

What the official scenarios check that this suite does not: the `MCP-Protocol-Version` header
on each POST and its match with `_meta`, `clientInfo`, and a retry with a supported version
after -32022 (`request-metadata`: version negotiation, not asking; the Python clients,
pinned to 2026-07-28 by their adapters, end the call on -32022, since the SDK's retry with
another version is in its automatic mode's probe, `mcp/client/_probe.py:72`); and a form's
defaults filled into an accepted answer (`elicitation-sep1034-client-defaults`: "Clients that
support defaults SHOULD pre-populate form fields with these values"; the official check fails
a client that does not support defaults, as no Python client does, which that sentence
allows, so this suite has no such row; the TypeScript SDK does it when the client declares
`elicitation.form.applyDefaults`, as its adapter does). Every official run fails on a client's
exit code where a call failed (all four on `sep-2322`, for the result without `resultType`).

What this suite checks that the official scenarios do not: a response under every key of a
round (CLI-4) and each the user's answer under its own key, declined and cancelled ones too
(CLI-7); several questions in one round; rounds that depend on earlier answers and a round of
state alone; the elicitation capability on every request, retries included (CLI-5; the official
check reads its shape where present); a request without `mode` answered as a form (CLI-10); a
bound on rounds (CLI-9); sampling and roots requests inside a round, dispatched to their
handlers and declared (CLI-12, CLI-13, CLI-14); a client without a handler accepting nothing
(CLI-15); a retry's result never cached (CLI-21); tasked calls, in both flows and cancelled
(CLI-16 to CLI-20, CLI-22, CLI-23); and the handshake era's capability (CLI-11).
"""
HEAD = """\
# Implementations

Which implementation conforms to which requirement: a row per requirement, a column
per implementation, transport and revision; each cell what that run proved of the row
(`pass`, `fail`, `should not met`, `not testable`, `not implemented`; blank where no case
checks the row there). The implementations are the reference (`reference/`), the MCP
Python SDK peer (docs/mcp-sdk.md says why each cell that does not pass does not) and the
TypeScript SDK peer (docs/typescript-sdk.md). Drawn by `python -m
elicit_conformance.matrix` from their reports (fixtures/peers/reports/); the same
command draws it for any reports of yours, with `--html` as a page.

<!-- generated by python -m elicit_conformance.dev.implementations: do not edit -->
"""


def kept(index: dict[str, Any]) -> dict[str, Any]:
    """What the matrix reads of a report, in a stable order (not its target: a URL's port
    and a stdio command's folder differ run to run; the page names each implementation)."""
    cases = sorted(index["cases"], key=lambda c: c["test_id"])
    return {
        "transport": index.get("transport", ""), "revisions": index["revisions"],
        "cases": [{"test_id": c["test_id"], "checks": c["checks"], "revision": c["revision"], "level": c["level"],
                   "status": c["status"], "cause": c["cause"],
                   "rows": {row: {"status": r["status"]} for row, r in c["rows"].items()}} for c in cases],
    }


def _kept_at(name: str) -> Path:
    return (CLIENTS_KEPT if name in CLIENTS else KEPT) / f"{name}.json"


def committed(name: str) -> dict[str, Any]:
    return json.loads(_kept_at(name).read_text(encoding="utf-8"))


def _matrix(implementations: dict[str, str], table: Table) -> str:
    return markdown([column for name, label in implementations.items()
                     for column in columns(label, Report.from_index(committed(name)), table)], table)


def page() -> str:
    return (HEAD + "\n" + _matrix(IMPLEMENTATIONS, Table.load())
            + CLIENTS_HEAD + "\n" + _matrix(CLIENTS, Table.load(CLIENT_TABLE))
            + OFFICIAL_HEAD + "\n" + official_table())


def keep(name: str, report: Path) -> None:
    if name not in IMPLEMENTATIONS and name not in CLIENTS:
        raise SystemExit(f"{name}: not one of {', '.join([*IMPLEMENTATIONS, *CLIENTS])}")
    _kept_at(name).write_text(json.dumps(kept(load_index(report)), indent=1) + "\n", encoding="utf-8")


#: Where docs/mcp-sdk.md holds the MCP SDK peer's own verdict table (`verdicts.md` of its
#: run, drawn again from its kept report), between these two lines.
SDK_PAGE = ROOT / "docs" / "mcp-sdk.md"
START, END = "<!-- verdicts:start -->\n", "<!-- verdicts:end -->"


def sdk_table() -> str:
    return Report.from_index(committed("mcp-sdk")).matrix(Table.load())


def with_sdk_table(doc: str) -> str:
    head, rest = doc.split(START, 1)
    return head + START + sdk_table() + END + rest.split(END, 1)[1]


#: The official suite's client scenarios on asking (0.2.0-alpha.12), each run against every
#: real client's adapter (tests/test_official_suite.py); what each found is kept here.
OFFICIAL_SCENARIOS = ("sep-2322-client-request-state", "request-metadata", "elicitation-sep1034-client-defaults")
OFFICIAL_KEPT = CLIENTS_KEPT / "official"
#: Where an official check and a client row judge the same behaviour: the two must agree.
SAME_BEHAVIOUR = {"sep-2322-client-request-state-echoed": "CLI-1", "sep-2322-client-jsonrpc-id-different": "CLI-3",
                  "sep-2322-client-no-state-omitted": "CLI-2", "sep-2322-client-parallel-isolation": "CLI-8",
                  "sep-2322-default-result-type-complete": "CLI-6"}


def run_official(official: Path, command: str, results: Path, env: dict[str, str], timeout: float) -> None:
    """Run each official client scenario against the client `command`, with the official
    suite installed in `official`, into `results` (what `official_found` reads)."""
    exits = {}
    for scenario in OFFICIAL_SCENARIOS:
        done = subprocess.run([str(official / "node_modules" / ".bin" / "conformance"), "client", "--command", command,
                               "--scenario", scenario, "-o", str(results / scenario)],
                              cwd=official, capture_output=True, text=True, timeout=timeout, env=env)
        if not list((results / scenario).rglob("checks.json")):
            raise RuntimeError(f"the official {scenario} wrote no checks:\n{done.stdout[-3000:]}{done.stderr[-2000:]}")
        exits[scenario] = done.returncode
    (results / "exits.json").write_text(json.dumps(exits), encoding="utf-8")


def official_found(results: Path) -> dict[str, Any]:
    """What official client runs found, from their output folder (`results/<scenario>/`,
    each holding the official suite's checks.json) and `exits` (scenario -> the official
    run's exit code): each check's status (its INFO lines, a log, left out)."""
    checks = {}
    for scenario in OFFICIAL_SCENARIOS:
        for found in sorted((results / scenario).rglob("checks.json")):
            checks.update({check["id"]: check["status"] for check in json.loads(found.read_text(encoding="utf-8"))
                           if check["status"] != "INFO"})
    exits = json.loads((results / "exits.json").read_text(encoding="utf-8"))
    return {"exits": {scenario: exits[scenario] for scenario in OFFICIAL_SCENARIOS}, "checks": dict(sorted(checks.items()))}


def official_committed(name: str) -> dict[str, Any]:
    return json.loads((OFFICIAL_KEPT / f"{name}.json").read_text(encoding="utf-8"))


def keep_official(name: str, results: Path) -> None:
    if name not in OFFICIAL_CLIENTS:
        raise SystemExit(f"{name}: not one of {', '.join(OFFICIAL_CLIENTS)}")
    OFFICIAL_KEPT.mkdir(exist_ok=True)
    (OFFICIAL_KEPT / f"{name}.json").write_text(json.dumps(official_found(results), indent=1) + "\n", encoding="utf-8")


def official_table() -> str:
    """The official client checks against each real client, beside this suite's row for the
    same behaviour."""
    found = {name: official_committed(name) for name in OFFICIAL_CLIENTS}
    lines = ["| official check | " + " | ".join(CLIENTS[name] for name in OFFICIAL_CLIENTS) + " | this suite |",
             "|---|" + "---|" * (len(OFFICIAL_CLIENTS) + 1)]
    for check in next(iter(found.values()))["checks"]:
        ours = SAME_BEHAVIOUR.get(check, "")
        lines.append(f"| {check} | " + " | ".join(found[name]["checks"].get(check, "") for name in OFFICIAL_CLIENTS)
                     + f" | {ours} |")
    lines.append(f"| the official run's exit code ({', '.join(OFFICIAL_SCENARIOS)}) | " + " | ".join(
        ", ".join(str(code) for code in found[name]["exits"].values()) for name in OFFICIAL_CLIENTS) + " | |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    official = False
    for argument in argv:
        if argument == "--official":
            official = True
            continue
        name, _, report = argument.partition("=")
        (keep_official if official else keep)(name, Path(report))
        official = False
    PAGE.write_text(page(), encoding="utf-8")
    SDK_PAGE.write_text(with_sdk_table(SDK_PAGE.read_text()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
