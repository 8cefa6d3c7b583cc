"""tests/shadow.py's own rules: what counts as the same, and which mutants it may import
into the reference's process. Its claim as a whole (the cases it leaves out run on the
mutant as on the reference) is checked by tests/test_mutants.py on a sample."""

from __future__ import annotations

from pathlib import Path

import mcp_types

from elicit_conformance.fixtures.mutants import HERE
from elicit_conformance.reference.rounds import Answer, Ask, State
from tests.shadow import _does_more_than_patch, strict


def test_the_same_is_the_same_type_in_the_same_order() -> None:
    assert strict({"a": 1, "b": [True, None]}) == strict({"a": 1, "b": [True, None]})
    # What == would call equal, but would reach the wire otherwise.
    assert strict(1) != strict(True)
    assert strict(1) != strict(1.0)
    assert strict({"a": 1, "b": 2}) != strict({"b": 2, "a": 1})
    assert strict([1, 2]) != strict((1, 2))


def test_the_engines_values_compare_by_what_they_hold() -> None:
    asked = State(answers={"x": Answer("accept", {"value": "Paris"}, "d1")}, asked={"y": "d2"})
    assert strict(asked) == strict(State(answers={"x": Answer("accept", {"value": "Paris"}, "d1")}, asked={"y": "d2"}))
    assert strict(asked) != strict(State(answers={"x": Answer("decline", None, "d1")}, asked={"y": "d2"}))
    request = mcp_types.ElicitRequest(params=mcp_types.ElicitRequestFormParams(
        message="Where?", requested_schema={"type": "object", "properties": {}}))
    same = request.model_copy(deep=True)
    assert strict(Ask({"x": request}, asked)) == strict(Ask({"x": same}, asked))
    # Fields set explicitly change what a model dumps, so they count.
    reworded = request.model_copy(update={"params": request.params.model_copy(update={"message": "Where to?"})})
    assert strict(request) != strict(reworded)


def test_other_objects_are_the_same_only_when_they_are_one() -> None:
    marker, other = object(), object()
    assert strict([marker]) == strict([marker])
    assert strict([marker]) != strict([other])
    looped: dict[str, object] = {}
    looped["self"] = looped
    assert strict(looped) == strict(looped)


def test_only_mutants_that_change_nothing_but_through_patch_are_imported(tmp_path: Path) -> None:
    assert _does_more_than_patch(HERE / "labels_dropped.py") is None
    assert _does_more_than_patch(HERE / "cancel_drops_default.py") is None  # settle_instead() patches
    # A counter kept between calls.
    assert "line" in (_does_more_than_patch(HERE / "same_wording_reasked.py") or "")
    # A middleware added through rewrite() is kept to run beside, the variant's module imported for it too.
    assert _does_more_than_patch(HERE / "task_created_with_round_state.py") is None
    assert _does_more_than_patch(HERE / "unasked_answers_refused.py") is None
    hand_made = tmp_path / "setter.py"
    hand_made.write_text("from elicit_conformance.reference import serve\nserve.declared = print\n")
    assert _does_more_than_patch(hand_made) == "its module does more than patch() at line 2"
