"""What each test file of this repository costs: CPU seconds and wall seconds.

A test here often runs a whole suite in a child process, serves a peer over
HTTP or starts HAProxy, so a file's cost is mostly outside the pytest process.
CPU is read with `getrusage` before and after each test's setup, call and
teardown, for this process and for its children: a child's time is counted
once it has been waited for, which every fixture here does when it stops its
process, so it falls on the test whose teardown stopped it; suite runs forked
by the warm interpreter (tests/suite.py) are counted as it reports each one
ended. Under xdist each worker sends its totals to the controller
(`workeroutput`), which prints one table for the run. docs/benchmarks.md keeps the budget this table is read
against; timings are printed, never asserted.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from elicit_conformance.bench import costs
from tests.suite import forked_cpu

#: The key under which a worker hands its totals to the controller.
KEY = "elicit_test_cost"


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    # Suite runs are forked by the warm interpreter, waited for only at the session's end.
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + forked_cpu()


@dataclass(eq=False)
class Cost:
    """Per test file: [CPU seconds, wall seconds]. A plugin registered by
    tests/conftest.py, so that the cases under conformance/cases are counted too."""

    files: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0.0, 0.0]))

    def _measure(self, item: pytest.Item) -> Iterator[None]:
        cpu, wall = _cpu(), time.perf_counter()
        try:
            return (yield)
        finally:
            totals = self.files[item.path.name]
            totals[0] += _cpu() - cpu
            totals[1] += time.perf_counter() - wall

    pytest_runtest_setup = pytest.hookimpl(wrapper=True)(_measure)
    pytest_runtest_call = pytest.hookimpl(wrapper=True)(_measure)
    pytest_runtest_teardown = pytest.hookimpl(wrapper=True)(_measure)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workeroutput"):  # an xdist worker: the controller prints
            session.config.workeroutput[KEY] = json.dumps(dict(self.files))

    def pytest_testnodedown(self, node: Any, error: object) -> None:
        for name, (cpu, wall) in json.loads(getattr(node, "workeroutput", {}).get(KEY, "{}")).items():
            self.files[name][0] += cpu
            self.files[name][1] += wall

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
        if self.files and not hasattr(config, "workeroutput"):
            terminalreporter.section("cost per test file (tests/cost.py; budget in docs/benchmarks.md)")
            for line in self.table():
                terminalreporter.write_line(line)
            if path := os.environ.get(costs.ENV_VAR):  # `bench --ci-run` reads it
                costs.write(path, {name: (cpu, wall) for name, (cpu, wall) in self.files.items()})

    def table(self) -> list[str]:
        rows = sorted(self.files.items(), key=lambda kv: -kv[1][0])
        cpu, wall = sum(c for c, _ in self.files.values()), sum(w for _, w in self.files.values())
        return [f"{'file':<34} {'CPU s':>8} {'wall s':>8}",
                *(f"{name:<34} {c:8.1f} {w:8.1f}" for name, (c, w) in rows),
                f"{'all files':<34} {cpu:8.1f} {wall:8.1f}"]
