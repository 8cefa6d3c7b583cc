"""TASK-9 and TASK-10: the tasks extension's own requests (`tasks/get`, `tasks/update`,
`tasks/cancel`) answered with the results it shapes: the standard kind ("complete"), and an
empty acknowledgement where the request changes the task. A target that does not offer the
extension reads "not implemented" here, as in test_tasks.py."""

from __future__ import annotations

import contextlib

import pytest

from elicit_conformance.exceptions import RpcError
from elicit_conformance.grading import wire_schema
from elicit_conformance.harness.case import Case, async_case
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
    check("TASK-9", not any(row == "TASK-9" for row, _ in found),
          "; ".join(clause for row, clause in found if row == "TASK-9")
          + "; a tasks/* result is the standard result shape, resultType \"complete\"")
    check("TASK-10", not found, "; ".join(clause for _, clause in found)
          + "; tasks/update and tasks/cancel are acknowledged with an empty result")
