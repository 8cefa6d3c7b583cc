"""Every requirement row names its source, and is no stricter than it."""

from __future__ import annotations

from pathlib import Path

import pytest

from elicit_conformance.clients import contract as client_contract
from elicit_conformance.fixtures import spec
from elicit_conformance.requirements import AUDIT, Table, with_audit
from elicit_conformance.run.sides import CLIENT_TABLE

ROOT = Path(__file__).resolve().parents[1]
MRTR = "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr"


#: The server table and the client table, held to the same rules.
TABLES = {"server": None, "client": CLIENT_TABLE}


@pytest.mark.parametrize("table", list(TABLES.values()), ids=list(TABLES))
def test_every_row_has_a_source_no_stricter_than_its_sentence(table: Path | None) -> None:
    assert Table.load(table).source_problems() == []


def quote_problems(table: Table) -> list[str]:
    """Each specification row whose quote is not on the vendored page it cites, or whose
    anchor is not a heading there."""
    problems = []
    for row in table.rows.values():
        source = row.source
        if not source.specification:
            continue
        page = spec.page(str(source.url))
        if not page.holds(str(source.quote)):
            problems.append(f"{row.id}: its quote is not on {source.url.split('#')[0]}: {source.quote!r}")
        if "#" in str(source.url) and source.url.split("#", 1)[1] not in page.anchors:
            problems.append(f"{row.id}: #{source.url.split('#', 1)[1]} is not a heading of its page")
    return problems


@pytest.mark.parametrize("table", list(TABLES.values()), ids=list(TABLES))
def test_every_rows_quote_is_on_the_page_it_cites(table: Path | None) -> None:
    assert quote_problems(Table.load(table)) == []


def test_the_client_contract_is_current() -> None:
    assert (ROOT / "docs" / "client-contract.md").read_text() == client_contract.render(), (
        "docs/client-contract.md is stale: run `python -m elicit_conformance.clients.contract docs/client-contract.md`")


def test_an_edited_quote_or_a_wrong_anchor_is_found(tmp_path: Path) -> None:
    table = _table(tmp_path, f'''
[[requirement]]
id = "A"
level = "MUST"
checks = "a quote with one word changed"
url = "{MRTR}#server-requirements-basic-workflow"
keyword = "MUST NOT"
quote = "Servers MUST NOT send InputRequiredResult responses on any client requests."

[[requirement]]
id = "B"
level = "MUST"
checks = "the right sentence under an anchor the page has not"
url = "{MRTR}#server-requirements"
keyword = "MUST NOT"
quote = "Servers MUST NOT send InputRequiredResult responses on any other client requests."

[[requirement]]
id = "C"
level = "MUST"
checks = "two sentences of two sections stitched with an ellipsis"
url = "https://modelcontextprotocol.io/specification/2026-07-28/basic#messages"
keyword = "MUST"
quote = "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification. ... This is the source of truth for all protocol messages and structures."

[[requirement]]
id = "D"
level = "SHOULD"
checks = "right: the sentence as a reader sees it, markup and all"
url = "{MRTR}#error-handling"
keyword = "SHOULD"
quote = "If additional, unexpected parameters are provided in the InputResponses object, the server SHOULD ignore any information it does not recognize or need."
''')
    assert [p.split(":", 1)[0] for p in quote_problems(table)] == ["A", "B", "C"], quote_problems(table)


def test_a_vendored_page_that_is_not_the_pinned_copy_is_refused(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    name, _ = spec.PAGES[MRTR]
    (tmp_path / name).parent.mkdir(parents=True)
    (tmp_path / name).write_bytes((spec.HERE / name).read_bytes().replace(b"MUST NOT", b"SHOULD NOT", 1))
    monkeypatch.setattr(spec, "HERE", tmp_path)
    with pytest.raises(ValueError, match="not the pinned copy"):
        spec.page(MRTR)


def _table(tmp_path: Path, rows: str) -> Table:
    path = tmp_path / "requirements.toml"
    path.write_text(rows + '\n[[promise]]\nid = "answers"\nsays = "s"\nowed = "o"\n')
    return Table.load(path)


def test_a_row_without_a_source_or_stricter_than_its_sentence_is_found(tmp_path: Path) -> None:
    table = _table(tmp_path, f'''
[[requirement]]
id = "A"
level = "MUST"
checks = "no source"

[[requirement]]
id = "B"
level = "MUST"
checks = "a SHOULD sentence judged as a MUST"
url = "{MRTR}"
keyword = "SHOULD"
quote = "Servers SHOULD validate that the data provided by the client is a valid InputResponses object."

[[requirement]]
id = "C"
level = "SHOULD"
checks = "a MAY sentence judged as a SHOULD"
url = "{MRTR}"
keyword = "MAY"
quote = "The InputRequiredResult MAY include a requestState field."

[[requirement]]
id = "D"
level = "MUST"
checks = "a promise nobody made"
promise = "batching"

[[requirement]]
id = "E"
level = "SHOULD"
checks = "a keyword the quote does not hold, on a page that is not the specification"
url = "https://example.com/spec"
keyword = "SHOULD"
quote = "Servers validate."

[[requirement]]
id = "F"
level = "SHOULD"
checks = "right: a MUST sentence may make a SHOULD row, and a promise any row"
url = "{MRTR}"
keyword = "MUST NOT"
quote = "Servers MUST NOT send InputRequiredResult responses on any other client requests."

[[requirement]]
id = "G"
level = "MUST"
checks = "right"
promise = "answers"
''')
    problems = table.source_problems()
    assert [p.split(" ", 1)[0].rstrip(":") for p in problems] == ["A", "B", "C", "D", "E", "E"], problems
    assert "B is a MUST row, stricter than its sentence's SHOULD" in problems[1]
    assert "not a page of the specification" in problems[4] and "does not hold its keyword" in problems[5]


def test_the_audit_in_the_behaviour_document_is_current() -> None:
    page = (ROOT / "docs" / "behaviour.md").read_text()
    assert AUDIT[0] in page and page == with_audit(page, Table.load()), (
        "docs/behaviour.md's source audit is stale: run `python -m elicit_conformance.requirements docs/behaviour.md`")
