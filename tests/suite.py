"""Running the conformance suite in a child process, as a user runs it, and
reading the report it writes. Children keep the reference's module patches
(mutants) and servers away from the test process. `WarmRunner` does the same
for tests that run many suites, from a forked interpreter with the heavy
imports already done (`tests/warm.py`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: A mutant that fails one case (DIG-1), and the demo baseline that expects it to.
NO_DIGEST = "--server=elicit_conformance.fixtures.mutants.no_digest:app"
BASELINE = ROOT / "fixtures" / "baselines" / "no_digest.txt"
#: Whether the reference serves the tasks extension here (the `tasks` extra);
#: without it the TASK cases read "not implemented".
TASKS_SERVED = importlib.util.find_spec("fastmcp_tasks") is not None
#: A stuck child must not hold CI for its whole budget.
RUN_TIMEOUT = 1200


@dataclass
class SuiteRun:
    returncode: int
    output: str
    index: dict[str, Any]
    directory: Path

    def statuses(self) -> dict[str, str]:
        return {row["nodeid"]: row["status"] for row in self.index["cases"]}

    def judged(self) -> dict[str, str]:
        """`statuses()` less the TASK cases a run reads "not implemented" because
        this installation serves no tasks: what tests of the reference compare."""
        return {n: s for n, s in self.statuses().items() if not unserved_task(n, s)}


def golden_all_same(output: str) -> bool:
    """Whether a run compared its golden transcripts and found every one the same
    (its summary line reads "golden transcripts: N same (in DIR)" and nothing more)."""
    return re.search(r"^  golden transcripts: \d+ same \(in ", output, re.MULTILINE) is not None


def golden_files(directory: Path) -> dict[str, str]:
    """The golden transcripts a run wrote to `directory`, by file name."""
    return {p.relative_to(directory).as_posix(): p.read_text() for p in directory.rglob("*.jsonl")}


def unserved_task(nodeid: str, status: str) -> bool:
    """A TASK case read "not implemented" where the reference offers no tasks extension."""
    return not TASKS_SERVED and status == "not implemented" and "test_tasks.py::" in nodeid


#: What a child run must not inherit: pytest-xdist's marks of a worker (under `-n`
#: a child would believe it is one of this run's workers, and keep its findings for
#: a controller it has not got); and a ban on bytecode, which
#: makes every child compile and assertion-rewrite ~150 modules anew (a second each).
NOT_INHERITED = ("PYTEST_XDIST_", "PYTHONDONTWRITEBYTECODE")


def child_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment for a child run of its own (see NOT_INHERITED)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(NOT_INHERITED)} | (extra or {})


def start(
    directory: Path, *options: str, env: dict[str, str] | None = None, cases: tuple[str, ...] = ("conformance/cases",)
) -> subprocess.Popen[str]:
    """Start the suite (`cases`, in that order) with `options`, reporting into `directory`."""
    directory.mkdir(parents=True)
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", *_arguments(directory, options, cases)], cwd=ROOT, env=child_environment(env),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def _arguments(directory: Path, options: tuple[str, ...], cases: tuple[str, ...]) -> list[str]:
    return [
        *cases, "-q", "-p", "no:cacheprovider",
        f"--conformance-report={directory / 'report'}", f"--junitxml={directory / 'junit.xml'}", *options,
    ]


def _read(directory: Path, returncode: int, output: str) -> SuiteRun:
    index_path = directory / "report" / "index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {"cases": []}
    return SuiteRun(returncode, output, index, directory)


def finish(process: subprocess.Popen[str], directory: Path) -> SuiteRun:
    try:
        output, _ = process.communicate(timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
        pytest.fail(f"the suite run in {directory} did not finish in {RUN_TIMEOUT}s:\n{output[-3000:]}")
    return _read(directory, process.returncode, output)


def run(
    directory: Path, *options: str, env: dict[str, str] | None = None, cases: tuple[str, ...] = ("conformance/cases",)
) -> SuiteRun:
    """Run the suite to the end; see `start` for the options every run gets."""
    return finish(start(directory, *options, env=env, cases=cases), directory)


class WarmRunner:
    """Suite runs, one at a time, each in a child forked from one warm interpreter.

    The same run as `run()` (same arguments, environment and folder), less the
    second of imports every fresh interpreter pays.
    """

    def __init__(self) -> None:
        self._warm = subprocess.Popen(
            [sys.executable, "-m", "tests.warm"], cwd=ROOT, env=child_environment(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )

    def run(self, directory: Path, *options: str, env: dict[str, str] | None = None) -> SuiteRun:
        assert self._warm.stdin is not None and self._warm.stdout is not None
        directory.mkdir(parents=True)
        output = directory / "output.txt"
        request = {"argv": _arguments(directory, options, ("conformance/cases",)),
                   "env": child_environment(env), "output": str(output)}
        self._warm.stdin.write(json.dumps(request) + "\n")
        self._warm.stdin.flush()
        child = json.loads(self._warm.stdout.readline())["pid"]
        timer = threading.Timer(RUN_TIMEOUT, os.kill, (child, signal.SIGKILL))
        timer.start()
        try:
            returncode = json.loads(self._warm.stdout.readline())["returncode"]
        finally:
            timer.cancel()
        if returncode == -signal.SIGKILL:
            pytest.fail(f"the suite run in {directory} did not finish in {RUN_TIMEOUT}s:\n{output.read_text()[-3000:]}")
        return _read(directory, returncode, output.read_text())

    def close(self) -> None:
        assert self._warm.stdin is not None
        self._warm.stdin.close()
        self._warm.wait(timeout=30)
