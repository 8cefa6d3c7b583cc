"""Running the conformance suite in a child process, as a user runs it, and
reading the report it writes. Children keep the reference's module patches
(mutants) and servers away from the test process. Each is forked from one warm
interpreter per test process, with the heavy imports already done
(`tests/warm.py`): a fresh interpreter would pay them, over a second, every run.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
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
#: The environment variable naming the generated attacks' profile
#: (conformance/cases/test_hostile_input.py), and the two a child run picks: `quick` where
#: hostile input is not what the run proves; `brief` where a server must fail the attacks,
#: or every kind of attack must cross a deployment. Not to be changed in place.
FUZZ = "ELICIT_FUZZ"
QUICK = {FUZZ: "quick"}
BRIEF = {FUZZ: "brief"}
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
        """`statuses()` of the `judged_cases()`: what tests of the reference compare."""
        return {row["nodeid"]: row["status"] for row in self.judged_cases()}

    def judged_cases(self) -> list[dict[str, Any]]:
        """The report's cases less the TASK cases a run reads "not implemented" because
        this installation serves no tasks, and those about questions inside a task,
        which the reference never asks there, and those skipped on it by design
        (`not_applicable_by_design`)."""
        return [row for row in self.index["cases"]
                if not unserved_task(row["nodeid"], row["status"]) and not not_applicable_by_design(row)]


def golden_all_same(output: str) -> bool:
    """Whether a run compared its golden transcripts and found every one the same
    (its summary line reads "golden transcripts: N same (in DIR)" and nothing more)."""
    return re.search(r"^  golden transcripts: \d+ same \(in ", output, re.MULTILINE) is not None


def golden_said(output: str, lines: int = 12) -> str:
    """What a run said of its golden transcripts: the summary line and the first `lines`
    after it (each change with its diff), for a failure message."""
    said = output.splitlines()
    start = next((i for i, line in enumerate(said) if line.startswith("  golden transcripts: ")), None)
    return "\n".join(said[start:start + 1 + lines]) if start is not None else "no golden transcripts were compared"


def check_golden_kept(runs: dict[str, SuiteRun], golden: Path, regenerate: str) -> None:
    """Every run compared its transcripts with the committed ones in `golden` and found
    them the same (written by `regenerate`); else which transport differs, and how."""
    assert sorted(golden.rglob("*.jsonl")), f"no golden transcripts in {golden}: run {regenerate}"
    for transport, result in runs.items():
        assert golden_all_same(result.output), (
            f"{transport}: the transcripts differ from the committed ones (run {regenerate} and review "
            f"the diff):\n{golden_said(result.output)}")


def unserved_task(nodeid: str, status: str) -> bool:
    """A TASK case read "not implemented" where the reference offers no tasks extension."""
    return not TASKS_SERVED and status == "not implemented" and "test_tasks.py::" in nodeid


#: Why a case is skipped on the reference by design: the server asked before it made the
#: task (so nothing was asked inside one), or it lists no refused declaration (those are
#: judged at registration).
_NOT_APPLICABLE = ("asked before it made the task", "is judged where its registration is")


def not_applicable_by_design(case: dict[str, Any]) -> bool:
    """A case skipped as not applicable on the reference by design (`_NOT_APPLICABLE`)."""
    return case["status"] == "skipped" and any(why in (case.get("message") or "") for why in _NOT_APPLICABLE)


#: What a child run must not inherit: pytest-xdist's marks of a worker (under `-n`
#: a child would believe it is one of this run's workers, and keep its findings for
#: a controller it has not got); and a ban on bytecode, which
#: makes every child compile and assertion-rewrite ~150 modules anew (a second each).
NOT_INHERITED = ("PYTEST_XDIST_", "PYTHONDONTWRITEBYTECODE")


def child_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment for a child run of its own (see NOT_INHERITED)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(NOT_INHERITED)} | (extra or {})


def checked(*command: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None,
            timeout: float = 900) -> str:
    """A set-up command's output; its failure fails the test with what it printed."""
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def source_copy(directory: Path) -> Path:
    """This repository's files, copied into `directory`, without its venv, caches or build
    state: what pip builds from without leaving build/ in the work tree (a stale
    build/lib there would ship modules that no longer exist)."""
    copy = directory / "elicit-conformance"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".tox", "build", "dist", "*.egg-info", "__pycache__", "report"))
    return copy


def start(
    directory: Path, *options: str, env: dict[str, str] | None = None, cases: tuple[str, ...] = ("conformance/cases",)
) -> Started:
    """Start the suite (`cases`, in that order) with `options`, reporting into `directory`:
    `python -m pytest` as a user runs it, forked from this process's warm interpreter."""
    directory.mkdir(parents=True)
    return _warm().start(_arguments(directory, options, cases), child_environment(env), directory / "output.txt")


def _arguments(directory: Path, options: tuple[str, ...], cases: tuple[str, ...]) -> list[str]:
    return [
        *cases, "-q", "-p", "no:cacheprovider",
        f"--conformance-report={directory / 'report'}", f"--junitxml={directory / 'junit.xml'}", *options,
    ]


def finish(started: Started, directory: Path) -> SuiteRun:
    returncode = started.wait(RUN_TIMEOUT)
    output = started.output.read_text() if started.output.exists() else ""
    if started.lost:
        pytest.fail(f"the warm interpreter (tests/warm.py) ended before the suite run in {directory}:\n{output[-3000:]}")
    if returncode is None:
        pytest.fail(f"the suite run in {directory} did not finish in {RUN_TIMEOUT}s:\n{output[-3000:]}")
    index_path = directory / "report" / "index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {"cases": []}
    return SuiteRun(returncode, output, index, directory)


def run(
    directory: Path, *options: str, env: dict[str, str] | None = None, cases: tuple[str, ...] = ("conformance/cases",)
) -> SuiteRun:
    """Run the suite to the end; see `start` for the options every run gets."""
    return finish(start(directory, *options, env=env, cases=cases), directory)


@dataclass
class Started:
    """A suite run forked by the warm interpreter: its pid, once known, and its exit."""

    output: Path
    pid: int | None = None
    returncode: int | None = None
    ended: threading.Event = field(default_factory=threading.Event)
    forked: threading.Event = field(default_factory=threading.Event)
    #: The warm interpreter ended before this run did.
    lost: bool = False

    def wait(self, timeout: float) -> int | None:
        """The exit code, or None after killing a run that took longer than `timeout`."""
        if self.ended.wait(timeout):
            return self.returncode
        self.forked.wait()
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        self.ended.wait()
        return None


class Warm:
    """Suite runs, any number at once, each in a child forked from one warm interpreter
    (`tests/warm.py`): the same run as a fresh `python -m pytest` (same arguments,
    environment and folder) less the second and more of imports each would pay."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.warm"], cwd=ROOT, env=child_environment(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        self._runs: dict[int, Started] = {}
        self._lock = threading.Lock()
        #: CPU seconds of the runs that ended (tests/cost.py counts them).
        self.cpu = 0.0
        self._ids = itertools.count()
        threading.Thread(target=self._hear, daemon=True).start()

    def start(self, argv: list[str], env: dict[str, str], output: Path) -> Started:
        assert self._process.stdin is not None
        started = Started(output)
        with self._lock:
            number = next(self._ids)
            self._runs[number] = started
            self._process.stdin.write(json.dumps({"id": number, "argv": argv, "env": env, "output": str(output)}) + "\n")
            self._process.stdin.flush()
        return started

    def stop(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait()

    def _hear(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            answer = json.loads(line)
            started = self._runs[answer["id"]]
            if "pid" in answer:
                started.pid = answer["pid"]
                started.forked.set()
            else:
                started.returncode = answer["returncode"]
                with self._lock:
                    self.cpu += answer["cpu"]
                started.ended.set()
        # The warm interpreter ended: no run still waiting will ever be answered.
        with self._lock:
            for started in self._runs.values():
                if not started.ended.is_set():
                    started.lost = True
                    started.forked.set()
                    started.ended.set()


def stop_warm() -> None:
    """End the warm interpreter, once its runs have ended, and wait for it: so that its
    CPU and its children's reach this process's own accounts (and `time`'s)."""
    if _warm.cache_info().currsize:
        _warm().stop()


def forked_cpu() -> float:
    """CPU seconds of every suite run forked so far, the runs' own children included."""
    return _warm().cpu if _warm.cache_info().currsize else 0.0


@functools.cache
def _warm() -> Warm:
    """This test process's warm interpreter, started at its first suite run; `stop_warm`
    ends it."""
    return Warm()
