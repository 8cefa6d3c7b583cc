"""The requirement table (`requirements.toml`) and which case checks which row.

A case names the rows it checks with `@pytest.mark.checks("BAT-1", ...)`; its
level is the strictest of theirs. The table is data so that a reviewer reads
the whole contract in one file, and so that a row nobody checks is caught:
`uncovered()` is what makes the run fail.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

Level = Literal["MUST", "SHOULD", "INFORMATIONAL"]
LEVELS: tuple[Level, ...] = ("MUST", "SHOULD", "INFORMATIONAL")


class TableError(Exception):
    """The requirement table, or a case's claim on it, is inconsistent."""


@dataclass(frozen=True)
class Requirement:
    id: str
    level: Level
    checks: str
    #: Why no case checks this row; None for a row that must have a case.
    excluded: str | None = None


class Table:
    def __init__(self, rows: Iterable[Requirement]) -> None:
        self.rows = {row.id: row for row in rows}

    @classmethod
    def load(cls, path: Path | None = None) -> Table:
        """The packaged table, or the one at `path`."""
        if path is None:
            text = resources.files("elicit_conformance").joinpath("requirements.toml").read_text()
        else:
            text = path.read_text()
        rows = []
        for raw in tomllib.loads(text).get("requirement", []):
            if raw.get("level") not in LEVELS:
                raise TableError(f"requirement {raw.get('id')!r}: level must be one of {LEVELS}")
            rows.append(Requirement(raw["id"], raw["level"], raw["checks"], raw.get("excluded")))
        return cls(rows)

    def level(self, ids: Iterable[str]) -> Level:
        """The strictest level among `ids`: a case is as strict as its strictest check."""
        return min((self.rows[i].level for i in ids), key=LEVELS.index, default="INFORMATIONAL")

    def check_claims(self, claims: dict[str, Iterable[str]]) -> None:
        """Every claimed ID is a row, and no case claims an excluded row.

        `claims` maps a case (node id) to the IDs it says it checks.
        """
        for case, ids in claims.items():
            for requirement_id in ids:
                row = self.rows.get(requirement_id)
                if row is None:
                    raise TableError(
                        f"{case} checks {requirement_id!r}, which is not in the requirement "
                        "table (conformance/requirements.toml): add the row or fix the ID."
                    )
                if row.excluded:
                    raise TableError(
                        f"{case} checks {requirement_id!r}, which the table excludes "
                        f"({row.excluded}): remove the exclusion or the claim."
                    )

    def uncovered(self, claimed: Iterable[str]) -> list[str]:
        """Rows that are not excluded and that no case checks."""
        covered = set(claimed)
        return [r.id for r in self.rows.values() if not r.excluded and r.id not in covered]
