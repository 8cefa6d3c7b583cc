"""The pytest11 entry point: the suite's options, and nothing else until asked.

pytest loads this module in every project where the package is installed, so
it imports nothing but pytest and the standard library and does nothing at all
unless the run is a conformance run: an elicit-conformance option was given,
or the paths (or `--pyargs` modules) to test reach into the cases. Only then
is the target loaded and the grading plugin (`conformance.grading`)
registered. The fixtures live in `cases/conftest.py`, so they exist only for
the cases and can never capture a user's fixture of the same name.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from elicit_conformance.limits import DEFAULT_STARTUP, DEFAULT_TIMEOUT
from elicit_conformance.revisions import ALL, ERAS

CASES = Path(__file__).resolve().parent / "cases"


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
_OPTIONS = (
    "server", "server_command", "revision", "conformance_strict", "conformance_timeout", "conformance_startup",
    "conformance_baseline", "conformance_write_baseline", "conformance_report", "golden_transcripts",
    "conformance_not_implemented", "conformance_snapshots",
)


def wanted(config: pytest.Config) -> bool:
    """Whether this run is a conformance run (see the module docstring)."""
    if any(config.getoption(name) is not None for name in _OPTIONS):
        return True
    return any(_reaches_cases(path) for path in _arg_paths(config))


def _arg_paths(config: pytest.Config) -> list[Path]:
    paths = []
    for arg in config.args:
        name = str(arg).split("::", 1)[0]
        if config.option.pyargs and (origin := _module_path(name)) is not None:
            paths.append(origin)
        else:
            paths.append((config.invocation_params.dir / name).resolve())
    return paths


def _module_path(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))).resolve()
    return Path(spec.origin).resolve() if spec.origin else None


def _reaches_cases(path: Path) -> bool:
    """The path is in the cases, or is a folder whose collection walks into them.

    pytest never walks into a virtual environment, so a project folder holding
    the venv this package is installed in does not count.
    """
    if path == CASES or CASES in path.parents:
        return True
    if path not in CASES.parents:
        return False
    between = [p for p in CASES.parents if path in p.parents]
    return not any((p / "pyvenv.cfg").exists() or p.name == "site-packages" for p in between)


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("conformance_contract") is not None:
        from elicit_conformance.contract import write_contract

        write_contract(config.getoption("conformance_contract"))
        pytest.exit("contract written", returncode=pytest.ExitCode.OK)
    if wanted(config):
        activate(config)


def activate(config: pytest.Config) -> None:
    """Load the target and register the grading plugin, once per run."""
    from elicit_conformance.grading import activate as register

    register(config)
