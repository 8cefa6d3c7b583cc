"""WIR: every message the server sends, as the specification's schema defines it.

The scenarios below are swept on each revision for the kinds of message they
make the server send (listings, rounds of every answer type and choice form,
results, error results, JSON-RPC errors, a -32021 refusal); each is judged by
`mcp_types` (see `elicit_conformance.grading.wire_schema`), not by their outcome, which
their own cases judge.
"""

from __future__ import annotations

from collections import Counter

import pytest

from elicit_conformance.grading import wire_schema
from elicit_conformance.catalog import load
from elicit_conformance.grading.checks import LISTING_VARIES
from elicit_conformance.connection.wire import NO_FORM, missing_tools
from elicit_conformance.exceptions import RpcError
from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.revisions import MODERN
from elicit_conformance.verdict import check

#: Scenarios whose messages are judged: rounds of strings, a titled choice and a
#: model (BAT-3, TYP-2), bounds and labels (TYP-6), every enum form (TYP-9), a
#: declined question (OPT-3), an answer refused (TYP-4) and an optional question
#: whose default is None (OPT-1: a default no form field holds, offered or not).
SWEEP = ("BAT-3", "TYP-2", "TYP-6", "TYP-9", "OPT-3", "TYP-4", "OPT-1")
LISTINGS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")


@pytest.mark.tools("book_destination", "book_trip", "book_preferences", "book_luggage", "book_choices", "book_seat")
@pytest.mark.checks("WIR-1", "WIR-2")
@pytest.mark.transcript_varies(LISTING_VARIES)
@async_case
async def test_wir_1_wir_2_every_message_keeps_to_the_schema(case: Case, era: str) -> None:
    """The four listings, the scenarios BAT-3, TYP-2, TYP-6, TYP-9, OPT-3 and TYP-4
    (those whose tool the target lists) and book_destination called by a client that
    declared no elicitation: every message the server sent validates against the
    revision's schema (WIR-1) and, on 2026-07-28, every result states its resultType
    (WIR-2)."""
    scenarios = load().scenarios
    swept = [sid for sid in SWEEP if scenarios[sid].tool in await case.tools()]
    if not swept or "book_destination" not in await case.tools():
        raise missing_tools(sorted({scenarios[sid].tool for sid in SWEEP} | {"book_destination"}))
    async with case.peer(era) as peer:
        for method in LISTINGS:
            try:
                await peer.request(method, {})
            except RpcError:
                pass  # an error is a message too: judged below like any other
    for scenario_id in swept:
        await case.run(scenario_id, era)
    await case.call(era, "book_destination", {"ref": f"{case.run_id}-wir"}, elicitation=NO_FORM["none"])
    messages = case.transcript.messages
    if era == MODERN:
        wrong = list(wire_schema.result_type_problems(messages))
        check("WIR-2", not wrong, _said(wrong))
    refused = list(wire_schema.problems(messages, era))
    check("WIR-1", not refused, f"{len(refused)} message(s) the {era} schema refuses: {_said(refused)}")


def _said(problems: list[str], limit: int = 3) -> str:
    """The first few distinct problems, each with how often it came."""
    counted = Counter(problems)
    said = [f"{problem} ({count} times)" if count > 1 else problem for problem, count in list(counted.items())[:limit]]
    more = len(counted) - limit
    return "; ".join(said) + (f"; and {more} more" if more > 0 else "")

