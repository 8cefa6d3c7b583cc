"""The reference deployment through faults (conformance/dev/deployment.py), small: two
reference processes behind docs/haproxy.cfg unchanged, Redis persisting every write.

- modern calls in flight while a process is killed (kill -9) and restarted;
- tasked calls while a process, a worker of their tasks, is killed and restarted;
- tasked calls while Redis is killed and restarted on its data.

Each client retries a failed request once. Whatever the fault: no call completes
with another call's answers, no body runs twice, no task is lost, and every call
that does not complete was told why in a sentence. The share that completed is
printed; the full-size figures are `python -m elicit_conformance.bench --deployment`'s
(docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from elicit_conformance.dev.deployment import (
    Deployment,
    Tally,
    kill_and_restart,
    modern_calls,
    redis_restart,
    tasked_calls,
)
from tests.suite import TASKS_SERVED

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    with Deployment(tmp_path_factory.mktemp("deployment")) as deployed:
        yield deployed


def _owed(tally: Tally, capsys: pytest.CaptureFixture[str]) -> None:
    with capsys.disabled():
        print(f"\n  {tally.line()}")
    assert tally.wrong == 0, f"calls completed with another call's answers: {tally.line()}"
    assert tally.twice == 0, f"bodies ran twice: {tally.line()}"
    assert tally.completed + sum(tally.failed.values()) == tally.calls, tally.line()
    for said in tally.failed:
        assert "internal error" not in said and "Traceback" not in said, said


def test_modern_calls_through_a_killed_and_restarted_process(deployment: Deployment,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    tally = anyio.run(modern_calls, deployment.url, 40, kill_and_restart(deployment, 1, after=0.2, down=1.0))
    _owed(tally, capsys)
    assert tally.completed >= tally.calls * 0.9, tally.line()


def test_tasked_calls_through_a_killed_worker(deployment: Deployment, capsys: pytest.CaptureFixture[str]) -> None:
    tally = anyio.run(tasked_calls, deployment.url, 20, kill_and_restart(deployment, 2, after=0.3, down=1.0))
    _owed(tally, capsys)
    assert tally.lost == 0, tally.line()
    # Without the tasks extra the reference makes no task: the calls run in the foreground.
    assert (tally.tasks > 0) == TASKS_SERVED, tally.line()


def test_tasked_calls_through_a_redis_restart(deployment: Deployment, capsys: pytest.CaptureFixture[str]) -> None:
    tally = anyio.run(tasked_calls, deployment.url, 20, redis_restart(deployment, after=0.0))
    _owed(tally, capsys)
    assert tally.lost == 0, tally.line()
    # Without the tasks extra the reference makes no task: the calls run in the foreground.
    assert (tally.tasks > 0) == TASKS_SERVED, tally.line()
