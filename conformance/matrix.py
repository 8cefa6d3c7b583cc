"""One verdict matrix across implementations: `python -m elicit_conformance.matrix REPORT...`.

Each REPORT is a directory a run wrote with `--conformance-report` (or its
`index.json`), optionally named `LABEL=REPORT` (default: the run's target). The
matrix has a row per requirement and a column per implementation x transport x
revision; a cell is what that run proved of the row, as its own `verdicts.md`
says it, shortened to its verdict (the whole text is the cell's tooltip in HTML):

    pass | fail | should not met | expected failure | not testable | not implemented | ...

Writes Markdown to stdout (or `-o FILE.md`) and, with `--html FILE.html`, the same
table as a page, coloured, one file. docs/implementations.md is this, for the
reference and the two peers (their reports are in fixtures/peers/reports/).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from elicit_conformance.exceptions import ReportError
from elicit_conformance.reporting.html import STYLE, verdicts
from elicit_conformance.reporting.cells import Cell
from elicit_conformance.reporting.report import Report, cited, load_index
from elicit_conformance.requirements import Table
from elicit_conformance.status import Status


@dataclass(frozen=True)
class Column:
    label: str
    transport: str
    revision: str
    #: The run's cell of each requirement row, by row ID (absent where no case checks it).
    cells: dict[str, Cell]

    @property
    def heading(self) -> str:
        return " ".join(part for part in (self.label, self.transport, self.revision) if part)


def columns(label: str, report: Report, table: Table) -> list[Column]:
    """A report's columns: one per revision it judged (registration's "n/a" only where
    it ran: over the wire its cases are skipped)."""
    names, rows = report.verdict_table(table)
    found = [Column(label, report.transport, name, {row.id: cells[i] for row, cells in rows})
             for i, name in enumerate(names)]
    return [c for c in found if any(cell.status not in ("", Status.SKIPPED) for cell in c.cells.values())]


def read(argument: str, table: Table) -> list[Column]:
    """`LABEL=REPORT` or `REPORT`.

    Raises:
        ReportError: REPORT is no report.
    """
    label, _, path = argument.rpartition("=") if "=" in argument else ("", "", argument)
    index = load_index(Path(path))
    try:
        report = Report.from_index(index)
    except (KeyError, TypeError, ValueError) as error:
        raise ReportError(f"{path}: a case of its index.json cannot be read ({error!r})") from None
    return columns(label or report.target, report, table)


def verdict(cell: Cell) -> str:
    """What a matrix cell shows: the verdict alone ("pass", not "pass (1 of 2 cases; ...)")."""
    return cell.status


def markdown(matrix: list[Column], table: Table) -> str:
    rows = [r for r in table.rows.values() if not r.excluded]
    lines = ["| Requirement | Level | " + " | ".join(c.heading for c in matrix) + " | Source |",
             "|---|---|" + "---|" * (len(matrix) + 1)]
    lines += [f"| {row.id} | {row.level} | " + " | ".join(verdict(c.cells.get(row.id, Cell())) for c in matrix)
              + f" | {cited(table.source_of(row.id))} |" for row in rows]
    return "\n".join(lines) + "\n"


def html(matrix: list[Column], table: Table) -> str:
    rows = [(row, [c.cells.get(row.id, Cell()) for c in matrix]) for row in table.rows.values() if not row.excluded]
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>elicit-conformance: '
            f"implementations</title><style>{STYLE}</style></head><body><h1>elicit-conformance: which "
            "implementation conforms to which requirement</h1>"
            + verdicts([c.heading for c in matrix], rows, table, verdict) + "</body></html>\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m elicit_conformance.matrix", description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="+", metavar="[LABEL=]REPORT",
                        help="a report directory (or its index.json), optionally named")
    parser.add_argument("-o", "--output", type=Path, help="write the Markdown here instead of stdout")
    parser.add_argument("--html", type=Path, help="also write the matrix as an HTML page here")
    args = parser.parse_args(argv)
    table = Table.load()
    try:
        matrix = [column for argument in args.reports for column in read(argument, table)]
    except ReportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    text = markdown(matrix, table)
    if args.output is None:
        print(text, end="")
    else:
        args.output.write_text(text, encoding="utf-8")
    if args.html is not None:
        args.html.write_text(html(matrix, table), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
