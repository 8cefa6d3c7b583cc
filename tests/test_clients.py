"""The client cases (`elicit_conformance.clients`) judged as a client author runs them:
two real clients (fastmcp's and the MCP Python SDK's) do what their kept reports say, and
the hand-written raw client taking every freedom the specification grants it passes; each
fault of the raw client (a mutant client) fails its own rows and no other, every other case
passing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from elicit_conformance.dev import implementations
from elicit_conformance.fixtures.clients.raw_client import FAULT_VAR, FAULTS, FREEDOMS
from elicit_conformance.requirements import Table
from elicit_conformance.run.sides import CLIENT_TABLE
from tests import suite

CLIENT_CASES = ("conformance/clients",)
RAW = f"{sys.executable} -m elicit_conformance.fixtures.clients.raw_client"
#: The raw client speaks 2026-07-28 alone, as a client of that revision may: its runs leave the
#: handshake era's cases out, as any run does with --revision.
RAW_REVISION = "--revision=2026-07-28"
#: The real clients, by the name their report is kept under (docs/implementations.md's Clients,
#: which explains each non-pass from their source): the Python ones by command, and the
#: TypeScript SDK's, installed once a run needs it (`real_command`).
PYTHON_REAL = {"fastmcp-client": f"{sys.executable} -m elicit_conformance.fixtures.clients.fastmcp_client",
               "mcp-sdk-client": f"{sys.executable} -m elicit_conformance.fixtures.clients.mcp_sdk_client"}
REAL = (*PYTHON_REAL, "typescript-client")


def real_command(request: pytest.FixtureRequest, name: str) -> str:
    """The command that runs the real client `name` (tests/conftest.py installs the TypeScript one)."""
    return PYTHON_REAL[name] if name in PYTHON_REAL else request.getfixturevalue("typescript_client")
#: The raw client as written passes wherever a fault below leaves a case alone; taking every
#: freedom at once (they are independent), it must pass every case.
EVERY_FREEDOM = f"{RAW} " + " ".join(f"--freedom {freedom}" for freedom in FREEDOMS)


def _said(run: suite.SuiteRun) -> str:
    return run.output[-3000:]


def test_a_right_client_passes_every_case(tmp_path: Path) -> None:
    run = suite.run(tmp_path / "run", f"--client-command={EVERY_FREEDOM}", RAW_REVISION, cases=CLIENT_CASES)
    statuses = run.statuses()
    assert run.returncode == 0 and statuses, _said(run)
    assert set(statuses.values()) == {"pass"}, statuses


#: Each real client's golden transcripts, what it sent case by case (its `--conformance-snapshots`).
GOLDEN = suite.ROOT / "fixtures" / "clients" / "golden"


def check_kept(name: str, command: str, index: dict[str, Any], report: Path, output: str) -> None:
    """A real client's run (its report's `index`) is what docs/implementations.md shows of it,
    and what it sent is its golden transcripts (a client that changes what it sends, verdicts
    unchanged, is seen here first)."""
    assert implementations.kept(index) == implementations.committed(name), (
        f"fixtures/clients/reports/{name}.json is stale: run `python -m elicit_conformance.dev.implementations "
        f"{name}={report}`")
    # A case marked transcript_varies is compared with nothing ("").
    changed = {case["test_id"]: case["golden_found"] for case in index["cases"] if case["golden_found"] not in ("same", "")}
    assert not changed, (f"{name} sent otherwise than its golden transcripts ({changed}): review the diffs below, and "
                         f"if meant, run `pytest --pyargs elicit_conformance.clients --client-command=\"{command}\" "
                         f"--conformance-snapshots={GOLDEN / name} --snapshot-update`\n{output[-3000:]}")


#: How each Python real client of this checkout's venv is run here: the MCP SDK's in-process
#: (`--client`, its adapter's `main`); fastmcp's by command, since in the suite's process
#: (where the reference's fastmcp-tasks is imported) every fastmcp Client declares the tasks
#: extension, and what it sends would not be what it sends on its own.
RUN_AS = {"fastmcp-client": f"--client-command={PYTHON_REAL['fastmcp-client']}",
          "mcp-sdk-client": "--client=elicit_conformance.fixtures.clients.mcp_sdk_client:main"}


@pytest.mark.parametrize("name", list(RUN_AS))
def test_a_real_client_does_what_its_kept_report_says(tmp_path: Path, name: str) -> None:
    """The Python clients of this checkout's venv (fastmcp 4.2, which pip resolves without the
    tasks extra, and the TypeScript SDK's are run the same way from the built wheel,
    tests/test_wheel.py: one run each proves both). In-process, the MCP SDK's gives the
    verdicts and the golden transcripts it gives by command (its golden files were written
    by command), at the cost of its calls alone."""
    run = suite.run(tmp_path / "run", RUN_AS[name], f"--conformance-snapshots={GOLDEN / name}", cases=CLIENT_CASES)
    assert run.returncode in (0, 1) and run.index["cases"], _said(run)
    check_kept(name, PYTHON_REAL[name], run.index, run.directory / "report", run.output)


CLIENT_ROWS = Table.load(CLIENT_TABLE).rows
#: The hand-written client in-process, its fault named in the environment (raw_client.configured):
#: its command's path is the right client's run above; a mutant costs its calls alone.
RAW_IN_PROCESS = "--client=elicit_conformance.fixtures.clients.raw_client:configured"
#: Each mutant client: how the run names it, the environment it runs in, the rows it breaks,
#: what it does, the run's options, and the real client it patches (whose own non-passes,
#: kept, it keeps too), if any.
MUTANTS = {
    # A fault that breaks a SHOULD row runs strict: a SHOULD not met only warns otherwise.
    **{fault: (RAW_IN_PROCESS, {FAULT_VAR: fault}, breaks, summary,
               (RAW_REVISION, *(("--conformance-strict",) if any(CLIENT_ROWS[row].level == "SHOULD" for row in breaks)
                                else ())), None)
       for fault, (breaks, summary) in FAULTS.items()},
    # On both revisions, by command (their patches would reach the suite's own process): a real
    # client patched (tests/undeclared_client.py, tests/made_up_client.py).
    "elicitation-undeclared": (f"--client-command={sys.executable} {Path(__file__).parent / 'undeclared_client.py'}",
                               {}, ("CLI-5", "CLI-11"), "the fastmcp client answering questions it never declared it can",
                               (), "fastmcp-client"),
    "answers-made-up-by-a-real-client": (f"--client-command={sys.executable} {Path(__file__).parent / 'made_up_client.py'}",
                                         {}, ("CLI-15",),
                                         "the MCP SDK client accepting, without a handler, what it was asked", (),
                                         "mcp-sdk-client"),
}


def _failing_rows(cases: list[dict[str, Any]]) -> set[str]:
    return {row for case in cases for row, result in case["rows"].items() if result["status"] == "fail"}


@pytest.mark.parametrize("fault", sorted(MUTANTS))
def test_a_faulty_client_fails_its_rows_and_no_other(tmp_path: Path, fault: str) -> None:
    client, env, breaks, summary, options, base = MUTANTS[fault]
    run = suite.run(tmp_path / "run", client, *options, env=env, cases=CLIENT_CASES)
    kept = implementations.committed(base)["cases"] if base else []
    # A case the real client it patches does not implement (tasks), it does not implement either.
    unimplemented = {case["test_id"] for case in kept if case["status"] == "not implemented"}
    failed = [case for case in run.index["cases"] if case["status"] != "pass"
              and not (case["status"] == "not implemented" and case["test_id"] in unimplemented)]
    assert run.returncode == 1 and failed, f"{fault} ({summary}) passed every case:\n{_said(run)}"
    assert {case["status"] for case in failed} == {"fail"}, [(c["nodeid"], c["status"], c["message"]) for c in failed]
    inherited = _failing_rows(kept)
    rows = _failing_rows(failed)
    assert rows == set(breaks) | inherited, f"{fault} ({summary}) failed the rows {sorted(rows)}, not {list(breaks)}"


@pytest.mark.parametrize(("option", "said"), [
    ("--client-command=no-such-client-xyz", "--client-command='no-such-client-xyz': 'no-such-client-xyz' is not a "
     "command on PATH"),
    ("--client=no_such_module_xyz", "--client='no_such_module_xyz' is not module:function"),
    ("--client=no_such_module_xyz:main", "--client='no_such_module_xyz:main': module 'no_such_module_xyz' could not be "
     "imported"),
    ("--client=os:getcwd", "--client='os:getcwd' is a builtin_function_or_method, not an async function"),
], ids=["command-not-there", "not-module-function", "module-not-there", "not-async"])
def test_a_client_that_is_not_there_is_one_usage_error(tmp_path: Path, option: str, said: str) -> None:
    run = suite.run(tmp_path / "run", option, cases=CLIENT_CASES)
    assert run.returncode == 4, _said(run)
    assert said in run.output, _said(run)


@pytest.mark.parametrize("how", ["command", "in-process"])
def test_a_client_that_hangs_is_stopped_and_said(tmp_path: Path, how: str) -> None:
    client = (f"--client-command={sys.executable} -c 'import time; time.sleep(600)'" if how == "command"
              else "--client=tests.in_process_client:hangs")
    run = suite.run(tmp_path / "run", client, "-k", "without_result_type", "--conformance-timeout=1",
                    cases=CLIENT_CASES)
    (case,) = run.index["cases"]
    assert case["status"] == "fail", case
    assert "the client was stopped after 1 s" in case["message"], case["message"]


def test_an_in_process_client_that_raises_is_said_as_a_command_that_failed(tmp_path: Path) -> None:
    run = suite.run(tmp_path / "run", "--client=tests.in_process_client:fails", "-k", "one_question",
                    cases=CLIENT_CASES)
    (case,) = run.index["cases"]
    assert case["status"] == "fail", case
    assert "the client exited 1; it printed: ConnectionError: no route to the scenario" in case["message"], case["message"]


@pytest.mark.parametrize(("options", "cases", "said"), [
    ((), CLIENT_CASES, 'the client cases (elicit_conformance.clients) judge a client: name it with --client-command='),
    ((f"--client-command={RAW}", "-k", "BAT-1"), ("conformance/cases",),
     "names a client, and the server cases judge a server: run the client cases alone"),
], ids=["client-cases-no-client", "server-cases-a-client"])
def test_cases_and_a_target_of_the_other_side_are_one_usage_error(tmp_path: Path, options: tuple[str, ...],
                                                                   cases: tuple[str, ...], said: str) -> None:
    run = suite.run(tmp_path / "run", *options, cases=cases)
    assert run.returncode == 4 and said in run.output, _said(run)
