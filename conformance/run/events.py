"""What the test runner tells the session: a case it collected (`Planned`), and a phase
of one that ended (`Ended`). Plain values, so the session never sees pytest's objects."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Planned:
    """A collected case, as the session needs it."""

    nodeid: str
    #: The test id, as a baseline names it: `test_scenario[OPT-3-2025-11-25]`.
    name: str
    path: Path
    #: The rows it claims, its first row first.
    checks: tuple[str, ...]
    revision: str | None
    #: It keeps a golden transcript (it is not marked `transcript_varies`).
    keeps_golden: bool = True
    #: The catalog tools it declares it calls (`@pytest.mark.tools`): the contract's list.
    tools: tuple[str, ...] = ()


@dataclass(frozen=True)
class Ended:
    """One phase of a case (setup, call, teardown), as the test runner saw it end."""

    nodeid: str
    when: str
    #: "passed", "failed" or "skipped".
    result: str
    duration: float = 0.0
    #: Whether the phase raised anything at all.
    raised: bool = False
    #: What it raised, unwrapped (`verdict.unwrapped`); None where nothing did, or where
    #: the runner failed the case itself (its report then stands).
    error: BaseException | None = None
    #: The runner's own words: a failure's first line, or a skip's reason.
    message: str = ""
    #: The expected-failure reason, where the runner counted the phase as one.
    xfail: str | None = None
