"""Every option and ini key of a conformance run: what the user can ask, and nothing
heavier than pytest and the standard library to ask it with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from elicit_conformance.limits import DEFAULT_STARTUP, DEFAULT_TIMEOUT
from elicit_conformance.revisions import ALL, ERAS

#: Every option, by its flag: what `addoption` takes (each defaults to None, "not given").
OPTIONS: dict[str, dict[str, Any]] = {
    "--server": dict(
        metavar="MODULE:ATTR|URL",
        help="Server under test: module:attribute (imported from the current "
        "directory, as uvicorn does) or the URL of a streamable-HTTP endpoint. "
        "Also $ELICIT_SERVER or the 'elicit_server' ini key; default: the bundled "
        "reference.",
    ),
    "--server-command": dict(
        metavar="COMMAND",
        help="Server under test over stdio: the command that starts it, e.g. "
        "'python -m myproject.server'. Started once per client identity (revision and "
        "declared elicitation modes) and kept for the run, as a desktop client does.",
    ),
    "--client-command": dict(
        metavar="COMMAND",
        help="Client under test (run the client cases: --pyargs elicit_conformance.clients): the "
        "command that runs it, started once per case with the scenario server's URL as its last "
        "argument and the scenario in MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_PROTOCOL_VERSION "
        "and MCP_CONFORMANCE_CONTEXT, as the official conformance suite's client mode starts it.",
    ),
    "--client": dict(
        metavar="MODULE:FUNCTION",
        help="Python client under test, in-process (the client cases): an `async def main(url)` that "
        "reads the scenario from the same MCP_CONFORMANCE_* variables as a client command, e.g. "
        "elicit_conformance.fixtures.clients.fastmcp_client:main. Each case runs it in the suite's "
        "process: what it prints and any exception it raises stand for a command's output and exit.",
    ),
    "--revision": dict(
        choices=(*ERAS, ALL),
        help="Protocol revision(s) to check (default: all).",
    ),
    "--conformance-strict": dict(
        action="store_true",
        help="Fail cases whose SHOULD rows are not met (by default they warn).",
    ),
    "--conformance-timeout": dict(
        type=float,
        metavar="SECONDS",
        help=f"Fail a case when the server does not answer one request within "
        f"SECONDS (default {DEFAULT_TIMEOUT:g}).",
    ),
    "--conformance-startup": dict(
        type=float,
        metavar="SECONDS",
        help=f"How long a stdio server may take to start: its first answer may take "
        f"SECONDS instead of the per-request timeout (default {DEFAULT_STARTUP:g}).",
    ),
    "--conformance-baseline": dict(
        metavar="FILE",
        type=Path,
        help="Expected failures, one per line: a test id ('test_scenario[OPT-3-2025-11-25]', "
        "or without the revision 'test_scenario[OPT-3]') or a requirement row "
        "('DIG-1', 'DIG-1[2026-07-28]'), a colon, the reason. An entry whose cases "
        "pass fails the run.",
    ),
    "--conformance-write-baseline": dict(
        metavar="FILE",
        type=Path,
        help="Write a baseline file with one entry per case that did not pass.",
    ),
    "--conformance-not-implemented": dict(
        metavar="FILE",
        type=Path,
        help="Tools the target deliberately does not implement, one per line, 'TOOL: reason'. "
        "Cases that need only those end 'not implemented' and do not fail the run; a listed "
        "tool the target has fails it. Also the 'elicit_not_implemented' ini key.",
    ),
    "--conformance-write-not-implemented": dict(
        metavar="FILE",
        type=Path,
        help="Write a not-implemented file (as --conformance-not-implemented reads) with every "
        "tool of the contract the target lacks, each with a reason to edit.",
    ),
    "--conformance-report": dict(
        metavar="DIR",
        type=Path,
        help="Write index.json, per-case JSONL transcripts, summary.md and verdicts.md to DIR.",
    ),
    "--conformance-contract": dict(
        nargs="?",
        const="-",
        metavar="FILE",
        help="Write what a target must implement (tools, questions, schemas, results, "
        "accepted errors) as Markdown to FILE, or to standard output, and exit.",
    ),
    "--conformance-contract-since": dict(
        metavar="OLD.json",
        type=Path,
        help="With --conformance-contract: write what changed in the contract since OLD.json "
        "(an earlier version's contract.json) instead of the whole contract.",
    ),
    "--conformance-snapshots": dict(
        metavar="DIR",
        type=Path,
        help="Keep the target's golden transcripts in DIR, one file per case and revision: "
        "each run compares every transcript with its file and fails, apart from the verdicts "
        "and with a diff, where one changed; --snapshot-update writes them. Also the "
        "'elicit_snapshots' ini key.",
    ),
    "--golden-transcripts": dict(
        action="store_true",
        help="Compare with the bundled reference's golden transcripts (automatic for the "
        "reference in-process; pass it when the reference is served over HTTP or stdio).",
    ),
}

#: Every ini key, with its help.
INI = {
    "elicit_server": "Server under test, as module:attribute or URL.",
    "elicit_not_implemented": "Tools the target does not implement (a file, as "
        "--conformance-not-implemented).",
    "elicit_requirements": "A requirement table other than the packaged one.",
    "elicit_snapshots": "The target's golden transcripts (a directory, as --conformance-snapshots).",
}

#: The options that make any run a conformance run (all but --conformance-contract and
#: its --conformance-contract-since, which write the contract and exit).
CONFORMANCE = tuple(flag.lstrip("-").replace("-", "_") for flag in OPTIONS
                    if not flag.startswith("--conformance-contract"))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("elicit-conformance")
    for flag, options in OPTIONS.items():
        group.addoption(flag, default=None, **options)
    for name, help_text in INI.items():
        parser.addini(name, help_text, default=None)
