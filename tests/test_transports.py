"""The whole suite against the reference three ways: in-process, over HTTP
(uvicorn on 127.0.0.1), and over stdio; and over stdio again with pytest-xdist
(`-n 2`), the transport where each worker keeps server processes of its own.
Same verdicts, same transcripts. (That `-n 2` reports what a single run does is
tests/test_xdist.py; that it works from the wheel, tests/test_wheel.py.)

Each run is a `pytest` child process writing a conformance report (the generated
attacks on their quick profile over the wire, in full in-process); the HTTP
and stdio runs also compare every transcript with the golden ones
(`--golden-transcripts`), which is what "same transcripts" means here. The
stdio server keeps its records in memory, as an ordinary server does: the
suite's observations ride the process that served the call.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from elicit_conformance.dev.local_server import LocalServer
from elicit_conformance.requirements import Table
from elicit_conformance.revisions import ERAS
from tests import forkserver
from tests.suite import QUICK, ROOT, TASKS_SERVED, SuiteRun, finish, golden_all_same, start

TRANSPORTS = ["in-process", "http", "stdio", "stdio -n 2"]
#: The case files, last first.
REVERSED = tuple(str(f.relative_to(ROOT)) for f in sorted((ROOT / "conformance" / "cases").glob("test_*.py"),
                                                           reverse=True))
#: The client identities the cases use: each revision, declaring both
#: elicitation modes, URL mode only, or none; and on 2026-07-28 a client opting
#: into tasks, with form elicitation or without (TASK-5).
IDENTITIES = len(ERAS) * 3 + 2


def _stdio(command: str, pids: Path) -> str:
    """The reference's stdio command, each start of it written to `pids`."""
    return f"--server-command=sh -c 'echo $$ >> {pids}; exec {command}'"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, SuiteRun]]:
    tmp = tmp_path_factory.mktemp("transports")
    # `python -m elicit_conformance.reference`, each forked from one warm interpreter
    # (tests/forkserver.py): a process per client identity, 3 s of imports each otherwise.
    with LocalServer("elicit_conformance.reference.asgi:asgi", log=tmp / "uvicorn.log") as server, \
            forkserver.serving("elicit_conformance.reference", ROOT) as reference:
        options = {
            "in-process": [],
            "http": [f"--server={server.url}", "--golden-transcripts"],
            "stdio": [_stdio(reference, tmp / "stdio.pids"), "--golden-transcripts"],
            "stdio -n 2": [_stdio(reference, tmp / "stdio-n2.pids"), "--golden-transcripts", "-n", "2"],
        }
        # The generated attacks run in full in-process; over the wire their quick profile
        # (the same kinds, fewer plans) is enough to show the transports agree.
        # In-process the case files run in reverse order: a worker under -n runs any share of
        # the cases in any order, so no case may depend on those run before it.
        started = {name: start(tmp / name.replace(" ", ""), *options[name],
                               env=None if name == "in-process" else QUICK,
                               cases=REVERSED if name == "in-process" else ("conformance/cases",))
                   for name in TRANSPORTS}
        yield {name: finish(process, tmp / name.replace(" ", "")) for name, process in started.items()}


def test_no_case_depends_on_the_cases_run_before_it(runs: dict[str, SuiteRun]) -> None:
    """The in-process run took the case files in reverse order. Refs shared between cases
    once made SEC-1 and BAT-2 read the body runs of the BAT-1 and BAT-3 scenarios when
    those ran first."""
    run = runs["in-process"]
    assert [row["nodeid"].split("::")[0] for row in run.index["cases"]][0] == REVERSED[0]
    assert run.returncode == 0, run.output[-3000:]
    assert set(run.judged().values()) <= {"pass", "skipped"}


def test_stdio_starts_a_process_per_client_identity_not_per_connection(runs: dict[str, SuiteRun]) -> None:
    directory = runs["stdio"].directory.parent
    alone = (directory / "stdio.pids").read_text().split()
    spread = (directory / "stdio-n2.pids").read_text().split()
    # Hundreds of connections, and at most a process for each client identity (per worker).
    assert 1 <= len(alone) <= IDENTITIES, alone
    assert len(spread) <= 2 * IDENTITIES, spread


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_whole_suite_passes_against_the_reference(runs: dict[str, SuiteRun], transport: str) -> None:
    run = runs[transport]
    assert run.returncode == 0, run.output[-5000:]
    statuses = set(run.judged().values())
    assert statuses <= {"pass", "skipped"} and "pass" in statuses, run.index["totals"]
    assert golden_all_same(run.output), "the golden transcripts were not compared, or differ"


@pytest.mark.parametrize("transport", TRANSPORTS[1:])
def test_same_verdicts_as_in_process(runs: dict[str, SuiteRun], transport: str) -> None:
    here, there = runs["in-process"].statuses(), runs[transport].statuses()
    assert set(here) == set(there)
    differing = {nodeid: (here[nodeid], there[nodeid]) for nodeid in here if here[nodeid] != there[nodeid]}
    # Registration is not on the wire: only an in-process target can run REG cases.
    assert all("test_registration.py" in nodeid and status == ("pass", "skipped")
               for nodeid, status in differing.items()), differing


def test_the_http_status_of_a_refusal_is_judged_over_http_only(runs: dict[str, SuiteRun]) -> None:
    """ERA-7/http reads a status only a URL target has: judged there, "not evaluated" elsewhere."""
    def era_7_http(transport: str) -> set[str]:
        return {case["rows"]["ERA-7/http"]["status"] for case in runs[transport].index["cases"]
                if "ERA-7/http" in case.get("rows", {})}

    assert era_7_http("http") == {"pass"}
    assert era_7_http("in-process") == era_7_http("stdio") == {"not evaluated"}


def test_the_report_is_complete_and_readable(runs: dict[str, SuiteRun]) -> None:
    run = runs["in-process"]
    report = run.directory / "report"
    rows = run.index["cases"]
    assert run.index["target"] == "elicit_conformance.reference.app:app" and not run.index["problems"]
    for row in rows:
        assert {"case", "revision", "level", "status", "duration", "transcript"} <= set(row)
        assert row["level"] in ("MUST", "SHOULD", "INFORMATIONAL")
    # Registration cases are in-process, and the generated attacks (thousands of
    # requests) report counts: they alone may leave no transcript.
    silent = ("test_registration.py::test_reg", "test_registration.py::test_era_6_prompt_with_elicit",
              "test_registration.py::test_era_6_an_ordinary_prompt", "test_hostile_input.py")
    wired = [row for row in rows if row["transcript"]]
    unwired = [row["nodeid"] for row in rows if not row["transcript"] and not any(s in row["nodeid"] for s in silent)]
    assert wired and not unwired, f"cases that kept no transcript: {unwired}"
    for row in wired:
        lines = (report / row["transcript"]).read_text().splitlines()
        messages = [json.loads(line) for line in lines]
        assert messages and all({"direction", "message"} <= set(m) for m in messages)
    info = next(row for row in rows if row["case"] == "INFO/keys")
    assert info["facts"]["INFO/keys"] == [["destination", "date"], ["proceed"]]
    summary = (report / "summary.md").read_text()
    assert summary.startswith("### elicit-conformance against elicit_conformance.reference.app:app:")
    assert "| Test | Checks | Revision | Level | Status | Note |" in summary
    assert "| test_scenario[ORD-4-2026-07-28] | ORD-4 BAT-4 | 2026-07-28 | MUST | pass |" in summary
    test_ids = [line.split("|")[1].strip() for line in summary.splitlines() if line.startswith("| test_")]
    # Not-implemented cases are rolled up, one line per cause, not given a row each.
    tabled = [row for row in rows if row["status"] != "not implemented"]
    assert len(test_ids) == len(set(test_ids)) == len(tabled), "one row per case, each told apart"
    verdicts = (report / "verdicts.md").read_text()
    listed = {line.split("|")[1].strip() for line in verdicts.splitlines()[2:]}
    table = Table.load()
    assert listed == {row.id for row in table.rows.values() if not row.excluded}
    # BAT-4 is a modern-era row; where no tasks are served its tasked case reads not implemented.
    unserved = "" if TASKS_SERVED else r" \(\d+ of \d+ cases; 1 not implemented: io\.modelcontextprotocol/tasks not offered\)"
    assert re.search(rf"^\| BAT-4 \| SHOULD \| pass{unserved} \|  \|  \| feature: rounds \|$", verdicts, re.M), verdicts
    assert "| REG-1 | MUST |  |  | pass |" in verdicts  # registration has no revision


def test_junit_carries_case_id_and_level(runs: dict[str, SuiteRun]) -> None:
    tree = ET.parse(runs["in-process"].directory / "junit.xml")
    properties = {}
    for testcase in tree.iter("testcase"):
        if testcase.get("name") == "test_scenario[OPT-3-2025-11-25]":
            properties = {p.get("name"): p.get("value") for p in testcase.iter("property")}
    assert properties["case"] == "OPT-3" and properties["level"] == "MUST"
    assert properties["revision"] == "2025-11-25"
