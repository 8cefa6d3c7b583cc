"""The catalog itself: its expected rounds are the floor the brief sets (ORD-1)."""

from functools import cache

import pytest

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
