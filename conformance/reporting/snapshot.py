"""Golden transcripts: what a target said on the wire, kept to see what changes.

One file per case and revision, in a directory the target's owner keeps
(`--conformance-snapshots=DIR`; the bundled reference's are the top-level
`snapshots/`). After each case (but those marked `transcript_varies`, whose
transcripts depend on timing or on generated input), the normalized transcript is
compared with its file, whatever the case's verdict. A difference is a behaviour change, reported beside the verdicts, never as
one: the case keeps its verdict, and the run fails for the change alone, with a
diff. `--snapshot-update` (the flag syrupy defines, installed with the suite)
writes the files instead, and removes those of cases that no longer exist.

A file is JSON Lines, one message per line with its keys sorted, so that a diff
names whole messages and two runs of a stable server are byte-identical.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

#: A diff shows this many messages around each change.
CONTEXT = 1
#: A diff line shows this much of a message around where it changed.
SHOWN = 240


class Found(StrEnum):
    """What the comparison of one case's transcript found."""

    SAME = "same"
    CHANGED = "changed"
    MISSING = "no golden file"
    WRITTEN = "written"


@dataclass(frozen=True)
class Comparison:
    found: Found
    #: The golden file, relative to the snapshot directory.
    file: str
    #: For CHANGED: a unified diff, one message a line, long messages clipped.
    diff: str = ""


def render(lines: Iterable[dict[str, Any]]) -> str:
    """A normalized transcript as its file holds it."""
    return "".join(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n" for line in lines)


def file_name(nodeid: str) -> str:
    """`<test module>/<test name>.jsonl`, the name without "/" (case IDs such as
    TYP-9/unlisted are part of test names)."""
    path, _, name = nodeid.partition("::")
    module = Path(path).stem
    return f"{module}/{name.rsplit('::', 1)[-1].replace('/', '')}.jsonl"


@dataclass(frozen=True)
class Golden:
    """A directory of golden transcripts, compared with or (`update`) written to."""

    directory: Path
    update: bool = False

    def compare(self, nodeid: str, text: str) -> Comparison:
        name = file_name(nodeid)
        path = self.directory / name
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old == text:
            return Comparison(Found.SAME, name)
        if self.update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return Comparison(Found.WRITTEN, name)
        if old is None:
            return Comparison(Found.MISSING, name)
        return Comparison(Found.CHANGED, name, diff(old, text, name))

    def unused(self, nodeids: Iterable[str]) -> list[str]:
        """Files that belong to none of `nodeids`, the cases collected that keep a golden
        transcript (a case renamed, removed, or marked `transcript_varies`): never the
        file of such a case, whatever its verdict."""
        wanted = {file_name(nodeid) for nodeid in nodeids}
        if not self.directory.is_dir():
            return []
        return sorted(name for path in self.directory.rglob("*.jsonl")
                      if (name := path.relative_to(self.directory).as_posix()) not in wanted)

    def remove(self, names: Iterable[str]) -> None:
        for name in names:
            path = self.directory / name
            path.unlink(missing_ok=True)
            if path.parent != self.directory and not any(path.parent.iterdir()):
                path.parent.rmdir()


def diff(old: str, new: str, name: str, labels: tuple[str, str] = ("golden", "this run")) -> str:
    """A unified diff of two transcripts, a message a line, each changed message
    clipped to where it changed; `labels` name where each came from."""
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), f"{labels[0]} {name}", labels[1],
                                      n=CONTEXT, lineterm=""))
    return "\n".join(_clipped(lines)) + "\n"


def _clipped(lines: list[str]) -> list[str]:
    """Each removed message paired with the added one that replaces it (the n-th of a
    run of removals with the n-th of the additions that follow it), both shown from a
    little before the first character where they differ."""
    start = [0] * len(lines)
    removed: list[int] = []
    for i, line in enumerate(lines):
        if line.startswith(("---", "+++", "@@", " ")):
            removed = []
        elif line.startswith("-"):
            removed.append(i)
        elif removed:  # an addition right after removals: their pair
            old = removed.pop(0)
            same = len(os.path.commonprefix((lines[old][1:], line[1:])))
            start[old] = start[i] = max(0, same - SHOWN // 3)
    out = []
    for i, line in enumerate(lines):
        if line.startswith(("---", "+++", "@@")):
            out.append(line)
            continue
        sign, body = line[:1], line[1:]
        cut = body[start[i]:start[i] + SHOWN]
        out.append(f"{sign}{'…' if start[i] else ''}{cut}{'…' if start[i] + SHOWN < len(body) else ''}")
    return out
