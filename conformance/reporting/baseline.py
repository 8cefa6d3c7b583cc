"""Expected failures, kept in the target's repository.

One entry per line, `KEY: reason`; `#` starts a comment. KEY is either

- a test id, as pytest prints it after `::`: `test_scenario[OPT-3-2025-11-25]`
  is that one case; without its revision, `test_scenario[OPT-3]` is the case on
  every revision (`test_sec_2_state_replayed_on_another_tool_or_arguments_is_rejected`
  likewise); or
- a requirement row, `DIG-1` or `DIG-1[2026-07-28]`: every case that checks it.

A matching case is expected to fail. When it passes, the entry is stale and the
run fails, so a baseline only ever shrinks to what is still true.
`--conformance-write-baseline=FILE` writes one from a run, an entry per case
that did not pass.

    # fastmcp-elicit baseline
    test_scenario[OPT-3-2025-11-25]: decline on the handshake era keeps going (issue #123)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from elicit_conformance.exceptions import BaselineError

_ROW = re.compile(r"^(?P<id>[A-Z]+-\d+(?:/[\w-]+)?|INFO/[\w-]+)(?:\[(?P<revision>[\d-]+)\])?$")
_TEST = re.compile(r"^test_\w*(?:\[[^\]]+\])?$")
_LINE = re.compile(r"^(?P<key>\S+?)\s*:\s*(?P<reason>.+)$")



@dataclass(frozen=True)
class Entry:
    #: A requirement row ID, or a test id (then `test` is True).
    id: str
    revision: str | None
    reason: str
    line: int
    test: bool = False

    @property
    def label(self) -> str:
        return self.id if self.revision is None else f"{self.id}[{self.revision}]"

    @property
    def said(self) -> str:
        """The entry as a case expected to fail reads it ("baseline OPT-3[2025-11-25]: ...")."""
        return f"baseline {self.label}: {self.reason}"

    def covers(self, test_id: str, checks: tuple[str, ...], revision: str | None) -> bool:
        if self.test:
            return self.id in (test_id, without_revision(test_id, revision))
        return self.id in checks and (self.revision is None or self.revision == revision)


def without_revision(test_id: str, revision: str | None) -> str:
    """`test_scenario[OPT-3-2025-11-25]` -> `test_scenario[OPT-3]`; `test_x[2026-07-28]` -> `test_x`."""
    if revision is None or "[" not in test_id:
        return test_id
    name, params = test_id[:-1].split("[", 1)
    kept = "-".join(part.strip("-") for part in params.split(revision) if part.strip("-"))
    return f"{name}[{kept}]" if kept else name


def read(path: Path, known_ids: set[str], revisions: tuple[str, ...]) -> list[Entry]:
    """Parse `path`; unknown row IDs and revisions are errors, since they would never match."""
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise BaselineError(f"--conformance-baseline={path}: {error.strerror}") from error
    entries = []
    for number, raw in enumerate(lines, start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        line = _LINE.match(text)
        key = line["key"] if line else ""
        if line is not None and _TEST.match(key):
            entries.append(Entry(key, None, line["reason"].strip(), number, test=True))
            continue
        row = _ROW.match(key)
        if row is None:
            raise BaselineError(
                f"{path}:{number}: {raw.strip()!r} is not 'TEST-ID: reason' (e.g. "
                "'test_scenario[OPT-3-2025-11-25]: ...') or 'ROW-ID[revision]: reason' "
                "(e.g. 'DIG-1[2026-07-28]: ...')"
            )
        entry = Entry(row["id"], row["revision"], line["reason"].strip(), number)
        if entry.id not in known_ids:
            raise BaselineError(f"{path}:{number}: {entry.id!r} is not a case ID of the requirement table")
        if entry.revision is not None and entry.revision not in revisions:
            raise BaselineError(
                f"{path}:{number}: revision {entry.revision!r} is not one of {', '.join(revisions)}"
            )
        entries.append(entry)
    return entries
