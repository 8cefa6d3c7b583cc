"""The suite's own verdict: every mutant in `fixtures/mutants/` is caught, each by
exactly the cases it is meant to fail, and every MUST row kills some mutant.

Not by a whole suite per mutant: the cases a mutant can change are those that
call what it replaced (tests/footprint.py), and of those, where it replaced a
function of the sans-IO engine, only the cases in which its replacement did
something else than the original when run beside it (tests/shadow.py). So the
reference's suite runs once with every case's footprint recorded and every such
replacement run beside it (the generated attacks on their quick profile), and
each mutant runs only the cases it can change; every other case runs on the
mutant exactly as on the reference, which passes it. Where that cannot be
claimed (the mutant replaces something called at import, or nothing through
`patch()`), its whole suite runs. The claim itself is checked on every run: a
sample of mutants also runs whole, and must give the same verdicts.

Runs are children of the warm interpreter (`tests.suite.start`), three at a
time; a mutant marked `SERVE = "http"` is judged at the URL its `asgi` is
served on by uvicorn, whole, from the start. A mutant that claims no SEC row runs
the generated attacks on their `quick` profile, where they were recorded: it is
checked not to fail them, on fewer examples; one that claims SEC rows runs the
explicit examples and the quick ones, which it must fail (profile `brief`: unshrunk),
whatever its selection.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from elicit_conformance.dev.local_server import LocalServer
from elicit_conformance.fixtures.mutants import Mutant, catalogue
from elicit_conformance.requirements import Table
from elicit_conformance.revisions import MODERN
from tests.footprint import MUTANT, RECORD, SELECT, SELECTION, Footprints
from tests.shadow import SHADOW
from tests.suite import FUZZ, QUICK, TASKS_SERVED, SuiteRun, run

#: The mutants this installation can import (the `task_*` ones need the tasks extra).
MUTANTS = [m for m in catalogue() if m.runnable]
#: Suites run at once: one more than the 2 cores CI has, because a run waits on sockets
#: and task polls for about a quarter of its time (alone on 2 cores: 2 at once took
#: 184 s at 153% CPU, 3 at once 153 s at 190%).
WORKERS = 3
#: How many mutants also run whole, to check that the cases left out were unchanged, of
#: each way of choosing them (tests/footprint.py): those that leave out the most, where the
#: claim carries the most weight.
SAMPLE = 1
_ENTRY = re.compile(r"^(?P<id>\*|[\w/-]+)(?:\[(?P<revision>[\d-]+)\])?$")
#: Every mutant run: the footprint plugin; and not pytest's hunt for unraisable exceptions,
#: two full collections at exit (0.2 s a run) for warnings no mutant's verdict reads.
FOOTPRINT = ("-p", "tests.footprint", "-p", "no:unraisableexception")
#: The reference's recorded runs also run the engine's replacements beside it.
SHADOWED = ("-p", "tests.shadow")
#: Why a mutant ran whole where no selection was asked for, by whether it was checking one.
WHOLE = {False: "it is served over HTTP, its replacements in a process of its own", True: "checking the selection"}


def covers(entry: str, case: dict) -> bool:
    match = _ENTRY.match(entry)
    assert match, f"not a BREAKS entry: {entry!r}"
    wanted_id, revision = match["id"], match["revision"]
    return (wanted_id == "*" or wanted_id in case["checks"]) and revision in (None, case["revision"])


@dataclass
class Judged:
    """A mutant's run: the cases it ran, and why it ran them all where it did."""

    run: SuiteRun
    #: Why every case ran, or None where only the cases it can change did.
    whole: str | None
    #: How those were chosen (tests/footprint.py), where they were.
    by: str | None
    #: The cases that ran.
    ran: list[str]


@dataclass
class Matrix:
    reference: SuiteRun
    mutants: dict[str, Judged]
    #: Mutants run whole as well, to check the claim.
    checked: dict[str, SuiteRun]
    collected: int


@pytest.fixture(scope="module")
def matrix(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Matrix:
    tmp = tmp_path_factory.mktemp("mutants")
    # `-k one_per_round` judges that mutant alone; a run that selects no mutant judges them all.
    chosen = {item.callspec.params["mutant"].name for item in request.session.items
              if "mutant" in getattr(getattr(item, "callspec", None), "params", {})}
    mutants = [m for m in MUTANTS if m.name in chosen] or MUTANTS
    # The reference, recorded: the whole suite, the generated attacks on their quick profile.
    # A mutant that must fail them runs their ci examples whatever its selection (a
    # recording on the quick profile says nothing of those: `Footprints.recorded`).
    recording, shadow, united = tmp / "footprint.json", tmp / "shadow.json", tmp / "footprints.json"

    def record() -> SuiteRun:
        return run(tmp / "reference", *FOOTPRINT, *SHADOWED,
                   env={**QUICK, RECORD: str(recording), SHADOW: str(shadow)})

    def judge(mutant: Mutant, checking: bool = False) -> tuple[str, Judged]:
        """The mutant's run: its cases selected, unless `checking` the selection (or
        served over HTTP, its replacements in uvicorn's process, out of a selection's sight)."""
        strict = ["--conformance-strict"] if mutant.strict else []
        directory = tmp / (f"{mutant.name}-whole" if checking else mutant.name)
        env = {FUZZ: _fuzz(mutant)}
        if not checking and mutant.serve != "http":
            env |= {SELECT: str(united), SELECTION: str(directory / "selection.json"),
                    MUTANT: mutant.name}
        with served(mutant, directory) as target:
            result = run(directory, *FOOTPRINT, f"--server={target}", *strict, env=env)
        selection = directory / "selection.json"
        chosen = json.loads(selection.read_text()) if selection.exists() else {"whole": WHOLE[checking], "run": None}
        return mutant.name, Judged(result, chosen["whole"], chosen.get("by"),
                                   chosen["run"] or [c["nodeid"] for c in result.index["cases"]])

    @contextlib.contextmanager
    def served(mutant: Mutant, directory: Path) -> Iterator[str]:
        """What --server names: the module in-process, or the URL its `asgi` is served at."""
        if mutant.serve != "http":
            yield mutant.server
            return
        with LocalServer(mutant.asgi, log=directory.with_suffix(".uvicorn.log")) as server:
            yield server.url

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        # Those served over HTTP run whole: they need not wait for the recording.
        apart = [pool.submit(judge, m) for m in mutants if m.serve == "http"]
        reference = pool.submit(record).result()
        Footprints.united([recording], [shadow]).save(united)
        # Those that must fail the long attacks first: the others fill in around them.
        order = sorted((m for m in mutants if m.serve != "http"), key=lambda m: _fuzz(m) != "brief")
        judged = dict(pool.map(judge, order)) | dict(f.result() for f in apart)
        narrowest = sorted((m for m in mutants if judged[m.name].whole is None), key=lambda m: len(judged[m.name].ran))
        sample = [m for by in sorted({judged[m.name].by for m in narrowest})
                  for m in [m for m in narrowest if judged[m.name].by == by][:SAMPLE]]
        checked = {name: result.run for name, result in pool.map(lambda m: judge(m, checking=True), sample)}
    return Matrix(reference, judged, checked, len(reference.index["cases"]))


def _fuzz(mutant: Mutant) -> str:
    """`brief` (every explicit example, then the quick ones, unshrunk: only failing counts
    here) for a mutant that may be meant to fail the generated attacks (a SEC row, or every
    case of their revision); `quick` for one checked not to fail them."""
    entries = [_ENTRY.match(e) for e in mutant.breaks]
    claims_sec = any(e["id"].startswith("SEC-") or (e["id"] == "*" and e["revision"] in (None, MODERN))
                     for e in entries)
    return "brief" if claims_sec else "quick"


def test_the_reference_fails_no_case_while_recorded(matrix: Matrix) -> None:
    run = matrix.reference
    assert run.returncode == 0, run.output[-3000:]
    assert set(run.judged().values()) == {"pass"}, run.index["totals"]


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_mutant_fails_exactly_the_cases_it_breaks(matrix: Matrix, mutant: Mutant) -> None:
    result = matrix.mutants[mutant.name].run
    assert result.index["cases"], f"{mutant.name}: no report\n{result.output[-3000:]}"
    # Without the tasks extra the reference offers no tasks: its TASK cases read "not implemented".
    # Over HTTP the REG cases are skipped: registration is not on the wire.
    # The cases it did not run are the reference's passes (tests/footprint.py).
    failed = [case for case in result.index["cases"] if case["status"] not in ("pass", "not implemented", "skipped")]
    assert result.returncode == 1 and failed, f"{mutant.name} survived: {mutant.summary}"
    assert {case["status"] for case in failed} == {"fail"}, [(c["nodeid"], c["status"]) for c in failed]
    unrelated = [c["nodeid"] for c in failed if not any(covers(e, c) for e in mutant.breaks)]
    assert not unrelated, f"{mutant.name} also fails cases it is not meant to: {unrelated}"
    unproven = [e for e in mutant.breaks if not any(covers(e, c) for c in failed)
                and (TASKS_SERVED or not e.startswith("TASK-"))]
    assert not unproven, f"{mutant.name} is said to break {unproven}, but no such case failed"
    if mutant.rows:
        named = {row for case in failed for row, result in case["rows"].items() if result["status"] == "fail"}
        assert named and named <= set(mutant.rows), (
            f"{mutant.name}: its verdicts name {sorted(named)}; the rows it breaks are {list(mutant.rows)}")


def test_the_cases_left_out_are_unchanged(matrix: Matrix) -> None:
    """The claim that lets a mutant skip cases, checked: run whole, the sampled mutants
    fail exactly what they failed on the cases reaching their replacements."""
    assert matrix.checked, "no mutant ran on fewer than all cases: nothing was claimed"
    ways = {judged.by for judged in matrix.mutants.values() if judged.whole is None}
    assert {matrix.mutants[name].by for name in matrix.checked} == ways, "a way of choosing cases went unchecked"
    for name, whole in matrix.checked.items():
        selected = matrix.mutants[name]
        assert len(selected.ran) < len(whole.index["cases"]), name
        statuses = whole.statuses()
        expected = matrix.reference.statuses() | selected.run.statuses()
        changed = {n: (expected[n], statuses[n]) for n in statuses if expected[n] != statuses[n]}
        assert not changed, f"{name}: the whole suite differs from the selected run: {changed}"


def test_every_must_row_kills_a_mutant() -> None:
    table = Table.load()
    musts = {r.id for r in table.rows.values() if r.level == "MUST" and not r.excluded}
    named = {_ENTRY.match(e)["id"] for m in catalogue() for e in m.breaks}
    assert musts <= named, f"MUST rows no mutant breaks: {sorted(musts - named)}"
    families = {row.split("-")[0] for row in musts}
    assert families <= {row.split("-")[0] for row in named}


def test_mutation_score(matrix: Matrix, capsys: pytest.CaptureFixture[str]) -> None:
    killed = [name for name, judged in matrix.mutants.items() if judged.run.returncode == 1]
    score = len(killed) / len(matrix.mutants)
    ran = sum(len(judged.ran) for judged in matrix.mutants.values())
    whole = sum(judged.whole is not None for judged in matrix.mutants.values())
    kinds = Counter(judged.by for judged in matrix.mutants.values() if judged.by)
    with capsys.disabled():
        print(f"\nmutation score: {len(killed)}/{len(matrix.mutants)} mutants caught ({score:.0%}); "
              f"{ran} case runs of {len(matrix.mutants) * matrix.collected} ({whole} mutants whole; "
              f"cases chosen by {', '.join(f'{by} for {n}' for by, n in sorted(kinds.items()))}; "
              f"checked whole: {', '.join(sorted(matrix.checked))})")
    assert score == 1.0, sorted(set(matrix.mutants) - set(killed))


def test_each_mutant_says_what_it_breaks() -> None:
    for mutant in MUTANTS:
        # One line naming the behaviour, with the case it breaks in brackets.
        assert re.search(r"\([A-Z]+-\d", mutant.summary) and mutant.breaks, mutant.name
        rows = set(Table.load().rows) | {"*"}
        unknown = [e for e in mutant.breaks if _ENTRY.match(e)["id"] not in rows]
        assert not unknown, f"{mutant.name}: BREAKS names rows the table does not have: {unknown}"
