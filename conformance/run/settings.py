"""What a run was asked, as plain values (the options and ini keys the plugin read), and
the target and golden transcripts they name.

Kept apart from pytest's `Config` so a session can be opened from a test, a script or
another runner with the same meaning the command line gives them.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from elicit_conformance.connection.target import (
    DEFAULT_SPEC,
    Target,
    client_module_target,
    client_target,
    command_target,
    load_target,
)
from elicit_conformance.exceptions import TargetError
from elicit_conformance.limits import DEFAULT_STARTUP, DEFAULT_TIMEOUT
from elicit_conformance.reporting.snapshot import Golden


@dataclass(frozen=True)
class Settings:
    #: `--server`, `$ELICIT_SERVER` and the `elicit_server` ini key, in that order of precedence.
    server: str | None = None
    environ_server: str | None = None
    ini_server: str | None = None
    #: `--server-command`: a stdio server's command.
    server_command: str | None = None
    #: `--client-command`: the command of a client under test (the client cases).
    client_command: str | None = None
    #: `--client`: a Python client under test, in-process (`module:function`).
    client: str | None = None
    #: Where a `module:app` target is imported from (where the user stands, as uvicorn does).
    here: Path | None = None
    #: One revision, or None for every revision.
    revision: str | None = None
    #: A requirement table other than the packaged one.
    requirements: Path | None = None
    baseline: Path | None = None
    not_implemented: Path | None = None
    report_dir: Path | None = None
    write_baseline: Path | None = None
    write_not_implemented: Path | None = None
    #: The target's golden transcripts, if it keeps them somewhere of its own.
    snapshots: Path | None = None
    #: Compare with the bundled reference's golden transcripts.
    golden_transcripts: bool = False
    update_snapshots: bool = False
    strict: bool = False
    timeout: float = DEFAULT_TIMEOUT
    startup: float = DEFAULT_STARTUP


def target_of(settings: Settings) -> Target:
    named = [flag for flag, value in (("--server", settings.server), ("--server-command", settings.server_command),
                                      ("--client-command", settings.client_command),
                                      ("--client", settings.client)) if value]
    if len(named) > 1:
        raise TargetError(f"{' and '.join(named)} {'both' if len(named) == 2 else 'each'} name a target: give one.")
    if settings.client_command:
        return client_target(settings.client_command)
    if settings.here is not None and str(settings.here) not in sys.path:
        sys.path.insert(0, str(settings.here))  # like uvicorn: `module:...` from where the user stands
    if settings.client:
        return client_module_target(settings.client)
    if settings.server_command:
        return command_target(settings.server_command)
    for spec, source in ((settings.server, "--server"), (settings.environ_server, "ELICIT_SERVER"),
                         (settings.ini_server, "ini")):
        if spec:
            return load_target(spec, source)
    return load_target(DEFAULT_SPEC, "default")


def golden_of(settings: Settings, target: Target) -> Golden | None:
    """Where the target's golden transcripts are kept: its own (`--conformance-snapshots`),
    or the bundled reference's, for the reference in-process or when asked for
    (`--golden-transcripts`)."""
    if settings.snapshots is not None:
        return Golden(settings.snapshots, settings.update_snapshots)
    if settings.golden_transcripts or (target.is_reference and target.kind == "module"):
        return Golden(Path(str(resources.files("elicit_conformance.snapshots"))), settings.update_snapshots)
    return None
