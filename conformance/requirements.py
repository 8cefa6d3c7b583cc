"""The requirement table (`requirements.toml`) and which case checks which row.

A case names the rows it checks with `@pytest.mark.checks("BAT-1", ...)`; its
level is the strictest of theirs. The table is data so that a reviewer reads
the whole contract in one file, and so that a row nobody checks is caught:
`uncovered()` is what makes the run fail.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Literal
from elicit_conformance.exceptions import TableError

Level = Literal["MUST", "SHOULD", "INFORMATIONAL"]
LEVELS: tuple[Level, ...] = ("MUST", "SHOULD", "INFORMATIONAL")
#: The strictest level a sentence with each RFC 2119 keyword can carry.
KEYWORDS: dict[str, Level] = {
    "MUST": "MUST", "MUST NOT": "MUST", "REQUIRED": "MUST", "SHALL": "MUST", "SHALL NOT": "MUST",
    "SHOULD": "SHOULD", "SHOULD NOT": "SHOULD", "RECOMMENDED": "SHOULD", "NOT RECOMMENDED": "SHOULD",
    "MAY": "INFORMATIONAL", "OPTIONAL": "INFORMATIONAL",
}
#: Where specification sentences live: the MCP specification and its extensions.
SPEC_HOSTS = ("https://modelcontextprotocol.io/specification/",
              "https://github.com/modelcontextprotocol/experimental-ext-tasks/")



@dataclass(frozen=True)
class Promise:
    """A promise of the declarative feature itself, beyond the specification: what a
    framework offering `Elicit` owes its users, and why."""

    id: str
    says: str
    owed: str


@dataclass(frozen=True)
class Source:
    """Where a row comes from: a sentence of the specification (`url`, `quote`,
    `keyword`), or a promise of the feature's own contract (`promise`). `why` says
    why a feature row is stricter than a related sentence, where one is, or why a
    sentence applies where that is not plain."""

    url: str | None = None
    quote: str | None = None
    keyword: str | None = None
    promise: str | None = None
    why: str | None = None

    @property
    def specification(self) -> bool:
        return self.url is not None


@dataclass(frozen=True)
class Requirement:
    id: str
    level: Level
    checks: str
    #: Why no case checks this row; None for a row that must have a case.
    excluded: str | None = None
    source: Source = Source()


class Table:
    def __init__(self, rows: Iterable[Requirement], promises: Iterable[Promise] = ()) -> None:
        self.rows = {row.id: row for row in rows}
        self.promises = {promise.id: promise for promise in promises}

    @classmethod
    def load(cls, path: Path | None = None) -> Table:
        """The packaged table, or the one at `path`."""
        if path is None:
            text = resources.files("elicit_conformance").joinpath("requirements.toml").read_text()
        else:
            text = path.read_text()
        data = tomllib.loads(text)
        rows = []
        for raw in data.get("requirement", []):
            if raw.get("level") not in LEVELS:
                raise TableError(f"requirement {raw.get('id')!r}: level must be one of {LEVELS}")
            source = Source(**{k: raw[k] for k in ("url", "quote", "keyword", "promise", "why") if k in raw})
            rows.append(Requirement(raw["id"], raw["level"], raw["checks"], raw.get("excluded"), source))
        return cls(rows, [Promise(p["id"], p["says"], p["owed"]) for p in data.get("promise", [])])

    def source_of(self, row_id: str) -> dict[str, str]:
        """A row's source as a report carries it: the sentence's `url`, `keyword` and
        `quote`, or the feature's `promise` with what it `says` (and `why`, if stricter)."""
        source = self.rows[row_id].source
        found = {k: v for k, v in asdict(source).items() if v is not None}
        if source.promise in self.promises:
            found["says"] = self.promises[source.promise].says
        return found

    def source_problems(self) -> list[str]:
        """Each row without a source, or judged stricter than its source: a sentence
        of the specification (its URL on the specification's pages, the sentence
        quoted with its keyword, a level no stricter than the keyword's) or a promise
        of the feature's contract the table defines."""
        problems = []
        for row in self.rows.values():
            source = row.source
            if source.specification and source.promise:
                problems.append(f"{row.id}: names both a specification sentence and a promise; a row has one source")
            elif source.specification:
                if not (source.url or "").startswith(SPEC_HOSTS):
                    problems.append(f"{row.id}: {source.url!r} is not a page of the specification or its extensions")
                if source.keyword not in KEYWORDS:
                    problems.append(f"{row.id}: keyword {source.keyword!r} is none of {list(KEYWORDS)}")
                elif LEVELS.index(row.level) < LEVELS.index(KEYWORDS[source.keyword]):
                    problems.append(f"{row.id} is a {row.level} row, stricter than its sentence's "
                                    f"{source.keyword} ({source.url})")
                if not source.quote or f"{source.keyword}" not in source.quote:
                    problems.append(f"{row.id}: the quoted sentence does not hold its keyword {source.keyword!r}")
            elif source.promise:
                if source.promise not in self.promises:
                    problems.append(f"{row.id}: promise {source.promise!r} is not among the table's promises")
            else:
                problems.append(f"{row.id} has no source: name the specification sentence (url, quote, keyword) "
                                "or the feature's promise it rests on")
        return problems

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


def audit(table: Table) -> str:
    """Every row with its source, as docs/behaviour.md shows it: for a sentence of
    the specification its keyword and words, for a promise of the feature what it
    promises and, where the row is stricter than a related sentence, why."""
    lines = ["| Row | Level | Source | Keyword | The sentence, or why a feature row is stricter than the specification |",
             "|---|---|---|---|---|"]
    for row in table.rows.values():
        source = row.source
        if source.specification:
            cited, keyword, said = f"[specification]({source.url})", source.keyword, f"\u201c{source.quote}\u201d"
            said += f" It applies here because {source.why}." if source.why else ""
        else:
            cited, keyword = f"feature: {source.promise}", "(contract)"
            said = f"Stricter than the specification: {source.why}." if source.why else "the promise, below"
        lines.append(f"| {row.id} | {row.level} | {cited} | {keyword} | {said.replace('|', '/')} |")
    promises = [f"- **{p.id}**: {p.says} *Why a framework owes it:* {p.owed}" for p in table.promises.values()]
    return "\n".join([*lines, "", "The feature's promises:", "", *promises]) + "\n"


AUDIT = ("<!-- audit:start -->\n", "<!-- audit:end -->\n")


def with_audit(page: str, table: Table) -> str:
    """`page` (docs/behaviour.md) with the block between its audit markers rewritten."""
    start, end = page.index(AUDIT[0]) + len(AUDIT[0]), page.index(AUDIT[1])
    return page[:start] + audit(table) + page[end:]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m elicit_conformance.requirements",
                                     description="Rewrite the source audit of every requirement row in a page.")
    parser.add_argument("page", help="the page holding the audit markers: docs/behaviour.md")
    page = Path(parser.parse_args().page)
    page.write_text(with_audit(page.read_text(), Table.load()))
