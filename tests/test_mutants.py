"""The suite's own verdict: every mutant in `fixtures/mutants/` is caught, each by
exactly the cases it is meant to fail, and every MUST row kills some mutant.

(That the reference fails no case is `tests/test_transports.py`.) Each mutant
runs the whole suite in a child process, two at a time, forked from warm
interpreters (`tests.suite.WarmRunner`); one marked `SERVE = "http"` against its
`asgi`, served by uvicorn on 127.0.0.1. A mutant that claims
no SEC row runs the generated attacks on their `quick` profile: it is checked
not to fail them, on fewer examples; one that claims SEC rows gets the full
`ci` profile it must fail.
"""

from __future__ import annotations

import contextlib
import queue
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from elicit_conformance.local_server import LocalServer
from elicit_conformance.requirements import Table
from elicit_conformance.fixtures.mutants import Mutant, catalogue
from tests.suite import TASKS_SERVED, SuiteRun, WarmRunner

#: The mutants this installation can import (the `task_*` ones need the tasks extra).
MUTANTS = [m for m in catalogue() if m.runnable]
#: Whether the reference here serves tasks: without it no TASK case can fail.
#: Suites run at once: one per core of the 2-core machines CI runs on.
WORKERS = 2
_ENTRY = re.compile(r"^(?P<id>\*|[\w/-]+)(?:\[(?P<revision>[\d-]+)\])?$")


def covers(entry: str, case: dict) -> bool:
    match = _ENTRY.match(entry)
    assert match, f"not a BREAKS entry: {entry!r}"
    wanted_id, revision = match["id"], match["revision"]
    return (wanted_id == "*" or wanted_id in case["checks"]) and revision in (None, case["revision"])


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, SuiteRun]]:
    tmp = tmp_path_factory.mktemp("mutants")

    runners: queue.Queue[WarmRunner] = queue.Queue()
    for _ in range(WORKERS):
        runners.put(WarmRunner())

    def judge(mutant: Mutant) -> tuple[str, SuiteRun]:
        strict = ["--conformance-strict"] if mutant.strict else []
        runner = runners.get()
        try:
            with served(mutant) as target:
                return mutant.name, runner.run(tmp / mutant.name, f"--server={target}", *strict,
                                               env={"ELICIT_FUZZ": _fuzz(mutant)})
        finally:
            runners.put(runner)

    @contextlib.contextmanager
    def served(mutant: Mutant) -> Iterator[str]:
        """What --server names: the module in-process, or the URL its `asgi` is served at."""
        if mutant.serve != "http":
            yield mutant.server
            return
        with LocalServer(mutant.asgi, log=tmp / f"{mutant.name}.uvicorn.log") as server:
            yield server.url

    try:
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            yield dict(pool.map(judge, MUTANTS))
    finally:
        while not runners.empty():
            runners.get().close()


def _fuzz(mutant: Mutant) -> str:
    claims_sec = any(_ENTRY.match(e)["id"] == "*" or e.startswith("SEC-") for e in mutant.breaks)
    return "ci" if claims_sec else "quick"


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_mutant_fails_exactly_the_cases_it_breaks(verdicts: dict[str, SuiteRun], mutant: Mutant) -> None:
    result = verdicts[mutant.name]
    assert result.index["cases"], f"{mutant.name}: no report\n{result.output[-3000:]}"
    # Without the tasks extra the reference offers no tasks: its TASK cases read "not implemented".
    # Over HTTP the REG cases are skipped: registration is not on the wire.
    failed = [case for case in result.index["cases"] if case["status"] not in ("pass", "not implemented", "skipped")]
    assert result.returncode == 1 and failed, f"{mutant.name} survived: {mutant.summary}"
    assert {case["status"] for case in failed} == {"fail"}, [(c["nodeid"], c["status"]) for c in failed]
    unrelated = [c["nodeid"] for c in failed if not any(covers(e, c) for e in mutant.breaks)]
    assert not unrelated, f"{mutant.name} also fails cases it is not meant to: {unrelated}"
    unproven = [e for e in mutant.breaks if not any(covers(e, c) for c in failed)
                and (TASKS_SERVED or not e.startswith("TASK-"))]
    assert not unproven, f"{mutant.name} is said to break {unproven}, but no such case failed"


def test_every_must_row_kills_a_mutant() -> None:
    table = Table.load()
    musts = {r.id for r in table.rows.values() if r.level == "MUST" and not r.excluded}
    named = {_ENTRY.match(e)["id"] for m in catalogue() for e in m.breaks}
    assert musts <= named, f"MUST rows no mutant breaks: {sorted(musts - named)}"
    families = {row.split("-")[0] for row in musts}
    assert families <= {row.split("-")[0] for row in named}


def test_mutation_score(verdicts: dict[str, SuiteRun], capsys: pytest.CaptureFixture[str]) -> None:
    killed = [name for name, result in verdicts.items() if result.returncode == 1]
    score = len(killed) / len(MUTANTS)
    with capsys.disabled():
        print(f"\nmutation score: {len(killed)}/{len(MUTANTS)} mutants caught ({score:.0%})")
    assert score == 1.0, sorted(set(verdicts) - set(killed))


def test_each_mutant_says_what_it_breaks() -> None:
    for mutant in MUTANTS:
        # One line naming the behaviour, with the case it breaks in brackets.
        assert re.search(r"\([A-Z]+-\d", mutant.summary) and mutant.breaks, mutant.name
        rows = set(Table.load().rows) | {"*"}
        unknown = [e for e in mutant.breaks if _ENTRY.match(e)["id"] not in rows]
        assert not unknown, f"{mutant.name}: BREAKS names rows the table does not have: {unknown}"
