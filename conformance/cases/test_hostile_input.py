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

Each example's checks are SEC-1's when it tampered with the state, SEC-2's when it only
replayed another call's or tool's authentic state, and SEC-3's otherwise (its replies were
attacked, or the user's own answers were odd). A round that carried no state gets no
forged one. A server may answer bad state by asking again rather than refusing (mrtr
prefers it): such a call counts as "asked again", with the refused ones. A
failure reads as its sentence and the smallest example hypothesis found, a few
lines with long strings elided; a request that timed out ends the case as
timed out at once, without shrinking.

Before any generated plan, every attack kind is tried once in each of the
tool's two rounds (`EVERY_ATTACK`): which examples hypothesis draws depends on
the test's own source, and no kind of attack may go untried because of it.

Profiles (environment `ELICIT_FUZZ`): `ci` (default) is derandomized, the same
examples on every run, at least 1,000 rounds; `deep` is random, ten times
longer, for local hunting: `ELICIT_FUZZ=deep pytest conformance/cases -k hostile`;
`quick` is derandomized too, a tenth of `ci`'s examples and none of the
explicit ones, for the suite's own CI where a server not meant to fail this
case runs the whole suite (tests/test_mutants.py); `brief` is `ci`'s explicit
examples and `quick`'s generated ones, ending at the first failing example,
unshrunk, for the suite's own CI where a server must fail this case, or where
every kind of attack must cross a real deployment (tests/test_stateless.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import anyio.from_thread
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings, strategies as st

from elicit_conformance.grading.checks import names
from elicit_conformance.connection.client import Client
from elicit_conformance.connection.wire import MAX_STATE_ONLY, Peer, Transcript, missing_tools
from elicit_conformance.exceptions import Broken, CheckFailed, RpcError, TimedOut
from elicit_conformance.harness.case import Case, body_run_count
from elicit_conformance.harness.driver import Run, Script, as_object, drive, input_requests, state_of
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import MODERN
from elicit_conformance.verdict import check, current, should

PROFILES = {
    "ci": (settings(max_examples=450, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck)), 1000),
    "deep": (settings(max_examples=4500, deadline=None, suppress_health_check=list(HealthCheck)), 10_000),
    "quick": (settings(max_examples=45, derandomize=True, database=None, deadline=None,
                       suppress_health_check=list(HealthCheck)), 100),
}
#: Every explicit example, then `quick`'s generated ones, ending at the first that fails,
#: unshrunk: for the suite's own CI, where a server meant to fail this case need only be seen
#: to fail it (tests/test_mutants.py; one that fails only the counts at the end, nothing
#: completed or nothing refused, fails them after 45 calls as after 450), and where every
#: kind of attack must cross a deployment, not 450 calls of them (tests/test_stateless.py).
PROFILES["brief"] = (settings(PROFILES["quick"][0], phases=[Phase.explicit, Phase.reuse, Phase.generate]),
                    PROFILES["quick"][1])
PROFILE_NAME = os.environ.get("ELICIT_FUZZ", "ci")
PROFILE, MIN_ROUNDS = PROFILES[PROFILE_NAME]
TOOL = "book_reworded"
QUESTIONS = ("destination", "airport")

answers = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=30),
    st.sampled_from(["Zürich", "東京", "\u202eevil", "a\x00b", "🛫✈️", "x" * 100_000]),
)
STATE_ATTACKS = ("flip", "truncate", "other-call", "other-tool", "drop", "empty", "huge", "garbage")
#: The state attacks that send authentic state of another call or tool, not tampered state.
REPLAYS = ("other-call", "other-tool")
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

    @property
    def row(self) -> str:
        """SEC-1 when the plan tampers with the state; SEC-2 when it only replays another
        call's or tool's authentic state (binding state to its request is SEC-2's); else
        SEC-3 (its replies)."""
        kinds = {a[0] for a in self.attacks if a is not None and a[0] in STATE_ATTACKS}
        return "SEC-1" if kinds - set(REPLAYS) else "SEC-2" if kinds else "SEC-3"

    def said(self) -> str:
        """The plan in a few readable lines, long strings elided."""
        lines = [f"answers: destination {brief(self.destination, 60)}, airport {brief(self.airport, 60)}"]
        for number, step in enumerate(self.attacks, 1):
            lines.append(f"round {number}: " + ("honest" if step is None else
                         f"{step[0]} ({', '.join(brief(part, 40) for part in step[1:])})"))
        return "; ".join(lines)


plans = st.builds(Plan, answers, answers, st.lists(attack, max_size=4))
#: Every attack kind once in each of the tool's two rounds, tried before any generated
#: plan: whatever hypothesis draws, no kind of attack goes untried where it can land.
EVERY_ATTACK = [
    Plan("Paris", "CDG", [None] * round_ + [step])
    for round_ in (0, 1)
    for step in [
        *((kind, 0.5, 1, "garbage!") for kind in STATE_ATTACKS),
        *((kind, "destination" if round_ == 0 else "airport", 5, "x") for kind in REPLY_ATTACKS),
    ]
]


@dataclass
class Tally:
    rounds: int = 0
    examples: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)


def _corrupt_state(state: str, kind: str, where: float, bit: int, text: str, foreign: dict[str, str]) -> str | None:
    if kind == "flip":
        if not state:  # the server sent no state (it is optional): nothing to flip
            return state
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


async def _request(peer: Peer, name: str, arguments: dict[str, Any], row: str = "SEC-1",
                   **extra: Any) -> dict[str, Any]:
    """One request; a JSON-RPC error comes back as {"error": ...}. Anything else,
    an unanswered request (the peer's timeout) included, is a failure of `row`."""
    try:
        result = await peer.call_tool(name, arguments, **extra)
    except RpcError as error:
        check(row, _well_formed(error.error), f"{name} answered a JSON-RPC error without an integer code "
              f"and a string message: {brief(error.error)}")
        return {"error": error.error}
    check(row, result.get("resultType") == "input_required" or "content" in result,
          f"{name} answered {brief(result)}: neither an ask nor a tool result")
    return result


def _well_formed(error: dict[str, Any]) -> bool:
    return isinstance(error.get("code"), int) and isinstance(error.get("message"), str)


async def _foreign_states(peer: Peer, ref: str) -> dict[str, str]:
    """State from another call of the same tool, carrying another user's answer
    (so crediting it shows), and from another tool."""
    other = await _request(peer, TOOL, {"ref": f"{ref}-other"})
    replies = {key: {"action": "accept", "content": {"value": "Elsewhere"}} for key in input_requests(other)}
    later = await _request(peer, TOOL, {"ref": f"{ref}-other"},
                           inputResponses=replies, **state_of(other))
    trip = await _request(peer, "book_trip", {"ref": f"{ref}-trip"})
    return {"call": str(later.get("requestState") or ""), "tool": str(trip.get("requestState") or "")}


async def _attack(peer: Peer, plan: Plan, ref: str, foreign: dict[str, str], tally: Tally) -> None:
    honest = {"destination": {"accept": plan.destination}, "airport": {"accept": plan.airport}}
    script = Script(TOOL, {}, honest)
    attacks = list(plan.attacks)
    blamed: str | None = None
    row = plan.row

    async def corrupt(number: int, run: Run, params: dict[str, Any]) -> dict[str, Any]:
        """This round's attack, if any, on what the client sends back."""
        nonlocal blamed
        asked = run.rounds[-1]
        check(row, bool(asked), f"round {number + 1} asked nothing, after {MAX_STATE_ONLY} immediate retries of "
              "answers with no inputRequests")
        replies, state = params["inputResponses"], params.get("requestState")
        blamed = None
        step = attacks.pop(0) if attacks else None
        if step is not None and step[0] in STATE_ATTACKS:
            # A round that carried no state has none to tamper with, and a client must not send one.
            state = _corrupt_state(state, *step, foreign) if isinstance(state, str) else state
        elif step is not None:
            kind, target, value, text = step
            replies = _corrupt_replies(replies, kind, target, value, text)
            if kind in ("wrong-type", "no-content", "wrong-kind"):
                blamed = next((a.param for a in asked if a.key in replies and replies[a.key] != script.reply(a)), None)
        return {"inputResponses": replies} | ({} if state is None else {"requestState": state})

    run = await drive(peer, TOOL, {"ref": ref}, script, on_round=corrupt)
    tally.rounds += len(run.rounds) + (0 if run.gave_up else 1)
    ran = body_run_count(await _request(peer, "body_runs", {"ref": ref}, row))
    if run.error is not None and not run.gave_up:
        check(row, _well_formed(run.error), f"a JSON-RPC error without an integer code and a string message: "
              f"{brief(run.error)}")
    if run.result is not None:
        check(row, "content" in as_object(run.result), f"a tool result without content: {brief(run.result)}")
    if run.gave_up:
        verdict = "still asking"
        check(row, ran == 0, f"the body ran {ran} time(s) although the call never completed")
    elif run.failed:
        verdict = "refused"
        check(row, ran == 0, f"the body ran {ran} time(s) although the call failed: {brief(run.error or run.result)}")
        if blamed is not None and run.error is None:
            should("SEC-3/clear", names(run.text, blamed), f"the error does not name {blamed!r}: {brief(run.text)}")
    else:
        # More rounds than the tool's two: the server asked again rather than refuse (mrtr prefers it).
        verdict = "completed" if len(run.rounds) <= len(QUESTIONS) else "asked again"
        expected = f"Booked a flight to {plan.destination}/{plan.airport}"
        check(row, run.text == expected, f"the call completed with other data than the user gave: {brief(run.text)}")
        check(row, ran == 1, f"the body ran {ran} times for one completed call")
    tally.outcomes[verdict] = tally.outcomes.get(verdict, 0) + 1


@pytest.mark.tools("body_runs", "book_trip", "book_reworded")
@pytest.mark.checks("SEC-1", "SEC-2", "SEC-3", "SEC-3/clear", "INFO/fuzz")
@pytest.mark.revisions(MODERN)
@pytest.mark.transcript_varies("the attacks are generated, as many as the ELICIT_FUZZ profile asks")
def test_sec_1_sec_3_generated_attacks_never_crash_credit_or_run_the_body(case: Case, era: str) -> None:
    """Generated calls of book_reworded on 2026-07-28 (see the module above): every
    answer is a well-formed result or JSON-RPC error; a call that completes returns
    'Booked a flight to <destination>/<airport>' with exactly the user's answers and
    ran its body once; a call that does not complete never ran its body. Needs
    book_trip's state too (another tool's), and sees calls completed, and calls refused
    or asked again."""
    tally = Tally()
    with anyio.from_thread.start_blocking_portal() as portal:
        tools = portal.call(case.tools)
        if missing := [needed for needed in (TOOL, "book_trip", "body_runs") if needed not in tools]:
            raise missing_tools(missing)
        # One connection for every example, declaring elicitation, as a client
        # answering InputRequiredResults does.
        with portal.wrap_async_context_manager(
            case.target.connect(Client(era), Transcript(), tools=tools, timeout=case.timeout)
        ) as peer:
            foreign = portal.call(_foreign_states, peer, f"{case.run_id}-fuzz")

            failing: list[Plan] = []

            @PROFILE
            @given(plan=plans)
            def attack_once(plan: Plan) -> None:
                tally.examples += 1
                # Each example is a call of its own: what the server asked in another
                # explains nothing in this one's sentence.
                current().notes.clear()
                ref = f"{case.run_id}-fuzz-{tally.examples}"
                try:
                    portal.call(_attack, peer, plan, ref, foreign, tally)
                except TimedOut as error:
                    raise _Abandoned(error) from None  # no shrinking: each try would wait the timeout again
                except Exception:
                    failing.append(plan)  # hypothesis replays the smallest failing example last
                    raise

            for plan in reversed(EVERY_ATTACK if PROFILE_NAME != "quick" else []):
                attack_once = example(plan=plan)(attack_once)
            try:
                attack_once()
            except _Abandoned as abandoned:
                raise abandoned.error from None
            except CheckFailed as error:
                smallest = failing[-1].said() if failing else "not recorded"
                which = "First" if PROFILE_NAME == "brief" else "Smallest"
                said = f"{error.sentence} {which} failing example: {smallest}"
                # Garbage from the server stays Broken, so its sentence is put under the case's first row.
                raise (Broken(said) if isinstance(error, Broken) else CheckFailed(error.row, said)) from None
    case.inform("INFO/fuzz", {"rounds": tally.rounds, "examples": tally.examples, **tally.outcomes})
    check("SEC-3", bool(tally.outcomes.get("completed") or tally.outcomes.get("asked again")),
          f"none of {tally.examples} generated calls completed ({tally.outcomes}), though most of their "
          "rounds are honest answers")
    check("SEC-1", bool(tally.outcomes.get("refused") or tally.outcomes.get("asked again")),
          f"none of {tally.examples} generated calls was refused or asked again ({tally.outcomes}), though "
          "many carry tampered state or malformed replies")
    check("SEC-3", tally.rounds >= MIN_ROUNDS,
          f"only {tally.rounds} rounds in {tally.examples} calls: the server ends calls before the "
          f"two rounds of {TOOL} ({tally.outcomes})")


class _Abandoned(BaseException):
    """Carries a timeout out of hypothesis, which would shrink (and wait again) on any Exception."""

    def __init__(self, error: TimedOut) -> None:
        super().__init__(str(error))
        self.error = error
