"""Every option and ini key of a conformance run: what the user can ask, and nothing
heavier than pytest and the standard library to ask it with."""

from __future__ import annotations

from pathlib import Path

import pytest

from elicit_conformance.limits import DEFAULT_STARTUP, DEFAULT_TIMEOUT
from elicit_conformance.revisions import ALL, ERAS


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("elicit-conformance")
    group.addoption(
        "--server",
        default=None,
        metavar="MODULE:ATTR|URL",
        help="Server under test: module:attribute (imported from the current "
        "directory, as uvicorn does) or the URL of a streamable-HTTP endpoint. "
        "Also $ELICIT_SERVER or the 'elicit_server' ini key; default: the bundled "
        "reference.",
    )
    group.addoption(
        "--server-command",
        default=None,
        metavar="COMMAND",
        help="Server under test over stdio: the command that starts it, e.g. "
        "'python -m myproject.server'. Started once per client identity (revision and "
        "declared elicitation modes) and kept for the run, as a desktop client does.",
    )
    group.addoption(
        "--revision",
        default=None,
        choices=(*ERAS, ALL),
        help="Protocol revision(s) to check (default: all).",
    )
    group.addoption(
        "--conformance-strict",
        action="store_true",
        default=None,
        help="Fail cases whose SHOULD rows are not met (by default they warn).",
    )
    group.addoption(
        "--conformance-timeout",
        default=None,
        type=float,
        metavar="SECONDS",
        help=f"Fail a case when the server does not answer one request within "
        f"SECONDS (default {DEFAULT_TIMEOUT:g}).",
    )
    group.addoption(
        "--conformance-startup",
        default=None,
        type=float,
        metavar="SECONDS",
        help=f"How long a stdio server may take to start: its first answer may take "
        f"SECONDS instead of the per-request timeout (default {DEFAULT_STARTUP:g}).",
    )
    group.addoption(
        "--conformance-baseline",
        default=None,
        metavar="FILE",
        type=Path,
        help="Expected failures, one per line: a test id ('test_scenario[OPT-3-2025-11-25]', "
        "or without the revision 'test_scenario[OPT-3]') or a requirement row "
        "('DIG-1', 'DIG-1[2026-07-28]'), a colon, the reason. An entry whose cases "
        "pass fails the run.",
    )
    group.addoption(
        "--conformance-write-baseline",
        default=None,
        metavar="FILE",
        type=Path,
        help="Write a baseline file with one entry per case that did not pass.",
    )
    group.addoption(
        "--conformance-not-implemented",
        default=None,
        metavar="FILE",
        type=Path,
        help="Tools the target deliberately does not implement, one per line, 'TOOL: reason'. "
        "Cases that need only those end 'not implemented' and do not fail the run; a listed "
        "tool the target has fails it. Also the 'elicit_not_implemented' ini key.",
    )
    group.addoption(
        "--conformance-report",
        default=None,
        metavar="DIR",
        type=Path,
        help="Write index.json, per-case JSONL transcripts, summary.md and verdicts.md to DIR.",
    )
    group.addoption(
        "--conformance-contract",
        nargs="?",
        const="-",
        default=None,
        metavar="FILE",
        help="Write what a target must implement (tools, questions, schemas, results, "
        "accepted errors) as Markdown to FILE, or to standard output, and exit.",
    )
    group.addoption(
        "--conformance-snapshots",
        default=None,
        metavar="DIR",
        type=Path,
        help="Keep the target's golden transcripts in DIR, one file per case and revision: "
        "each run compares every transcript with its file and fails, apart from the verdicts "
        "and with a diff, where one changed; --snapshot-update writes them. Also the "
        "'elicit_snapshots' ini key.",
    )
    group.addoption(
        "--golden-transcripts",
        action="store_true",
        default=None,
        help="Compare with the bundled reference's golden transcripts (automatic for the "
        "reference in-process; pass it when the reference is served over HTTP or stdio).",
    )
    parser.addini("elicit_server", "Server under test, as module:attribute or URL.", default=None)
    parser.addini(
        "elicit_not_implemented", "Tools the target does not implement (a file, as "
        "--conformance-not-implemented).", default=None
    )
    parser.addini(
        "elicit_requirements", "A requirement table other than the packaged one.", default=None
    )
    parser.addini(
        "elicit_snapshots", "The target's golden transcripts (a directory, as --conformance-snapshots).",
        default=None,
    )


#: The options that make any run a conformance run.
OPTIONS = (
    "server", "server_command", "revision", "conformance_strict", "conformance_timeout", "conformance_startup",
    "conformance_baseline", "conformance_write_baseline", "conformance_report", "golden_transcripts",
    "conformance_not_implemented", "conformance_snapshots",
)
