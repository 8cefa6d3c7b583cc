"""What changed between two runs: `python -m elicit_conformance.compare OLD NEW`.

OLD and NEW are report directories (`--conformance-report`), say of a server's main
branch and of a pull request. The output is Markdown for a pull-request comment:
each case whose verdict changed (pass -> fail, a new NOT TESTABLE, ...), then each
case whose normalized transcript changed, as a short diff. It exits 1 when a
verdict got worse, so that CI fails on it; a transcript change alone is reported,
not judged (a behaviour change is not a conformance failure unless a check fails).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elicit_conformance.exceptions import ReportError
from elicit_conformance.reporting.report import load_index
from elicit_conformance.reporting.snapshot import diff
from elicit_conformance.status import Status

#: Worst first, as the report orders statuses; "absent" is a case a run did not have.
_ORDER = [str(s) for s in Status]
ABSENT = "absent"



@dataclass(frozen=True)
class Change:
    test_id: str
    before: str
    after: str

    @property
    def worse(self) -> bool:
        """A case that passed (or was expected to fail, or not implemented) and no longer
        does, or a case new in NEW that does not pass."""
        if self.after == ABSENT:
            return False
        if self.before == ABSENT:
            return self.after in (Status.FAIL, Status.TIMED_OUT, Status.NOT_TESTABLE, Status.STALE)
        return _ORDER.index(self.after) < _ORDER.index(self.before)


def read(directory: Path) -> dict[str, dict[str, Any]]:
    """The cases of a report, by test id."""
    try:
        return {case["test_id"]: case for case in load_index(directory)["cases"]}
    except (KeyError, TypeError) as error:
        raise ReportError(f"{directory} is not a conformance report ({error})") from None


def verdict_changes(old: Mapping[str, dict[str, Any]], new: Mapping[str, dict[str, Any]]) -> list[Change]:
    changes = [Change(test_id, old.get(test_id, {}).get("status", ABSENT), new.get(test_id, {}).get("status", ABSENT))
               for test_id in sorted(set(old) | set(new))]
    return [c for c in changes if c.before != c.after]


def transcript_changes(old_dir: Path, old: Mapping[str, dict[str, Any]],
                       new_dir: Path, new: Mapping[str, dict[str, Any]]) -> dict[str, str]:
    """Test id -> diff, for each case both runs have whose transcript differs (but
    those whose transcripts vary run to run, marked `transcript_varies`)."""
    found = {}
    for test_id in sorted(set(old) & set(new)):
        if not (old[test_id].get("pinned", True) and new[test_id].get("pinned", True)):
            continue
        before, after = _transcript(old_dir, old[test_id]), _transcript(new_dir, new[test_id])
        if before is not None and after is not None and before != after:
            found[test_id] = diff(before, after, new[test_id]["transcript"], (str(old_dir), str(new_dir)))
    return found


def _transcript(directory: Path, case: dict[str, Any]) -> str | None:
    path = case.get("transcript")
    return (directory / path).read_text(encoding="utf-8") if path and (directory / path).is_file() else None


def markdown(changes: list[Change], transcripts: Mapping[str, str], old: Path, new: Path) -> str:
    worse = [c for c in changes if c.worse]
    lines = [f"### elicit-conformance: {len(changes)} verdict(s) changed, {len(worse)} worse; "
             f"{len(transcripts)} transcript(s) changed", "", f"From `{old}` to `{new}`.", ""]
    if changes:
        lines += ["| Test | Before | After | |", "|---|---|---|---|"]
        lines += [f"| `{c.test_id}` | {c.before} | {c.after} | {'worse' if c.worse else ''} |" for c in changes]
        lines.append("")
    for test_id, text in transcripts.items():
        lines += [f"#### `{test_id}`", "", "```diff", text.rstrip("\n"), "```", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m elicit_conformance.compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="the report directory of the run to compare against (e.g. main)")
    parser.add_argument("new", type=Path, help="the report directory of this run")
    parser.add_argument("-o", "--output", type=Path, help="also write the Markdown to this file")
    args = parser.parse_args(argv)
    try:
        old, new = read(args.old), read(args.new)
    except ReportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    changes = verdict_changes(old, new)
    text = markdown(changes, transcript_changes(args.old, old, args.new, new), args.old, args.new)
    print(text)
    if args.output is not None:
        args.output.write_text(text, encoding="utf-8")
    return 1 if any(c.worse for c in changes) else 0


if __name__ == "__main__":
    sys.exit(main())
