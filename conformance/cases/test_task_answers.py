"""TASK-9 to TASK-12 (and TASK-7's unknown task): the tasks extension's own requests
(`tasks/get`, `tasks/update`, `tasks/cancel`) answered as it shapes them: results of the
standard kind ("complete"), an empty acknowledgement where the request changes the task,
-32021 to a client that did not declare the extension, -32602 for a task never made. A
target that does not offer the extension reads "not implemented" here, as in test_tasks.py."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from elicit_conformance.connection.wire import Peer
from elicit_conformance.exceptions import RpcError
from elicit_conformance.grading import wire_schema
from elicit_conformance.harness.case import Case, async_case
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import MODERN
from elicit_conformance.verdict import check

pytestmark = pytest.mark.transcript_varies("tasks/get is polled as often as timing needs")


@pytest.mark.tools("book_destination", "body_runs")
@pytest.mark.checks("TASK-9", "TASK-10")
@pytest.mark.revisions(MODERN)
@async_case
async def test_task_9_task_10_task_requests_are_answered_with_complete_results(case: Case, era: str) -> None:
    """book_destination tasked (BAT-1) to its end, then a `tasks/update` with no answers and a
    `tasks/cancel` of the ended task (each may be acknowledged or refused: an error is not
    judged here): every result answering `tasks/get`, `tasks/update` or `tasks/cancel` carries
    resultType "complete" (TASK-9), and each acknowledgement is an empty result (TASK-10)."""
    async with case.task_peer() as peer:
        run = await case.run_task("BAT-1", arguments={"ref": f"{case.run_id}-task-9"}, peer=peer)
        if run.task_id is None:
            pytest.skip("not applicable: the server made no task for book_destination (the tasks extension lets it "
                        "decide), so no task request was answered")
        for method, params in (("tasks/update", {"inputResponses": {}}), ("tasks/cancel", {})):
            with contextlib.suppress(RpcError):
                await peer.request(method, {"taskId": run.task_id, **params})
    found = list(wire_schema.task_answer_problems(case.transcript.messages))
    for row, requirement in (("TASK-9", "a tasks/* result is the standard result shape, resultType \"complete\""),
                             ("TASK-10", "tasks/update and tasks/cancel are acknowledged with an empty result")):
        clauses = [clause for found_row, clause in found if found_row == row]
        check(row, not clauses, "; ".join(clauses) + f"; {requirement}")


#: The extension's error for an invalid or nonexistent taskId.
INVALID_PARAMS = -32602


async def _answer(peer: Peer, method: str, params: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """`method` sent with `params`: the JSON-RPC error that answered it (None for a result), and
    what answered, said."""
    try:
        result = await peer.request(method, params)
    except RpcError as error:
        return error.error, f"the error {brief(error.error)}"
    return None, f"the result {brief(result)}"


@pytest.mark.tools("book_destination", "body_runs")
@pytest.mark.checks("TASK-11")
@pytest.mark.revisions(MODERN)
@async_case
async def test_task_11_task_requests_of_a_client_without_the_extension_are_refused(case: Case, era: str) -> None:
    """book_destination tasked (BAT-1) to its end by a client that declares the extension;
    then a client that does not declare it sends `tasks/get`, `tasks/update` (no answers) and
    `tasks/cancel` of that task: each is answered with the JSON-RPC error -32021."""
    async with case.task_peer() as peer:
        run = await case.run_task("BAT-1", arguments={"ref": f"{case.run_id}-task-11"}, peer=peer)
    if run.task_id is None:
        pytest.skip("not applicable: the server made no task for book_destination (the tasks extension lets it "
                    "decide), so there was no task to ask about")
    async with case.peer(era) as undeclared:
        for method, params in (("tasks/get", {}), ("tasks/update", {"inputResponses": {}}), ("tasks/cancel", {})):
            error, said = await _answer(undeclared, method, {"taskId": run.task_id, **params})
            check("TASK-11", error is not None and error.get("code") == wire_schema.MISSING_CAPABILITY,
                  f"{method} of task {run.task_id} from a client that did not declare the tasks extension was answered "
                  f"{said}; such a request is refused with -32021 (Missing Required Client Capability)")


@pytest.mark.tools("book_destination")
@pytest.mark.checks("TASK-7", "TASK-7/unknown", "TASK-12")
@pytest.mark.revisions(MODERN)
@async_case
async def test_task_7_task_12_requests_of_a_task_never_made_are_refused(case: Case, era: str) -> None:
    """`tasks/get`, `tasks/update` and `tasks/cancel` of a taskId the server never made: each is
    a JSON-RPC error (TASK-7 for `tasks/get`), -32602 (TASK-12, a MUST, for `tasks/get`;
    TASK-7/unknown, a SHOULD, for the other two)."""
    async with case.task_peer() as peer:
        for method, rows in (("tasks/get", ("TASK-7", "TASK-12")), ("tasks/update", ("TASK-7/unknown",)),
                             ("tasks/cancel", ("TASK-7/unknown",))):
            error, said = await _answer(peer, method, {"taskId": "no-such-task"} | (
                {"inputResponses": {}} if method == "tasks/update" else {}))
            for row in rows:  # TASK-7: an error; the others: that error, -32602
                check(row, error is not None and (row == "TASK-7" or error.get("code") == INVALID_PARAMS),
                      f"{method} of a taskId the server never made was answered {said}; it is answered with the "
                      "JSON-RPC error -32602 (Invalid params)")
