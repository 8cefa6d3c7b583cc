"""The conformance report: what each case concluded, for machines and for a PR.

`--conformance-report DIR` writes

- `index.json`: one row per case (test id, the rows it checks, revision, level,
  status, duration, transcript path, and why it did not pass);
- `transcripts/<case>.jsonl`: the normalized wire transcript, one message a line;
- `changes.md` (with golden transcripts): each case whose transcript differs from
  its golden file, with its verdict and the diff, and golden files no case owns;
- `index.html` (written beside them by `html.page`): the same for looking at, each
  transcript drawn as a conversation;
- `badge-<revision>.json`: a shields.io endpoint badge per revision ("93/93 MUST");
- `summary.md`: a table a person reads in a pull-request comment, a row per case;
- `verdicts.md`: a row per requirement (every row of the table that is not
  excluded) with a column per revision, saying what was proved of the row: a
  cell fails only where one of the row's own checks failed, and says how many
  of the cases checking it passed and why the others proved nothing (see
  `cell`); blank where no case checks it on that revision, "not run" where none
  that checks it ran.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from elicit_conformance.requirements import Requirement, Table
from elicit_conformance.exceptions import ReportError
from elicit_conformance.status import Status
from elicit_conformance.version import VERSION

from .cells import Cell, cell, rank
from .snapshot import Found, render


#: The cases a baseline written from the run lists: those that do not pass.
FAILING = (Status.FAIL, Status.TIMED_OUT, Status.NOT_TESTABLE, Status.EXPECTED)


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
    #: The verdict sentence, the baseline reason, or the skip reason.
    message: str = ""
    #: Why a not-testable or not-implemented case proved nothing, shared by many ("book_profile missing").
    cause: str = ""
    #: For an expected failure: its baseline entry's reason.
    expected_because: str = ""
    should_not_met: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    #: Per row it claims: {"status": ..., "message": ...} (see `run.judging.row_results`).
    rows: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Its golden transcript (`--conformance-snapshots`): the file, relative to the
    #: snapshot directory, what comparing found (`snapshot.Found`), and the diff.
    golden: str = ""
    golden_found: str = ""
    golden_diff: str = ""
    #: False for a case marked `transcript_varies`: its transcript differs run to run.
    pinned: bool = True
    #: Per row it claims, the row's source (`Table.source_of`): the specification's
    #: sentence, or the feature's promise.
    sources: dict[str, dict[str, str]] = field(default_factory=dict)
    #: The contract's tools the target lacked, where that made the case not testable.
    missing: list[str] = field(default_factory=list)
    #: A catalog scenario's rounds, the catalog's and the server's (`Case.rounds`).
    rounds: dict[str, list[list[str | None]]] = field(default_factory=dict)

    @property
    def case(self) -> str:
        """The row the case is named for, its first check."""
        return self.checks[0]

    def failed_rows(self) -> list[str]:
        """The rows the case failed by (where its sentence begins)."""
        return [row for row, result in self.rows.items() if result.get("status") in (Status.FAIL, Status.TIMED_OUT)]

    def to_data(self) -> dict[str, Any]:
        """Plain data, as a test report carries it from an xdist worker."""
        return {**asdict(self), "status": str(self.status)}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Outcome:
        return cls(**{**data, "status": Status(data["status"])})


#: How a target is reached, as a report names it (`Target.kind`).
TRANSPORTS = {"module": "in-process", "url": "HTTP", "command": "stdio", "client": "client command"}


class Rolled(NamedTuple):
    """The cases that proved nothing for one cause (a missing tool, a refused revision, no
    registration adapter): one line of a summary instead of one a case."""

    status: Status
    cause: str
    test_ids: tuple[str, ...]

    def said(self, ids: bool = True) -> str:
        """The line; with `ids`, the cases' test ids (the report's), else their count alone (the terminal's)."""
        count = len(self.test_ids)
        return f"{self.status}: {self.cause}: {count} case{'s' if count != 1 else ''}" + (
            f": {', '.join(self.test_ids)}" if ids else "")


class Report:
    def __init__(self, target: str, revisions: tuple[str, ...], transport: str = "") -> None:
        self.target = target
        self.revisions = revisions
        #: "in-process", "HTTP" or "stdio".
        self.transport = transport
        self.outcomes: dict[str, Outcome] = {}
        #: Run-level problems: uncovered requirement rows, stale baseline entries.
        self.problems: list[str] = []
        #: Golden transcripts of no collected case (`snapshot.Golden.unused`).
        self.unused_golden: list[str] = []
        #: Whether those were removed (`--snapshot-update`).
        self.unused_removed = False

    @classmethod
    def from_index(cls, index: dict[str, Any]) -> Report:
        """A report as its `index.json` holds it, enough to draw its verdict table
        again (the matrix across reports): each case's checks, revision, status,
        cause and rows."""
        report = cls(index.get("target", ""), tuple(index["revisions"]), index.get("transport", ""))
        for case in index["cases"]:
            report.outcomes[case["test_id"]] = Outcome(
                case["test_id"], case["test_id"], list(case["checks"]), case.get("revision"), case.get("level", ""),
                status=Status(case["status"]), cause=case.get("cause", ""), rows=case.get("rows", {}))
        return report

    def counts(self) -> Counter[str]:
        return Counter(o.status for o in self.outcomes.values())

    @property
    def proved_nothing(self) -> bool:
        """Every case that ran was not testable or not implemented: the target was never exercised."""
        ran = [o for o in self.outcomes.values() if o.status not in (Status.SKIPPED, Status.NOT_RUN)]
        return bool(ran) and all(o.status in (Status.NOT_TESTABLE, Status.NOT_IMPLEMENTED) for o in ran)

    def headline(self) -> str:
        counts = self.counts()
        parts = [f"{counts[s]} {s}" for s in Status if counts[s]]
        line = f"elicit-conformance against {self.target}: " + ", ".join(parts or ["no cases"])
        if self.proved_nothing:
            line += ". No case was testable: this run proved nothing about the target."
        return line

    # -- files ---------------------------------------------------------------

    def write_transcript(self, directory: Path, outcome: Outcome, lines: list[dict[str, Any]]) -> None:
        path = Path("transcripts") / (_file_safe(outcome.nodeid) + ".jsonl")
        (directory / path).parent.mkdir(parents=True, exist_ok=True)
        (directory / path).write_text(render(lines), encoding="utf-8")
        outcome.transcript = path.as_posix()

    def write(self, directory: Path, table: Table) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        index = {
            "target": self.target,
            "transport": self.transport,
            "suite": VERSION,
            "revisions": list(self.revisions),
            "totals": dict(self.counts()),
            "proved_nothing": self.proved_nothing,
            "problems": self.problems,
            "cases": [{"case": o.case, **asdict(o)} for o in self.outcomes.values()],
        }
        (directory / "index.json").write_text(json.dumps(index, indent=2, ensure_ascii=False) + "\n")
        (directory / "summary.md").write_text(self.markdown())
        (directory / "verdicts.md").write_text(self.matrix(table))
        if any(o.golden for o in self.outcomes.values()) or self.unused_golden:
            (directory / "changes.md").write_text(self.changes())
        for revision, badge in self.badges(table).items():
            (directory / f"badge-{revision}.json").write_text(json.dumps(badge) + "\n")

    def badges(self, table: Table) -> dict[str, dict[str, Any]]:
        """Per revision, a shields.io endpoint badge: how many of the MUST rows checked on
        it passed ("93/93 MUST"); green when all did, red when one failed, else yellow
        (some proved nothing: not testable, not implemented)."""
        columns, rows = self.verdict_table(table)
        badges = {}
        for i, revision in enumerate(columns):
            if revision not in self.revisions:
                continue  # registration's "n/a": no revision to name
            # A row skipped by design (registration over the wire), or whose check never
            # applied (ERA-7/http in-process), was not judged here: not counted.
            unjudged = (Status.NOT_RUN, Status.SKIPPED, Status.NOT_EVALUATED)
            judged = [cells[i].status for row, cells in rows
                      if row.level == "MUST" and cells[i].status and cells[i].status not in unjudged]
            passed = judged.count(Status.PASS)
            failed = any(status in (Status.FAIL, Status.TIMED_OUT) for status in judged)
            badges[revision] = {
                "schemaVersion": 1, "label": f"elicit-conformance {revision}", "message": f"{passed}/{len(judged)} MUST",
                "color": "red" if failed else "brightgreen" if passed == len(judged) else "yellow",
            }
        return badges

    def verdict_table(self, table: Table) -> tuple[list[str], list[tuple[Requirement, list[Cell]]]]:
        """Requirement row x revision: what the cases checking the row proved of it
        (`cell`); the columns, and each row not excluded with its cells."""
        columns = [*self.revisions, "n/a"]
        found: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for o in self.outcomes.values():
            for row in o.checks:
                result = o.rows.get(row) or {"status": str(o.status)}
                why = o.cause if result["status"] in (Status.NOT_TESTABLE, Status.NOT_IMPLEMENTED) else ""
                found.setdefault((row, o.revision or "n/a"), []).append((result["status"], why))
        used = [c for c in columns if any(key[1] == c for key in found)] or list(self.revisions)
        rows = []
        for row in (r for r in table.rows.values() if not r.excluded):
            # Blank: no case checks the row on that revision; "not run": on none that ran.
            ran = any((row.id, c) in found for c in used)
            rows.append((row, [cell(found[(row.id, c)]) if (row.id, c) in found
                               else (Cell() if ran else Cell(Status.NOT_RUN, str(Status.NOT_RUN))) for c in used]))
        return used, rows

    def matrix(self, table: Table) -> str:
        """`verdicts.md`: the verdict table in Markdown."""
        columns, rows = self.verdict_table(table)
        lines = ["| Requirement | Level | " + " | ".join(columns) + " | Source |",
                 "|---|---|" + "---|" * (len(columns) + 1)]
        lines += [f"| {row.id} | {row.level} | " + " | ".join(_cell(c.text) for c in cells)
                  + f" | {cited(table.source_of(row.id))} |" for row, cells in rows]
        return "\n".join(lines) + "\n"

    def rolled_up(self) -> list[Rolled]:
        """The cases that proved nothing (not testable, not implemented), by cause, worst first."""
        groups: dict[tuple[Status, str], list[str]] = {}
        for o in self.outcomes.values():
            if o.status in (Status.NOT_TESTABLE, Status.NOT_IMPLEMENTED):
                groups.setdefault((o.status, o.cause or o.message), []).append(o.test_id)
        return [Rolled(status, cause, tuple(sorted(found)))
                for (status, cause), found in sorted(groups.items(), key=lambda g: (rank(g[0][0]), g[0][1]))]

    def markdown(self) -> str:
        lines = [f"### {self.headline()}", ""]
        lines += [f"- {problem}" for problem in self.problems]
        lines += [f"- {rolled.said()}" for rolled in self.rolled_up()]
        if lines[2:]:
            lines.append("")
        lines += ["| Test | Checks | Revision | Level | Status | Note |", "|---|---|---|---|---|---|"]
        rolled = (Status.NOT_TESTABLE, Status.NOT_IMPLEMENTED)
        for o in sorted(self.outcomes.values(), key=lambda o: (rank(o.status), o.test_id)):
            if o.status in rolled:
                continue
            note = o.message or "; ".join(o.should_not_met)
            lines.append(
                f"| {_cell(o.test_id)} | {_checks_cell(o)} | {o.revision or 'n/a'} | {o.level} "
                f"| {o.status} | {_cell(note)} |"
            )
        lines.append("")
        return "\n".join(lines)

    # -- golden transcripts -----------------------------------------------------

    def golden(self, found: str) -> list[Outcome]:
        return [o for o in self.outcomes.values() if o.golden_found == found]

    @property
    def behaviour_changed(self) -> bool:
        """Whether a transcript differs from its golden file, has none, or a golden
        file belongs to no case: the run fails for it, apart from the verdicts."""
        return bool(self.golden(Found.CHANGED) or self.golden(Found.MISSING)
                    or (self.unused_golden and not self.unused_removed))

    def golden_summary(self) -> str:
        counts = Counter(o.golden_found for o in self.outcomes.values() if o.golden_found)
        parts = [f"{counts[f]} {f}" for f in Found if counts[f]]
        if self.unused_golden:
            parts.append(f"{len(self.unused_golden)} {'removed' if self.unused_removed else 'unused'}")
        return "golden transcripts: " + (", ".join(parts) or "none compared")

    def changes(self) -> str:
        """`changes.md`: each case whose transcript changed, with its verdict and diff."""
        lines = [f"### {self.golden_summary()}", ""]
        changed = sorted(self.golden(Found.CHANGED), key=lambda o: o.test_id)
        missing = sorted(self.golden(Found.MISSING), key=lambda o: o.test_id)
        if not (changed or missing or self.unused_golden):
            return "\n".join([*lines, "No transcript changed.", ""])
        for o in changed:
            lines += [f"#### `{o.test_id}` ({o.status})", "", f"`{o.golden}`:", "", "```diff",
                      o.golden_diff.rstrip("\n"), "```", ""]
        if missing:
            lines += ["#### No golden transcript yet (write them with `--snapshot-update`)", ""]
            lines += [f"- `{o.test_id}` ({o.status}): `{o.golden}`" for o in missing] + [""]
        if self.unused_golden:
            what = ("Removed" if self.unused_removed else
                    "Belonging to no case that keeps one (remove them with `--snapshot-update`)")
            lines += [f"#### {what}", ""] + [f"- `{name}`" for name in self.unused_golden] + [""]
        return "\n".join(lines)

    def baseline(self, about: str, missing_declared: bool = False) -> str:
        """A baseline file expecting every case that did not pass to fail again; with
        `missing_declared` (a not-implemented file written from the same run), not those
        that lacked a tool: that file declares them, and they end "not implemented"."""
        lines = [f"# elicit-conformance baseline, written from a run ({about}).",
                 "# Each entry: the test id, a colon, why it fails. Edit the reasons; delete what you fix."]
        for o in sorted(self.outcomes.values(), key=lambda o: o.test_id):
            if o.status in FAILING and not (missing_declared and o.missing):
                reason = o.expected_because if o.status == Status.EXPECTED else o.message
                lines.append(f"{o.test_id}: {_one_line(reason or o.status)}")
        return "\n".join(lines) + "\n"


    def not_implemented(self, about: str, declared: dict[str, str]) -> str:
        """A not-implemented file (`unimplemented.read`) naming every contract tool the
        target lacked in this run: those it declared, with their reasons, and those it did
        not, with a reason to write."""
        missing = {tool for o in self.outcomes.values() for tool in o.missing}
        lines = [f"# elicit-conformance not-implemented tools, written from a run ({about}).",
                 "# Each line: TOOL: why the target leaves it out. Edit the reasons; delete a line once you implement it."]
        for tool in sorted(missing | set(declared)):
            lines.append(f"{tool}: {_one_line(declared.get(tool, 'not listed by the target in this run'))}")
        return "\n".join(lines) + "\n"


def _checks_cell(outcome: Outcome) -> str:
    """The rows a case checks, each with its result where that is not a pass, and
    then its source: a link to the specification's sentence, or the feature's promise."""
    return " ".join(
        row if (result := outcome.rows.get(row, {}).get("status", Status.PASS)) in (Status.PASS, Status.RECORDED)
        else f"{row} ({result}; {cited(outcome.sources.get(row, {}))})"
        for row in outcome.checks
    )


def cited(source: dict[str, str]) -> str:
    """A row's source in a Markdown cell: `[MUST](url)`, or `feature: promise`."""
    if "url" in source:
        return f"[{source.get('keyword', 'source')}]({source['url']})"
    return f"feature: {source['promise']}" if "promise" in source else "no source"


def _file_safe(nodeid: str) -> str:
    name = nodeid.rsplit("::", 1)[-1]
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")


def _one_line(text: str) -> str:
    # `#` would start a comment in the baseline file and cut the reason short.
    return " ".join(text.replace("#", "No.").split())


def _cell(text: str) -> str:
    """Text for a Markdown table cell: escaped, one line, cut at a word (index.json keeps it whole)."""
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 400 else text[:397].rsplit(" ", 1)[0] + " ..."


def load_index(path: Path) -> dict[str, Any]:
    """A report's `index.json`, from the file or the directory a run wrote.

    Raises:
        ReportError: There is none, or it is not a report's.
    """
    index = path / "index.json" if path.is_dir() else path
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data["cases"], list):
            raise TypeError("no list of cases")
        return data
    except FileNotFoundError:
        raise ReportError(f"{index} does not exist: give a directory a run wrote with --conformance-report") from None
    except (ValueError, KeyError, TypeError) as error:
        raise ReportError(f"{index} is not a conformance report's index ({error})") from None
