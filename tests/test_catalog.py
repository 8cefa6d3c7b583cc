"""The catalog itself: its expected rounds are the floor ORD-1 sets,
and the contract rendered from it says what the reference really does."""

import ast
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from elicit_conformance.catalog import load
from elicit_conformance.contract.page import data, render
from elicit_conformance.requirements import Table

CATALOG = load()


@pytest.mark.parametrize("case_id", list(CATALOG.scenarios))
def test_expected_rounds_equal_the_depth_of_the_question_graph(case_id: str) -> None:
    scenario = CATALOG.scenarios[case_id]
    tool = CATALOG.tools[scenario.tool]
    for number, round_ in enumerate(scenario.expect.rounds, start=1):
        for param in round_:
            assert tool.depth(param) == number, (case_id, param)
        ordered = tuple(p for p in tool.questions if p in round_)
        assert round_ == ordered, f"{case_id}: round {number} is not in signature order"
    assert CATALOG.floor(scenario) == len(scenario.expect.rounds)


def test_a_catalog_that_contradicts_itself_is_refused() -> None:
    from elicit_conformance.catalog import _scenario
    from elicit_conformance.exceptions import CatalogError

    good = {"tool": "book_destination", "arguments": {}, "answers": {}, "expect": {"rounds": [], "result": "x"}}
    for broken, says in [
        ({**good, "tool": "nope"}, "no tool 'nope'"),
        ({**good, "answers": {"seat": {"accept": "x"}}}, "asks no question 'seat'"),
        ({**good, "expect": {"rounds": [["destination"]], "result": "x", "error": []}}, "either a result or an error"),
        ({**good, "answers": {"destination": {"maybe": True}}}, "must accept, give content, decline or cancel"),
    ]:
        with pytest.raises(CatalogError, match=says):
            _scenario("X-1", broken, CATALOG.tools)


def _without_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _without_titles(v) for k, v in schema.items() if k not in ("title", "description")}
    return schema


def _asked_in_golden_transcripts() -> list[tuple[str, str, dict[str, Any]]]:
    """(tool, message, requested schema) for every question the reference asked in a snapshot."""
    asked = []
    for path in sorted(Path(str(resources.files("elicit_conformance.snapshots"))).rglob("*.jsonl")):
        tool = None
        for entry in map(json.loads, path.read_text().splitlines()):
            message = entry["message"]
            if message.get("method") == "tools/call":
                tool = message["params"]["name"]
            requests = [r.get("params", {}) for r in ((message.get("result") or {}).get("inputRequests") or {}).values()]
            if message.get("method") == "elicitation/create":
                requests.append(message["params"])
            asked += [(tool, r["message"], r["requestedSchema"]) for r in requests if "requestedSchema" in r]
    return asked


def test_contract_schemas_are_what_the_reference_asks() -> None:
    """docs/contract.md shows `Question.schema()`: it must be what was observed on the wire."""
    asked = _asked_in_golden_transcripts()
    assert len(asked) > 50, "the golden transcripts hold too few questions to judge the contract"
    for tool, message, schema in asked:
        matching = [
            q for q in CATALOG.tools[tool].questions.values()
            if re.fullmatch(re.sub(r"\\\{\w+\\\}", ".+", re.escape(q.message)), message)
        ]
        if not matching:
            continue  # a reworded question (DIG-1) or a resolver's own (RES-4)
        assert _without_titles(schema) in [q.schema() for q in matching], (tool, message, schema)


def test_contract_doc_is_up_to_date() -> None:
    docs = Path(__file__).resolve().parents[1] / "docs"
    assert (docs / "contract.md").read_text() == render(), (
        "docs/contract.md is stale: run `python -m elicit_conformance.contract docs/contract.md`")
    assert json.loads((docs / "contract.json").read_text()) == json.loads(json.dumps(data())), (
        "docs/contract.json is stale: run `python -m elicit_conformance.contract docs/contract.json`")


def _compared(tree: ast.AST) -> set[str]:
    """String literals a check compares with what the server sent: operands of a
    comparison, or what a text must start or end with, inside `check(...)`'s condition."""
    found: set[str] = set()
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) in ("check", "should") and len(call.args) > 1):
            continue
        for node in ast.walk(call.args[1]):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("startswith", "endswith"):
                operands = list(node.args)
            else:
                continue
            found |= {n.value for o in operands for n in ast.walk(o) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return found


def test_everything_a_case_compares_is_in_the_contract() -> None:
    """A server written from docs/contract.md alone can know every value a case
    compares its answers with: each literal is in the contract's text."""
    root = Path(__file__).resolve().parents[1] / "conformance"
    sources = [*sorted((root / "cases").rglob("*.py")), root / "grading" / "checks.py"]
    compared = {s for path in sources for s in _compared(ast.parse(path.read_text()))}
    assert len(compared) > 30, "too few compared literals found: the scan is broken"
    contract = " ".join(render().split())  # a script's lines wrap where a literal may
    assert not sorted(s for s in compared if " ".join(s.split()) not in contract)


def test_every_requirement_row_is_described_in_the_behaviour_document() -> None:
    behaviour = (Path(__file__).resolve().parents[1] / "docs" / "behaviour.md").read_text()
    missing = [row for row in Table.load().rows if f"**{row}**" not in behaviour]
    assert not missing, f"docs/behaviour.md does not describe {missing}"
