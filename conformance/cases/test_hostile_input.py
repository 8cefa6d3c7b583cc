"""SEC-1 and SEC-3 under generated attack: what a hostile or broken client sends.

Hypothesis plans a two-round call (`book_reworded`: a destination, then an
airport quoting it) and, round by round, may corrupt the `request_state` it
returns (bit flips, truncation, another call's or another tool's state, none,
empty, huge, garbage) or the `input_responses` (wrong result kind, wrong value
type, extra and missing keys, accept without content, unknown actions), while
the user's real answers are themselves odd (any unicode, up to 100 KB). The
properties, checked on every example:

- every request gets a well-formed result or JSON-RPC error, in time: never a
  crash, a hang or a broken transport;
- a call that completes says exactly the user's answers: nothing accepted is
  lost or changed, nothing forged is credited, and the body ran once;
- a call that does not complete never ran the body;
- SHOULD: a failure caused by a bad answer names its parameter.

Profiles (environment `ELICIT_FUZZ`): `ci` (default) is derandomized, the same
examples on every run, at least 1,000 rounds; `deep` is random, ten times
longer, for local hunting: `ELICIT_FUZZ=deep pytest conformance/cases -k hostile`;
`quick` is derandomized too, a tenth of `ci`'s examples, for the suite's own
CI where a server not meant to fail this case runs the whole suite
(tests/test_mutants.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import anyio.from_thread
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elicit_conformance.case import Case, body_run_count
from elicit_conformance.checks import names
from elicit_conformance.driver import Run, Script, drive
from elicit_conformance.verdict import NotTestable, should
from elicit_conformance.wire import MODERN, Peer, RpcError, Transcript

PROFILES = {
    "ci": (settings(max_examples=450, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck)), 1000),
    "deep": (settings(max_examples=4500, deadline=None, suppress_health_check=list(HealthCheck)), 10_000),
    "quick": (settings(max_examples=45, derandomize=True, database=None, deadline=None,
                       suppress_health_check=list(HealthCheck)), 100),
}
PROFILE, MIN_ROUNDS = PROFILES[os.environ.get("ELICIT_FUZZ", "ci")]
TOOL = "book_reworded"
QUESTIONS = ("destination", "airport")

answers = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=30),
    st.sampled_from(["Zürich", "東京", "\u202eevil", "a\x00b", "🛫✈️", "x" * 100_000]),
)
STATE_ATTACKS = ("flip", "truncate", "other-call", "other-tool", "drop", "empty", "huge", "garbage")
REPLY_ATTACKS = ("wrong-kind", "wrong-type", "extra-key", "missing-key", "no-content",
                 "unknown-action", "not-an-object")
wrong_values = st.one_of(st.integers(), st.floats(allow_nan=False), st.booleans(), st.none(),
                         st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))
attack = st.one_of(
    st.just(None), st.just(None), st.just(None),  # most rounds are honest
    st.tuples(st.sampled_from(STATE_ATTACKS), st.floats(0, 1), st.integers(0, 5), st.text(max_size=40)),
    st.tuples(st.sampled_from(REPLY_ATTACKS), st.sampled_from(QUESTIONS), wrong_values, st.text(min_size=1, max_size=20)),
)


@dataclass
class Plan:
    destination: str
    airport: str
    attacks: list[Any]


plans = st.builds(Plan, answers, answers, st.lists(attack, max_size=4))


@dataclass
class Tally:
    rounds: int = 0
    examples: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)


def _corrupt_state(state: str, kind: str, where: float, bit: int, text: str, foreign: dict[str, str]) -> str | None:
    if kind == "flip":
        index = min(int(where * len(state)), len(state) - 1)
        return state[:index] + chr(ord(state[index]) ^ (1 << bit)) + state[index + 1:]
    return {
        "truncate": state[: int(where * len(state))], "other-call": foreign["call"],
        "other-tool": foreign["tool"], "drop": None, "empty": "", "huge": state + "A" * 262_144,
        "garbage": text,
    }[kind]


def _corrupt_replies(replies: dict[str, Any], kind: str, target: str, value: Any, text: str) -> dict[str, Any]:
    replies = dict(replies)
    key = target if target in replies else next(iter(replies))
    if kind == "extra-key":
        replies[f"{key}-{text}"] = {"action": "accept", "content": {"value": "Forged"}}
    elif kind == "missing-key":
        del replies[key]
    else:
        replies[key] = {
            "wrong-kind": {"role": "assistant", "content": {"type": "text", "text": text}, "model": "m"},
            "wrong-type": {"action": "accept", "content": {"value": value}},
            "no-content": {"action": "accept"},
            "unknown-action": {"action": text, "content": {"value": text}},
            "not-an-object": text,
        }[kind]
    return replies


async def _request(peer: Peer, name: str, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """One request; a JSON-RPC error comes back as {"error": ...}. Anything else,
    an unanswered request (the peer's timeout) included, is a failure."""
    try:
        result = await peer.call_tool(name, arguments, **extra)
    except RpcError as error:
        assert isinstance(error.error.get("code"), int) and isinstance(error.error.get("message"), str), error.error
        return {"error": error.error}
    assert isinstance(result, dict), result
    assert result.get("resultType") == "input_required" or "content" in result, f"malformed result: {result}"
    return result


async def _foreign_states(peer: Peer, ref: str) -> dict[str, str]:
    """State from another call of the same tool, carrying another user's answer
    (so crediting it shows), and from another tool."""
    other = await _request(peer, TOOL, {"ref": f"{ref}-other"})
    replies = {key: {"action": "accept", "content": {"value": "Elsewhere"}} for key in other.get("inputRequests", {})}
    later = await _request(peer, TOOL, {"ref": f"{ref}-other"},
                           inputResponses=replies, requestState=other.get("requestState"))
    trip = await _request(peer, "book_trip", {"ref": f"{ref}-trip"})
    return {"call": later.get("requestState", ""), "tool": trip.get("requestState", "")}


async def _attack(peer: Peer, plan: Plan, ref: str, foreign: dict[str, str], tally: Tally) -> None:
    honest = {"destination": {"accept": plan.destination}, "airport": {"accept": plan.airport}}
    script = Script(TOOL, {}, honest)
    attacks = list(plan.attacks)
    blamed: str | None = None

    async def corrupt(number: int, run: Run, params: dict[str, Any]) -> dict[str, Any]:
        """This round's attack, if any, on what the client sends back."""
        nonlocal blamed
        asked = run.rounds[-1]
        assert asked, f"an ask with no requests (round {number + 1})"
        replies, state = params["inputResponses"], params.get("requestState")
        blamed = None
        step = attacks.pop(0) if attacks else None
        if step is not None and step[0] in STATE_ATTACKS:
            state = _corrupt_state(state or "", *step, foreign)
        elif step is not None:
            kind, target, value, text = step
            replies = _corrupt_replies(replies, kind, target, value, text)
            if kind in ("wrong-type", "no-content"):
                blamed = next((a.param for a in asked if a.key in replies and replies[a.key] != script.reply(a)), None)
        return {"inputResponses": replies} | ({} if state is None else {"requestState": state})

    run = await drive(peer, TOOL, {"ref": ref}, script, on_round=corrupt)
    tally.rounds += len(run.rounds) + (0 if run.gave_up else 1)
    ran = body_run_count(await _request(peer, "body_runs", {"ref": ref}))
    if run.error is not None and not run.gave_up:
        assert isinstance(run.error.get("code"), int) and isinstance(run.error.get("message"), str), run.error
    if run.result is not None:
        assert "content" in run.result, f"malformed result: {run.result}"
    if run.gave_up:
        verdict = "still asking"
        assert ran == 0, "the body ran although the call never completed"
    elif run.failed:
        verdict = "refused"
        assert ran == 0, f"the body ran although the call failed: {run.error or run.result}"
        if blamed is not None and run.error is None:
            should(names(run.text, blamed), "SEC-3/clear", f"the error names {blamed!r}: {run.text[:200]!r}")
    else:
        verdict = "completed"
        expected = f"Booked a flight to {plan.destination}/{plan.airport}"
        assert run.text == expected, f"completed with other data than the user gave: {run.text[:200]!r}"
        assert ran == 1, f"the body ran {ran} times for one completed call"
    tally.outcomes[verdict] = tally.outcomes.get(verdict, 0) + 1


@pytest.mark.checks("SEC-1", "SEC-3", "SEC-3/clear", "INFO/fuzz")
@pytest.mark.revisions(MODERN)
def test_sec_1_sec_3_generated_attacks_never_crash_credit_or_run_the_body(case: Case, era: str) -> None:
    tally = Tally()
    with anyio.from_thread.start_blocking_portal() as portal:
        tools = portal.call(case.tools)
        for needed in (TOOL, "book_trip", "body_runs"):
            if needed not in tools:
                raise NotTestable(f"the target has no tool {needed!r}")
        # One connection for every example, declaring elicitation, as a client
        # answering InputRequiredResults does.
        with portal.wrap_async_context_manager(
            case.target.connect(era, Transcript(), tools=tools, timeout=case.timeout)
        ) as peer:
            foreign = portal.call(_foreign_states, peer, f"{case.run_id}-fuzz")

            @PROFILE
            @given(plan=plans)
            def example(plan: Plan) -> None:
                tally.examples += 1
                ref = f"{case.run_id}-fuzz-{tally.examples}"
                portal.call(_attack, peer, plan, ref, foreign, tally)

            example()
    case.inform("INFO/fuzz", {"rounds": tally.rounds, "examples": tally.examples, **tally.outcomes})
    assert tally.rounds >= MIN_ROUNDS, f"only {tally.rounds} rounds were generated"
    assert tally.outcomes.get("completed") and tally.outcomes.get("refused"), tally.outcomes
