"""The normative checks a scripted scenario's run must pass."""

from __future__ import annotations

import re

from elicit_conformance.catalog import Scenario, load
from elicit_conformance.driver import Run
from elicit_conformance.verdict import should
from elicit_conformance.wire import MODERN


def check_rounds(run: Run, scenario: Scenario, era: str) -> None:
    """Modern: exactly the expected rounds, each in signature order (BAT-3, BAT-4,
    ORD-1). Handshake: each question once, none before what it quotes (ORD-7); a call
    that must fail may stop asking at its first bad answer."""
    expected = [list(round_) for round_ in scenario.expect.rounds]
    asked = run.asked_params
    if era == MODERN:
        assert asked == expected, (
            f"rounds differ: expected {expected}, the server asked {asked} "
            f"(messages: {[[a.message for a in r] for r in run.rounds]})"
        )
        return
    flat = [param for round_ in asked for param in round_]
    wanted = [param for round_ in expected for param in round_]
    if scenario.expect.result is None and flat:
        # A call bound to fail may stop at the first bad answer: asked one by one,
        # the questions after it need never go out.
        assert len(set(flat)) == len(flat) and set(flat) <= set(wanted), (
            f"questions differ: expected some of {wanted}, each at most once, the server asked {flat}"
        )
    else:
        assert sorted(flat, key=str) == sorted(wanted), (
            f"questions differ: expected each of {wanted} once, the server asked {flat}"
        )
    questions = load().tools[scenario.tool].questions
    for index, param in enumerate(flat):
        for need in questions[param].needs:
            if need in questions:
                assert need in flat[:index], f"{param!r} was asked before {need!r}, which it quotes"


def names(text: str, name: str) -> bool:
    """Whether `text` names `name` as a word of its own: the tool `book_destination`
    in a generic error does not name the parameter `destination`."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def check_outcome(run: Run, scenario: Scenario, clear: str) -> None:
    """MUST: the result text, or a failed call naming `error`'s names.
    SHOULD (the row `clear`): a failure also names `error_should`'s names."""
    expect = scenario.expect
    if expect.result is not None:
        assert not run.failed, f"the call failed: {run.text}"
        assert run.text == expect.result, f"result {run.text!r}, expected {expect.result!r}"
        return
    assert run.failed, f"the call should have failed, but returned {run.text!r}"
    for name in expect.error:
        assert names(run.text, name), f"the error must name {name!r}: {run.text!r}"
    for name in expect.error_should:
        should(names(run.text, name), clear, f"the error names {name!r}: {run.text!r}")
