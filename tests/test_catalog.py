"""The catalog itself: its expected rounds are the floor the brief sets (ORD-1),
and the contract rendered from it says what the reference really does."""

import json
import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from elicit_conformance.contract import render, requested_schema
from elicit_conformance.driver import catalog

CATALOG = catalog()


def depth(tool: str, param: str) -> int:
    questions = CATALOG["tools"][tool]["questions"]

    @cache
    def walk(name: str) -> int:
        needs = [n for n in questions[name].get("needs", []) if n in questions]
        return 1 + max((walk(n) for n in needs), default=0)

    return walk(param)


@pytest.mark.parametrize("case_id", list(CATALOG["scenarios"]))
def test_expected_rounds_equal_the_depth_of_the_question_graph(case_id: str) -> None:
    scenario = CATALOG["scenarios"][case_id]
    for number, round_ in enumerate(scenario["expect"]["rounds"], start=1):
        for param in round_:
            assert depth(scenario["tool"], param) == number, (case_id, param)
        ordered = [p for p in CATALOG["tools"][scenario["tool"]]["questions"] if p in round_]
        assert round_ == ordered, f"{case_id}: round {number} is not in signature order"


def test_every_scenario_tool_is_in_the_catalog() -> None:
    for case_id, scenario in CATALOG["scenarios"].items():
        assert scenario["tool"] in CATALOG["tools"], case_id


def _without_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _without_titles(v) for k, v in schema.items() if k not in ("title", "description")}
    return schema


def _asked_in_golden_transcripts() -> list[tuple[str, str, dict[str, Any]]]:
    """(tool, message, requested schema) for every question the reference asked in a snapshot."""
    asked = []
    for path in sorted(Path(str(resources.files("elicit_conformance.snapshots"))).rglob("*.json")):
        tool = None
        for entry in json.loads(path.read_text()):
            message = entry["message"]
            if message.get("method") == "tools/call":
                tool = message["params"]["name"]
            requests = [r.get("params", {}) for r in ((message.get("result") or {}).get("inputRequests") or {}).values()]
            if message.get("method") == "elicitation/create":
                requests.append(message["params"])
            asked += [(tool, r["message"], r["requestedSchema"]) for r in requests if "requestedSchema" in r]
    return asked


def test_contract_schemas_are_what_the_reference_asks() -> None:
    """docs/contract.md shows `requested_schema()`: it must be what was observed on the wire."""
    asked = _asked_in_golden_transcripts()
    assert len(asked) > 50, "the golden transcripts hold too few questions to judge the contract"
    for tool, message, schema in asked:
        matching = [
            q for q in CATALOG["tools"][tool]["questions"].values()
            if re.fullmatch(re.sub(r"\\\{\w+\\\}", ".+", re.escape(q["message"])), message)
        ]
        if not matching:
            continue  # a reworded question (DIG-1) or a resolver's own (RES-4)
        assert _without_titles(schema) in [requested_schema(q) for q in matching], (tool, message, schema)


def test_contract_doc_is_up_to_date() -> None:
    committed = (Path(__file__).resolve().parents[1] / "docs" / "contract.md").read_text()
    assert committed == render(), "docs/contract.md is stale: run `python -m elicit_conformance.contract docs/contract.md`"
