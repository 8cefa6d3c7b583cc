"""The conformance report: what each case concluded, for machines and for a PR.

`--conformance-report DIR` writes

- `index.json`: one row per case (test id, the rows it checks, revision, level,
  status, duration, transcript path, and why it did not pass);
- `transcripts/<case>.jsonl`: the normalized wire transcript, one message a line;
- `summary.md`: a table a person reads in a pull-request comment, a row per case;
- `verdicts.md`: a row per requirement (every row of the table that is not
  excluded) with a column per revision: the worst status among the cases that
  check it; blank where no case checks it on that revision, "not run" where
  none that checks it ran.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from elicit_conformance.requirements import Table

class Status(StrEnum):
    """A case's verdict, worst first: the order the summary lists them in."""

    FAIL = "fail"
    TIMED_OUT = "timed out"
    NOT_TESTABLE = "not testable"
    STALE = "stale baseline"
    EXPECTED = "expected failure"
    PASS = "pass"
    SKIPPED = "skipped"
    NOT_RUN = "not run"


#: The cases a baseline written from the run lists: those that do not pass.
FAILING = (Status.FAIL, Status.TIMED_OUT, Status.NOT_TESTABLE, Status.EXPECTED)
#: A verdict-table cell may also say that a SHOULD row's warning fired.
SHOULD_NOT_MET = "should not met"
_CELLS = (
    Status.FAIL, Status.TIMED_OUT, Status.NOT_TESTABLE, Status.STALE, Status.EXPECTED,
    SHOULD_NOT_MET, Status.PASS, Status.SKIPPED, Status.NOT_RUN,
)


@dataclass
class Outcome:
    """One case's verdict, built up over its setup, call and teardown."""

    nodeid: str
    #: The test id, as a baseline names it: `test_scenario[OPT-3-2025-11-25]`.
    test_id: str
    checks: list[str]
    revision: str | None
    level: str
    status: Status = Status.NOT_RUN
    duration: float = 0.0
    transcript: str | None = None
    #: First line of the failure, the baseline reason, or the skip reason.
    message: str = ""
    should_not_met: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def case(self) -> str:
        """The row the case is named for, its first check."""
        return self.checks[0]

    def to_data(self) -> dict[str, Any]:
        """Plain data, as a test report carries it from an xdist worker."""
        return {**asdict(self), "status": str(self.status)}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Outcome:
        return cls(**{**data, "status": Status(data["status"])})


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
        ran = [o for o in self.outcomes.values() if o.status not in (Status.SKIPPED, Status.NOT_RUN)]
        return bool(ran) and all(o.status == Status.NOT_TESTABLE for o in ran)

    def headline(self) -> str:
        counts = self.counts()
        parts = [f"{counts[s]} {s}" for s in Status if counts[s]]
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

    def write(self, directory: Path, table: Table) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        index = {
            "target": self.target,
            "revisions": list(self.revisions),
            "totals": dict(self.counts()),
            "proved_nothing": self.proved_nothing,
            "problems": self.problems,
            "cases": [{"case": o.case, **asdict(o)} for o in self.outcomes.values()],
        }
        (directory / "index.json").write_text(json.dumps(index, indent=2, ensure_ascii=False) + "\n")
        (directory / "summary.md").write_text(self.markdown())
        (directory / "verdicts.md").write_text(self.matrix(table))

    def matrix(self, table: Table) -> str:
        """Requirement row x revision: the worst status of the cases checking the row.

        A case cannot say which of its rows failed it, so a failing case marks
        every row it checks; a SHOULD row whose warning fired reads "should not met".
        """
        columns = [*self.revisions, "n/a"]
        cells: dict[tuple[str, str], str] = {}
        for o in self.outcomes.values():
            for row in o.checks:
                status: str = o.status
                if status == Status.PASS and any(n.startswith(f"{row} SHOULD") for n in o.should_not_met):
                    status = SHOULD_NOT_MET
                key = (row, o.revision or "n/a")
                if key not in cells or _rank(status) < _rank(cells[key]):
                    cells[key] = status
        rows = [r for r in table.rows.values() if not r.excluded]
        used = [c for c in columns if any(key[1] == c for key in cells)] or list(self.revisions)
        lines = ["| Requirement | Level | " + " | ".join(used) + " |", "|---|---|" + "---|" * len(used)]
        for row in rows:
            # Blank: no case checks the row on that revision; "not run": on none that ran.
            ran = any((row.id, c) in cells for c in used)
            lines.append(
                f"| {row.id} | {row.level} | "
                + " | ".join(cells.get((row.id, c), "" if ran else Status.NOT_RUN) for c in used) + " |"
            )
        return "\n".join(lines) + "\n"

    def markdown(self) -> str:
        lines = [f"### {self.headline()}", ""]
        lines += [f"- {problem}" for problem in self.problems]
        if self.problems:
            lines.append("")
        lines += ["| Test | Checks | Revision | Level | Status | Note |", "|---|---|---|---|---|---|"]
        for o in sorted(self.outcomes.values(), key=lambda o: (_rank(o.status), o.test_id)):
            note = o.message or "; ".join(o.should_not_met)
            lines.append(
                f"| {_cell(o.test_id)} | {' '.join(o.checks)} | {o.revision or 'n/a'} | {o.level} "
                f"| {o.status} | {_cell(note)} |"
            )
        lines.append("")
        return "\n".join(lines)

    def baseline(self, about: str) -> str:
        """A baseline file expecting every case that did not pass to fail again."""
        lines = [f"# elicit-conformance baseline, written from a run ({about}).",
                 "# Each entry: the test id, a colon, why it fails. Edit the reasons; delete what you fix."]
        for o in sorted(self.outcomes.values(), key=lambda o: o.test_id):
            if o.status in FAILING:
                # An expected failure's message is "baseline LABEL: reason"; keep the reason.
                reason = o.message.split(": ", 1)[-1] if o.status == Status.EXPECTED else o.message
                lines.append(f"{o.test_id}: {_one_line(reason or o.status)}")
        return "\n".join(lines) + "\n"


def _rank(status: str) -> int:
    return _CELLS.index(status)


def _file_safe(nodeid: str) -> str:
    name = nodeid.rsplit("::", 1)[-1]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")


def _one_line(text: str) -> str:
    # `#` would start a comment in the baseline file and cut the reason short.
    return " ".join(text.replace("#", "No.").split())


def _cell(text: str) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 160 else text[:157] + "..."
