"""The behaviour cases of `test_behaviours.py`: the same declared tool on both eras,
imperative and hand-returned asks, and clients that declare no form elicitation."""

from __future__ import annotations

import pytest

from elicit_conformance.connection.wire import NO_FORM
from elicit_conformance.grading.checks import check_missing_form_elicitation, refusal_said
from elicit_conformance.exceptions import RpcError
from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.harness.driver import Run, Script, drive, in_process_answerer, input_requests, result_text
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import HANDSHAKE, MODERN
from elicit_conformance.verdict import check, should


@pytest.mark.tools("book_confirmed")
@pytest.mark.checks("ERA-1", "ERA-4")
@async_case
async def test_era_1_era_4_one_declared_tool_same_result_on_both_eras(
    case: Case, era: str
) -> None:
    """Scenario ORD-4 returns 'Booked Paris on 2026-08-01' on 2026-07-28 (ERA-1) and
    on 2025-11-25 (ERA-4)."""
    run = await case.run("ORD-4", era)
    check("ERA-4", not run.failed,
          f"on {era} the declared tool failed ({brief(run.text)}); declared parameters are asked on every era")
    check("ERA-1", run.text == "Booked Paris on 2026-08-01",
          f"the declared tool returned {brief(run.text)} on {era}; on either era it returns "
          "'Booked Paris on 2026-08-01'")


@pytest.mark.tools("ask_imperatively")
@pytest.mark.checks("ERA-2", "ERA-2/imperative", "ERA-2/clear")
@pytest.mark.revisions(MODERN)
@async_case
async def test_era_2_imperative_elicit_on_modern_sends_no_request_of_the_servers(case: Case, era: str) -> None:
    """ask_imperatively on 2026-07-28, its question answered 'Paris' wherever it is
    asked: the server sends no `elicitation/create` of its own (ERA-2, read off the
    transcript); the call fails, or asks 'destination' in one round and returns
    'Booked a flight to Paris' (ERA-2/imperative); SHOULD: a failure names the era
    ('2026-07-28' or 'modern')."""
    script = Script("ask_imperatively", {}, {"destination": {"accept": "Paris"}})
    async with case.peer(era) as peer:
        with peer.answering(in_process_answerer(script, Run())):
            run = await drive(peer, "ask_imperatively", {}, script)
    sent = [message for direction, message in case.transcript.messages
            if direction == "server->client" and message.get("method") == "elicitation/create"]
    check("ERA-2", not sent, f"on {era} the server sent {len(sent)} elicitation/create request(s) of its own "
          f"({brief(sent[0].get('params'))}); a question travels in an InputRequiredResult there" if sent else "")
    served = not run.failed and run.text == "Booked a flight to Paris" and run.asked_params == [["destination"]]
    check("ERA-2/imperative", run.failed or served,
          f"ctx.elicit() on {era} neither failed nor asked 'destination' once and booked Paris: it asked "
          f"{run.asked_params} and ended {brief(run.text)}")
    if run.failed:
        should("ERA-2/clear", "2026-07-28" in run.text or "modern" in run.text.lower(),
               f"the error does not name the era: {brief(run.text)}")


@pytest.mark.tools("ask_imperatively")
@pytest.mark.checks("ERA-2/imperative")
@pytest.mark.revisions(HANDSHAKE)
@async_case
async def test_era_2_imperative_elicit_works_on_the_handshake_era(case: Case, era: str) -> None:
    """ask_imperatively on 2025-11-25 asks 'Where would you like to fly?' with
    `elicitation/create`; answered 'Paris', it returns 'Booked a flight to Paris'."""
    script = Script("ask_imperatively", {}, {"destination": {"accept": "Paris"}})
    async with case.peer(era) as peer:
        run = await drive(peer, "ask_imperatively", {}, script)
    check("ERA-2/imperative", run.text == "Booked a flight to Paris" and not run.failed,
          f"ctx.elicit() on {era}, answered 'Paris', ended {brief(run.text)}; it returns 'Booked a flight to Paris'")


@pytest.mark.tools("guard_by_hand")
@pytest.mark.checks("ERA-3", "ERA-3/clear")
@async_case
async def test_era_3_hand_returned_ask_is_gated_by_era(case: Case, era: str) -> None:
    """guard_by_hand, answered 'Paris': on 2026-07-28 it returns 'Booked a flight to
    Paris'. On 2025-11-25 it either does the same after asking 'destination' once
    with `elicitation/create`, or fails; SHOULD: that error names an era
    ('2026-07-28' or '2025-11-25')."""
    script = Script("guard_by_hand", {}, {"destination": {"accept": "Paris"}})
    async with case.peer(era) as peer:
        run = await drive(peer, "guard_by_hand", {}, script)
    # On the handshake era a framework may fail the call, or serve the ask itself
    # over elicitation/create: then it must be the whole, correct exchange.
    served = run.text == "Booked a flight to Paris" and not run.failed
    if era == MODERN:
        check("ERA-3", served, f"the hand-returned ask was mishandled on {era}: the call ended {brief(run.text)}")
    else:
        check("ERA-3", run.failed or (served and run.asked_params == [["destination"]]),
              f"on {era} the call neither failed nor asked 'destination' once and booked Paris: it asked "
              f"{run.asked_params} and ended {brief(run.text)}")
        if run.failed:
            should("ERA-3/clear", "2026-07-28" in run.text or "2025-11-25" in run.text,
                   f"the error does not name the era: {brief(run.text)}")


@pytest.mark.tools("body_runs", "book_destination")
@pytest.mark.checks("ERA-5")
@pytest.mark.revisions(HANDSHAKE)
@pytest.mark.parametrize("declared", list(NO_FORM))
@async_case
async def test_era_5_handshake_client_without_form_elicitation_gets_an_error_not_a_hang(
    case: Case, declared: str, era: str,
) -> None:
    """book_destination on 2025-11-25 from a client that declared no elicitation
    capability, or only `{"url": {}}`: no `elicitation/create` is sent, the call fails
    (a JSON-RPC error or an error result), and its body does not run."""
    ref = f"{case.run_id}-era-5-{declared}"
    result, error = await case.call(era, "book_destination", {"ref": ref}, elicitation=NO_FORM[declared])
    asked = [m for d, m in case.transcript.messages if d == "server->client" and m.get("method") == "elicitation/create"]
    check("ERA-5", not asked, f"sent elicitation/create to a client that declared {declared!r}: {brief(asked)}")
    check("ERA-5", error is not None or bool(result.get("isError")),
          f"the call must fail clearly, but returned {brief(result)}")
    runs = await case.body_runs(ref)
    check("ERA-5", runs == 0, f"the body ran {runs} time(s) for a client that could not be asked")


@pytest.mark.tools("body_runs", "book_destination")
@pytest.mark.checks("ERA-7", "ERA-7/code", "ERA-7/http")
@pytest.mark.revisions(MODERN)
@pytest.mark.parametrize("declared", list(NO_FORM))
@async_case
async def test_era_7_modern_client_without_form_elicitation_is_not_asked(
    case: Case, declared: str, era: str,
) -> None:
    """book_destination on 2026-07-28 from a client that declared no elicitation
    capability, or only `{"url": {}}`, in its request `_meta`: the answer holds no
    form `elicitation/create` request, the call fails, and its body does not run;
    the refusal is the JSON-RPC error -32021 (missing required client capability,
    ERA-7/code); over streamable HTTP, a -32021 refusal has the status 400 (ERA-7/http)."""
    ref = f"{case.run_id}-era-7-{declared}"
    case.target.http_statuses.clear()
    result, error = await case.call(era, "book_destination", {"ref": ref}, elicitation=NO_FORM[declared])
    # The status of that call, before body_runs makes another (URL targets only).
    status = next((s for s in reversed(case.target.http_statuses) if s.method == "tools/call"), None)
    forms = [r for r in input_requests(result).values() if r.get("method") == "elicitation/create"
             and (r.get("params") if isinstance(r.get("params"), dict) else {}).get("mode", "form") == "form"]
    check("ERA-7", not forms, f"asked a client that declared {declared!r} a form question: {brief(forms)}")
    check("ERA-7", error is not None or bool(result.get("isError")), f"the call must fail, but returned {brief(result)}")
    runs = await case.body_runs(ref)
    check("ERA-7", runs == 0, f"the body ran {runs} time(s) for a client that could not be asked")
    check_missing_form_elicitation(error, result, "the call")
    if case.target.kind == "url" and error is not None and error.get("code") == -32021:
        check("ERA-7/http", status is not None and status.code == 400,
              f"the -32021 refusal came over HTTP with {status or 'no status the suite saw'}")


@pytest.mark.tools("book_from")
@pytest.mark.checks("RES-1")
@pytest.mark.parametrize("declared", list(NO_FORM))
@async_case
async def test_res_1_a_resolver_that_answers_needs_no_elicitation_from_the_client(
    case: Case, declared: str, era: str,
) -> None:
    """book_from with destination London (its resolver answers LHR without asking),
    from a client that declared no elicitation capability, or only `{"url": {}}`, and
    not the tasks extension: nothing needs asking, so the call completes with
    'London/LHR'. The tool may also run as a task; called in the foreground, it is
    not refused for a question it never asks."""
    scenario = case.scenario("RES-1")
    result, error = await case.call(era, scenario.tool, scenario.arguments, elicitation=NO_FORM[declared])
    check("RES-1", error is None and not result.get("isError") and result_text(result) == scenario.expect.result,
          f"from a client that declared {declared!r}, {scenario.tool} with {scenario.arguments} ended with "
          f"{refusal_said(error, result) if error is not None or result.get('isError') else brief(result_text(result))}; "
          f"its resolver answers without asking, so it completes with {scenario.expect.result!r} for any client")
