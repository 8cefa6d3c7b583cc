"""A verdict-table cell: what the cases checking one row proved of it on one revision,
kept as its verdict and its text until a renderer writes one or the other."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from elicit_conformance.status import ROW_ONLY, Status

#: A verdict-table cell's order, worst first; a row's "not reached", "not evaluated" and
#: "recorded" rank alike, after all of these.
_CELLS = tuple(s for s in Status if s not in ROW_ONLY or s == Status.SHOULD_NOT_MET)


def rank(status: str) -> int:
    return _CELLS.index(status)


@dataclass(frozen=True)
class Cell:
    """One verdict-table cell: the verdict it stands for (a `Status`; "" where no case
    checks the row) and its whole text, what a reader sees ("pass (1 of 2 cases; ...)")."""

    status: str = ""
    text: str = ""


def cell(results: list[tuple[str, str]]) -> Cell:
    """One verdict-table cell from the (row status, cause) of each case checking the row.

    A row fails only where one of its own checks failed; a pass is never hidden by
    a sibling case that proved nothing, and that case's reason is said beside it:
    "pass (1 of 2 cases; 1 not testable: book_profile missing)".
    """
    counts = Counter(status for status, _ in results)
    total = len(results)
    for worst in (Status.FAIL, Status.TIMED_OUT, Status.EXPECTED, Status.SHOULD_NOT_MET):
        if counts[worst]:
            return Cell(worst, str(worst) + (f" ({counts[worst]} of {total} cases)" if total > 1 else ""))
    proved = counts[Status.PASS]
    others: dict[str, set[str]] = {}
    for status, why in results:
        if status != Status.PASS:
            others.setdefault(status, set()).update([why] if why else [])
    ranked = sorted(others.items(), key=lambda item: rank(item[0]) if item[0] in _CELLS else 99)
    said = "; ".join(f"{counts[status]} {status}" + (f": {', '.join(sorted(causes))}" if causes else "")
                     for status, causes in ranked)
    if proved:
        return Cell(Status.PASS, "pass" if not others else f"pass ({proved} of {total} cases; {said})")
    if len(others) == 1:
        status, causes = ranked[0]
        return Cell(status, f"{status}" + (f": {', '.join(sorted(causes))}" if causes else "")
                    + (f" ({total} cases)" if total > 1 else ""))
    return Cell(ranked[0][0], said)
