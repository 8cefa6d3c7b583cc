"""The conformance report: what each case concluded, for machines and for a PR.

`--conformance-report DIR` writes

- `index.json`: one row per case (case, revision, level, status, duration,
  transcript path, and why it did not pass);
- `transcripts/<case>.jsonl`: the normalized wire transcript, one message a line;
- `summary.md`: a table a person reads in a pull-request comment;
- `verdicts.md`: the same, one line per case ID with a column per revision.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: Statuses, in the order the summary lists them.
STATUSES = ("fail", "not testable", "stale baseline", "expected failure", "pass", "skipped", "not run")


@dataclass
class Outcome:
    """One case's verdict, built up over its setup, call and teardown."""

    nodeid: str
    case: str
    checks: list[str]
    revision: str | None
    level: str
    status: str = "not run"
    duration: float = 0.0
    transcript: str | None = None
    #: First line of the failure, the baseline reason, or the skip reason.
    message: str = ""
    should_not_met: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)


class Report:
    def __init__(self, target: str, revisions: tuple[str, ...]) -> None:
        self.target = target
        self.revisions = revisions
        self.outcomes: dict[str, Outcome] = {}
        #: Run-level problems: uncovered requirement rows, stale baseline entries.
        self.problems: list[str] = []

    def counts(self) -> Counter[str]:
        return Counter(o.status for o in self.outcomes.values())

    @property
    def proved_nothing(self) -> bool:
        """Every case that ran was not testable: the target was never exercised."""
        ran = [o for o in self.outcomes.values() if o.status not in ("skipped", "not run")]
        return bool(ran) and all(o.status == "not testable" for o in ran)

    def headline(self) -> str:
        counts = self.counts()
        parts = [f"{counts[s]} {s}" for s in STATUSES if counts[s]]
        line = f"elicit-conformance against {self.target}: " + ", ".join(parts or ["no cases"])
        if self.proved_nothing:
            line += ". Every case was not testable: this run proved nothing about the target."
        return line

    # -- files ---------------------------------------------------------------

    def write_transcript(self, directory: Path, outcome: Outcome, lines: list[dict[str, Any]]) -> None:
        path = Path("transcripts") / (_file_safe(outcome.nodeid) + ".jsonl")
        (directory / path).parent.mkdir(parents=True, exist_ok=True)
        with (directory / path).open("w", encoding="utf-8") as out:
            for line in lines:
                out.write(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n")
        outcome.transcript = path.as_posix()

    def write(self, directory: Path, order: list[str] | None = None) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        index = {
            "target": self.target,
            "revisions": list(self.revisions),
            "totals": dict(self.counts()),
            "proved_nothing": self.proved_nothing,
            "problems": self.problems,
            "cases": [asdict(o) for o in self.outcomes.values()],
        }
        (directory / "index.json").write_text(json.dumps(index, indent=2, ensure_ascii=False) + "\n")
        (directory / "summary.md").write_text(self.markdown())
        (directory / "verdicts.md").write_text(self.matrix(order))

    def matrix(self, order: list[str] | None = None) -> str:
        """Case ID x revision; a cell is the worst status of that case's tests.

        `order` lists case IDs in the order to show them (the requirement
        table's); others follow alphabetically.
        """
        columns = [*self.revisions, "n/a"]
        cells: dict[tuple[str, str], str] = {}
        for o in self.outcomes.values():
            key = (o.case, o.revision or "n/a")
            if key not in cells or STATUSES.index(o.status) < STATUSES.index(cells[key]):
                cells[key] = o.status
        rank = {case: i for i, case in enumerate(order or [])}
        cases = sorted({case for case, _ in cells}, key=lambda c: (rank.get(c, len(rank)), c))
        used = [c for c in columns if any((case, c) in cells for case in cases)]
        lines = ["| Case | " + " | ".join(used) + " |", "|---|" + "---|" * len(used)]
        for case in cases:
            lines.append(f"| {case} | " + " | ".join(cells.get((case, c), "") for c in used) + " |")
        return "\n".join(lines) + "\n"

    def markdown(self) -> str:
        lines = [f"### {self.headline()}", ""]
        lines += [f"- {problem}" for problem in self.problems]
        if self.problems:
            lines.append("")
        lines += ["| Case | Revision | Level | Status | Note |", "|---|---|---|---|---|"]
        order = {status: index for index, status in enumerate(STATUSES)}
        for o in sorted(self.outcomes.values(), key=lambda o: (order[o.status], o.case, o.nodeid)):
            note = o.message or "; ".join(o.should_not_met)
            lines.append(
                f"| {_cell(o.case)} | {o.revision or 'n/a'} | {o.level} | {o.status} | {_cell(note)} |"
            )
        lines.append("")
        return "\n".join(lines)


def _file_safe(nodeid: str) -> str:
    name = nodeid.rsplit("::", 1)[-1]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")


def _cell(text: str) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 160 else text[:157] + "..."
