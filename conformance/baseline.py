"""Expected failures, kept in the target's repository.

One entry per line, `CASE-ID: reason` or `CASE-ID[revision]: reason`; `#`
starts a comment. A case that checks an entry's ID (on that revision, if one is
given) is expected to fail. When it passes, the entry is stale and the run
fails, so a baseline only ever shrinks to what is still true.

    # fastmcp-elicit baseline
    OPT-3[2025-11-25]: decline on the handshake era keeps going (issue #123)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_LINE = re.compile(r"^(?P<id>[A-Z]+-\d+(?:/[\w-]+)?|INFO/[\w-]+)(?:\[(?P<revision>[\d-]+)\])?\s*:\s*(?P<reason>.+)$")


class BaselineError(Exception):
    """The baseline file cannot be read; the message gives the file and line."""


@dataclass(frozen=True)
class Entry:
    id: str
    revision: str | None
    reason: str
    line: int

    @property
    def label(self) -> str:
        return self.id if self.revision is None else f"{self.id}[{self.revision}]"

    def covers(self, checks: tuple[str, ...], revision: str | None) -> bool:
        return self.id in checks and (self.revision is None or self.revision == revision)


def read(path: Path, known_ids: set[str], revisions: tuple[str, ...]) -> list[Entry]:
    """Parse `path`; unknown IDs and revisions are errors, since they would never match."""
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise BaselineError(f"--conformance-baseline={path}: {error.strerror}") from error
    entries = []
    for number, raw in enumerate(lines, start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        match = _LINE.match(text)
        if match is None:
            raise BaselineError(
                f"{path}:{number}: {raw.strip()!r} is not 'CASE-ID: reason' or "
                "'CASE-ID[revision]: reason'"
            )
        entry = Entry(match["id"], match["revision"], match["reason"].strip(), number)
        if entry.id not in known_ids:
            raise BaselineError(f"{path}:{number}: {entry.id!r} is not a case ID of the requirement table")
        if entry.revision is not None and entry.revision not in revisions:
            raise BaselineError(
                f"{path}:{number}: revision {entry.revision!r} is not one of {', '.join(revisions)}"
            )
        entries.append(entry)
    return entries
