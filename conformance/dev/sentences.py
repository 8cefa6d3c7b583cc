"""The sentence manifest: every keyword sentence of the vendored specification pages
(fixtures/spec), each with the side it binds, whether a black-box test can observe it, and
what covers it: the rows that quote it (found, not listed), rows that check part of it
(`partly`), or why nothing does (`excluded`, `why`).

`python -m elicit_conformance.dev.sentences` checks the manifest against the pages and the
rows, adds an entry to fill in for each sentence it lacks, and redraws the coverage in
docs/behaviour.md and the whole listing in docs/sentences.md. tests/test_sentence_manifest.py
fails on a sentence of a page the manifest does not list, so a new revision of a page shows
at once what it adds.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from elicit_conformance.fixtures import spec
from elicit_conformance.requirements import Requirement, Table
from elicit_conformance.run.sides import CLIENT_TABLE

MANIFEST = spec.HERE / "sentences.toml"
ROOT = Path(__file__).resolve().parents[2]
BEHAVIOUR = ROOT / "docs" / "behaviour.md"
LISTING = ROOT / "docs" / "sentences.md"
START, END = "<!-- sentences:start -->", "<!-- sentences:end -->"
SIDES = ("server", "client", "both", "neither")
#: Why no row covers an observable sentence: the feature's surface does not reach it.
EXCLUSIONS = {
    "url-mode": "URL mode: Elicit asks form questions only, so a declaration never makes a URL-mode request",
    "outside": "outside declarative elicitation: a rule of another feature or of the protocol at large, which a "
               "declaration neither makes nor changes",
}
HEADER = """\
# The sentence manifest: every keyword sentence of the vendored pages (fixtures/spec), one
# entry each (conformance/dev/sentences.py reads it; docs/sentences.md lists it).
#   binds       server, client, both, or neither (a sentence on the protocol itself)
#   observable  whether a black-box test can see it kept or broken on the wire
#   partly      rows that check part of it without quoting it (a row that quotes it is found)
#   variants    for a freedom (MAY, or a SHOULD's other path): the legal variants that use it and
#               must pass (fixtures/variants, or the hand-written client's freedoms)
#   excluded    url-mode or outside: why no row need cover it (with `why`)
#   official    the official conformance suite's checks of the same sentence
#   why         why it is not observable, or excluded, or what `partly` leaves out
"""


@dataclass(frozen=True)
class Entry:
    page: str
    section: str
    text: str
    #: 2, 3, ... for the same words met again in the same section.
    occurrence: int = 1
    binds: str = ""
    observable: bool | None = None
    partly: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    #: Rows that quote the same words where the page says them of something else.
    elsewhere: tuple[str, ...] = ()
    excluded: str = ""
    official: tuple[str, ...] = ()
    why: str = ""

    @property
    def key(self) -> tuple[str, str, str, int]:
        return self.page, self.section, self.text, self.occurrence


@dataclass(frozen=True)
class Judged:
    """An entry with the rows that quote it."""

    entry: Entry
    rows: tuple[str, ...]

    @property
    def status(self) -> str:
        """covered (by a row, or a freedom by its legal variants), partly, excluded, not observable,
        or open (observable, and nothing covers it)."""
        if self.rows or self.entry.variants:
            return "covered"
        if self.entry.partly:
            return "partly"
        if self.entry.observable is False:
            return "not observable"
        return "excluded" if self.entry.excluded else "open"


def extracted() -> list[Entry]:
    """Every keyword sentence of every vendored page, as a bare entry."""
    found = []
    for url, (name, _) in spec.PAGES.items():
        found += [Entry(name, sentence.section, sentence.text, sentence.occurrence)
                  for sentence in spec.keyword_sentences(url)]
    return found


def load(path: Path = MANIFEST) -> list[Entry]:
    if not path.exists():
        return []
    return [Entry(**{k: tuple(v) if isinstance(v, list) else v for k, v in item.items()})
            for item in tomllib.loads(path.read_text(encoding="utf-8")).get("sentence", [])]


def dump(entries: Iterable[Entry], path: Path = MANIFEST) -> None:
    lines = [HEADER]
    for entry in entries:
        lines += ["[[sentence]]", f"page = {_toml(entry.page)}", f"section = {_toml(entry.section)}",
                  f"text = {_toml(entry.text)}"]
        if entry.occurrence > 1:
            lines.append(f"occurrence = {entry.occurrence}")
        lines.append(f"binds = {_toml(entry.binds)}")
        if entry.observable is not None:
            lines.append(f"observable = {'true' if entry.observable else 'false'}")
        for name in ("partly", "variants", "elsewhere", "official"):
            if getattr(entry, name):
                lines.append(f"{name} = [{', '.join(_toml(v) for v in getattr(entry, name))}]")
        for name in ("excluded", "why"):
            if getattr(entry, name):
                lines.append(f"{name} = {_toml(getattr(entry, name))}")
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")


def _toml(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def rows() -> list[Requirement]:
    """The server's and the client's rows that quote a sentence."""
    return [row for table in (Table.load(), Table.load(CLIENT_TABLE)) for row in table.rows.values()
            if row.source.specification and row.source.quote]


def quoting(entry: Entry, candidates: Iterable[Requirement]) -> tuple[str, ...]:
    """The rows whose quote holds a part of the sentence, or the whole of it, on its page."""
    found = []
    for row in candidates:
        name, _ = spec.PAGES.get(str(row.source.url).split("#", 1)[0], ("", ""))
        parts = [spec.as_read(part) for part in str(row.source.quote).split(" ... ")]
        if name == entry.page and row.id not in entry.elsewhere and any(
                part in entry.text or entry.text in part for part in parts if part):
            found.append(row.id)
    return tuple(found)


def judged(entries: Iterable[Entry]) -> list[Judged]:
    candidates = rows()
    return [Judged(entry, quoting(entry, candidates)) for entry in entries]


def problems(entries: list[Entry]) -> list[str]:
    """What is wrong with the manifest, each a sentence: a sentence of a page it does not
    list, one it lists that is not on the page, an entry not filled in or filled in wrong."""
    on_pages = {entry.key for entry in extracted()}
    listed = Counter(entry.key for entry in entries)
    known = {row.id for table in (Table.load(), Table.load(CLIENT_TABLE)) for row in table.rows.values()}
    variants = legal_variants()
    found = [f"{page} ({section}): not in the manifest: {text!r}" for page, section, text, _ in sorted(on_pages - set(listed))]
    found += [f"{page} ({section}): listed, but not on the page: {text!r}" for page, section, text, _ in
              sorted(set(listed) - on_pages)]
    found += [f"{key[0]}: listed {n} times: {key[2]!r}" for key, n in listed.items() if n > 1]
    for item in judged(entries):
        entry, said = item.entry, f"{item.entry.page}: {item.entry.text[:80]!r}"
        if entry.binds not in SIDES:
            found.append(f"{said}: binds {entry.binds!r}, not one of {', '.join(SIDES)}")
        if entry.observable is None:
            found.append(f"{said}: observable is not said")
        if entry.excluded and entry.excluded not in EXCLUSIONS:
            found.append(f"{said}: excluded {entry.excluded!r}, not one of {', '.join(EXCLUSIONS)}")
        if entry.excluded and (item.rows or entry.partly):
            found.append(f"{said}: excluded, yet rows cover it ({', '.join(item.rows + entry.partly)})")
        if (entry.excluded or entry.observable is False) and not entry.why:
            found.append(f"{said}: {'excluded' if entry.excluded else 'not observable'} without a why")
        found += [f"{said}: partly covered by {row}, which is no row" for row in entry.partly if row not in known]
        found += [f"{said}: {name} is no legal variant" for name in entry.variants if name not in variants]
    return found


def legal_variants() -> set[str]:
    """The server variants (fixtures/variants) and the hand-written client's freedoms, by name."""
    from elicit_conformance.fixtures import variants
    from elicit_conformance.fixtures.clients.raw_client import FREEDOMS

    here = Path(variants.__file__).parent
    return {path.stem for path in here.glob("*.py") if not path.stem.startswith("_")} | set(FREEDOMS)


def update(path: Path = MANIFEST) -> list[Entry]:
    """The manifest in page order, an entry to fill in added for each sentence it lacks and
    the entries no longer on a page dropped."""
    kept = {entry.key: entry for entry in load(path)}
    return [kept.get(entry.key, entry) for entry in extracted()]


@dataclass
class Tally:
    sentences: int = 0
    observable: int = 0
    covered: int = 0
    partly: int = 0
    excluded: int = 0
    official: int = 0
    #: Observable and covered by neither a row nor an exclusion.
    open: list[Judged] = field(default_factory=list)

    def add(self, item: Judged) -> None:
        self.sentences += 1
        if not item.entry.observable:
            return
        self.observable += 1
        self.covered += item.status == "covered"
        self.partly += item.status == "partly"
        self.excluded += item.status == "excluded"
        self.official += bool(item.entry.official)
        if item.status == "open":
            self.open.append(item)

    def cells(self) -> list[str]:
        rowable = self.observable - self.excluded
        return [str(self.sentences), str(self.observable), f"{self.covered} ({_share(self.covered, rowable)})",
                f"{self.covered + self.partly} ({_share(self.covered + self.partly, rowable)})", str(self.excluded),
                str(len(self.open)), f"{self.official} ({_share(self.official, self.observable)})"]


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "n/a"


def tallies(items: list[Judged]) -> dict[tuple[str, str], Tally]:
    """By page and side ("server": binds server or both; "client": client or both)."""
    found: dict[tuple[str, str], Tally] = {}
    for item in items:
        for side in ("server", "client"):
            if item.entry.binds in (side, "both"):
                for page in (item.entry.page, "all pages"):
                    found.setdefault((page, side), Tally()).add(item)
    return found


def coverage(items: list[Judged]) -> str:
    """docs/behaviour.md's section: the coverage per page and side."""
    lines = [START, "", "| page | binds | sentences | observable | covered: a row, or a freedom's legal variants (of "
             "those not excluded) | with rows covering part | excluded | open | checked by the official suite |",
             "|---|---|---|---|---|---|---|---|---|"]
    for (page, side), tally in sorted(tallies(items).items(), key=lambda kv: (kv[0][0] == "all pages", kv[0])):
        lines.append(f"| {page} | {side} | " + " | ".join(tally.cells()) + " |")
    return "\n".join([*lines, "", END])


def listing(items: list[Judged]) -> str:
    """docs/sentences.md: every sentence with what covers it."""
    lines = ["# Every keyword sentence, and what covers it", "",
             "Generated by `python -m elicit_conformance.dev.sentences` from fixtures/spec/sentences.toml; do not edit.",
             "The totals are in docs/behaviour.md (\"Every sentence, accounted for\").", ""]
    for page in dict.fromkeys(item.entry.page for item in items):
        lines += [f"## {page}", "", "| section | sentence | binds | status | rows | official | why |",
                  "|---|---|---|---|---|---|---|"]
        for item in (i for i in items if i.entry.page == page):
            entry = item.entry
            status = item.status if not entry.excluded else f"excluded ({entry.excluded})"
            cells = [entry.section, entry.text, entry.binds, status, ", ".join(item.rows + entry.variants or entry.partly),
                     ", ".join(entry.official), entry.why]
            lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
        lines.append("")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def with_coverage(page: str, items: list[Judged]) -> str:
    return re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: coverage(items), page, flags=re.S)


def main() -> int:
    entries = update()
    dump(entries)
    items = judged(entries)
    BEHAVIOUR.write_text(with_coverage(BEHAVIOUR.read_text(encoding="utf-8"), items), encoding="utf-8")
    LISTING.write_text(listing(items), encoding="utf-8")
    found = problems(entries)
    for problem in found:
        print(problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
