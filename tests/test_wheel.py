"""The suite where its users are: the built wheel, a fresh venv, another folder.

One wheel and one venv for the module (the floor of pytest, 8.x, so both
majors are covered: the repository's own venv has the newest). Every run uses
the venv's `pytest` launcher, from a folder that is not this repository.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from elicit_conformance.catalog import load
from elicit_conformance.dev import implementations
from tests import test_clients
from tests.browser import chromium
from tests.official import check_client
from tests.suite import QUICK, ROOT, checked, child_environment, golden_all_same, source_copy
from tests.typescript import build, http_server

#: The oldest pytest the package declares, installed beside the wheel.
PYTEST_FLOOR = "pytest>=8.2,<9"
SETUP_TIMEOUT = 900
RUN_TIMEOUT = 600

TINY_SERVER = '''\
"""Somebody else's server: two catalog tools on the MCP SDK, counting in memory."""
from collections import Counter
from typing import Annotated

from mcp.server.mcpserver import Elicit, MCPServer, Resolve
from pydantic import BaseModel, Field

app = MCPServer("tiny")
runs: Counter[str] = Counter()


class Text(BaseModel):
    value: str = Field(description="The city you fly to")


def ask_destination() -> Elicit[Text]:
    return Elicit("Where would you like to fly?", Text)


@app.tool()
def body_runs(ref: str) -> int:
    return runs[ref]


@app.tool()
def book_destination(ref: str, destination: Annotated[Text, Resolve(ask_destination)]) -> str:
    runs[ref] += 1
    return f"Booked a flight to {destination.value}"
'''

UNRELATED_TESTS = '''\
import sys

import pytest


@pytest.fixture
def era():
    return "bronze"


@pytest.fixture
def target():
    return "the moon"


def test_own_fixtures_win(era, target):
    assert (era, target) == ("bronze", "the moon")


@pytest.mark.parametrize("case", ["a", "b"])
def test_own_parameters(case):
    assert case in "ab"


def test_nothing_of_the_suite_was_loaded():
    loaded = [m for m in ("elicit_conformance.plugin.hooks", "elicit_conformance.reference", "fastmcp") if m in sys.modules]
    assert not loaded, loaded
'''


@dataclass
class Venv:
    bin: Path

    def pytest(self, cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return self._run([str(self.bin / "pytest"), "-p", "no:cacheprovider", *args], cwd, env or {})

    def script(self, cwd: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        """docs/ci/conformance.sh, with this venv's python first on PATH (as `python`)."""
        return self._run(["bash", str(ROOT / "docs" / "ci" / "conformance.sh"), *args], cwd,
                         {**env, "PATH": f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}"})

    def _run(self, command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        """`command` with `env`, and nothing of the repository's own run (its PYTHONPATH, its target)."""
        environment = {k: v for k, v in child_environment(env).items() if k not in ("PYTHONPATH", "ELICIT_SERVER")}
        return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=RUN_TIMEOUT)


def _run(*command: str | Path, cwd: Path | None = None) -> str:
    return checked(*command, cwd=cwd, timeout=SETUP_TIMEOUT)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = source_copy(tmp_path_factory.mktemp("source"))
    out = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "build", "--wheel", "--outdir", out, source)
    (built,) = out.glob("elicit_conformance-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venv]:
    home = tmp_path_factory.mktemp("venv")
    _run(sys.executable, "-m", "venv", home / "v")
    # With the xdist extra, as the README's install lines say, for `-n`.
    _run(home / "v" / "bin" / "python", "-m", "pip", "install", "-q", f"{wheel}[xdist]", PYTEST_FLOOR)
    _run(home / "v" / "bin" / "python", "-m", "pip", "check")
    yield Venv(home / "v" / "bin")


def test_wheel_holds_one_package_and_what_the_suite_reads(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"elicit_conformance"}, tops
    for needed in ("elicit_conformance/requirements.toml", "elicit_conformance/fixtures/scenarios.json",
                   "elicit_conformance/cases/conftest.py", "elicit_conformance/reference/app/tools.py",
                   "elicit_conformance/clients/requirements.toml", "elicit_conformance/clients/conftest.py",
                   "elicit_conformance/fixtures/clients/fastmcp_client.py"):
        assert needed in names, needed
    assert any(n.startswith("elicit_conformance/snapshots/test_scenarios/") for n in names)
    assert not [n for n in names if "/mutants/" in n or "/peers/" in n], "repo-only material shipped"
    # The repository's own tools (the mutation command, the space writer, regenerate, uvicorn for tests, the benchmark).
    assert not [n for n in names if n.startswith(("elicit_conformance/dev/", "elicit_conformance/bench/"))], \
        "a developer tool shipped"


def test_suite_passes_against_the_bundled_reference_from_an_empty_folder_on_two_workers(venv: Venv, tmp_path: Path) -> None:
    """One run proves both: the bundled reference passes from a folder that is not this
    repository, and the xdist extra spreads the cases over two workers (one report)."""
    result = venv.pytest(tmp_path, "--pyargs", "elicit_conformance.cases", "-n", "2", "--conformance-report=report")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "created: 2/2 workers" in result.stdout or "2 workers [" in result.stdout, result.stdout[:2000]
    assert (tmp_path / "report" / "index.json").exists()
    assert "elicit-conformance target: elicit_conformance.reference.app:app (from default)" in result.stdout
    assert golden_all_same(result.stdout), "the golden transcripts were not compared, or differ"
    headline = re.search(r"^elicit-conformance against \S+: (.*)$", result.stdout, re.M)
    # Installed as docs/using.md says (no tasks extra), the reference offers no tasks:
    # only the TASK cases, and every one of them, read "not implemented"; the refused
    # declarations, which it rightly does not list, are skipped on both revisions.
    refused = 2 * len(load().refused)
    assert headline and re.fullmatch(rf"\d+ pass, \d+ not implemented, {refused} skipped", headline[1]), headline
    assert "not implemented: io.modelcontextprotocol/tasks not offered" in result.stdout, result.stdout[-3000:]


#: The real clients judged from the wheel: the fastmcp client of the wheel's venv (4.2, as pip
#: resolves it without the tasks extra), and the TypeScript SDK's.
@pytest.mark.parametrize("name", ["fastmcp-4.2-client", "typescript-client"])
def test_a_client_judged_from_the_wheel_in_a_folder_of_its_own(venv: Venv, tmp_path: Path,
                                                               request: pytest.FixtureRequest, name: str) -> None:
    """The client cases as a client author runs them, by command: the fastmcp client's
    adapter as shipped, on the fastmcp the wheel's venv resolved (4.2), and the TypeScript
    SDK client's (installed with npm ci); each run is
    what its kept report and golden transcripts say (tests/test_clients.py's check, for these
    two real clients), and the reports are written. fastmcp 4.2's adapter also meets the official
    client scenarios here (tests/official.py), as the other real clients do in
    tests/test_official_suite.py."""
    client = (f"{venv.bin / 'python'} -m elicit_conformance.fixtures.clients.fastmcp_client" if name == "fastmcp-4.2-client"
              else request.getfixturevalue("typescript_client"))
    result = venv.pytest(tmp_path, "--pyargs", "elicit_conformance.clients", f"--client-command={client}",
                         "--conformance-report=report", "--junitxml=junit.xml",
                         f"--conformance-snapshots={test_clients.GOLDEN / name}")
    kept = {case["test_id"]: case["status"] for case in implementations.committed(name)["cases"]}
    # "not implemented" fails no run (a client that does not offer the tasks extension).
    assert result.returncode == (0 if set(kept.values()) <= {"pass", "not implemented"} else 1), \
        result.stdout[-4000:] + result.stderr[-2000:]
    test_clients.check_kept(name, client, json.loads((tmp_path / "report" / "index.json").read_text()),
                            tmp_path / "report", result.stdout)
    for written in ("report/index.html", "report/verdicts.md", "report/summary.md", "report/badge-2026-07-28.json",
                    "junit.xml"):
        assert (tmp_path / written).exists(), written
    if name == "fastmcp-4.2-client":
        check_client(request.getfixturevalue("official"), client, name, tmp_path / "official")


def test_a_failing_client_s_report_page_from_the_wheel_in_headless_chromium(venv: Venv, tmp_path: Path) -> None:
    """The client cases' report is the server cases' page: a mutant client shipped in the wheel
    (the hand-written client re-serializing the state it was given) fails CLI-1 alone, and the
    page, opened in headless Chromium (tests/browser.py), says so with the case's transcript."""
    client = f"{venv.bin / 'python'} -m elicit_conformance.fixtures.clients.raw_client --fault state-reserialized"
    result = venv.pytest(tmp_path, "--pyargs", "elicit_conformance.clients", f"--client-command={client}",
                         "--revision=2026-07-28", "--conformance-report=report")
    assert result.returncode == 1, result.stdout[-4000:] + result.stderr[-2000:]
    report = tmp_path / "report"
    (case,) = [c for c in json.loads((report / "index.json").read_text())["cases"] if c["status"] != "pass"]
    assert case["message"].startswith("CLI-1: the retry carried requestState"), case
    with chromium(tmp_path / "profile") as page:
        page.open((report / "index.html").as_uri())
        text = page.text()
        page.screenshot(report / "screenshot.png")
        assert page.errors == [], page.errors
        # The sentence quotes a state with runs of spaces, which a page shows as one.
        assert " ".join(case["message"].split()) in " ".join(text.split())
        assert re.search(r"CLI-1\tMUST\tfail\b", text), text[:3000]
        section = page.evaluate(f"document.getElementById({json.dumps(case['test_id'])}).innerText")
        assert "calls book_destination with" in section and "Where would you like to fly?" in section
    assert (report / "screenshot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_third_party_server_module_in_its_own_project(venv: Venv, tmp_path: Path) -> None:
    (tmp_path / "tiny.py").write_text(TINY_SERVER)
    result = venv.pytest(
        tmp_path, "--pyargs", "elicit_conformance.cases", "--server=tiny:app",
        "--conformance-report=report", "--conformance-write-baseline=baseline.txt",
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output[-4000:]  # most of the catalog is missing
    assert "elicit-conformance target: tiny:app (from --server)" in result.stdout
    statuses = _statuses(tmp_path / "report" / "summary.md")
    for test_id in ("test_scenario[BAT-1-2026-07-28]", "test_scenario[BAT-1-2025-11-25]",
                    "test_scenario[OPT-3-2026-07-28]", "test_scenario[OPT-4-2025-11-25]"):
        assert statuses[test_id] == "pass", (test_id, statuses[test_id])
    assert statuses["test_scenario[ORD-4-2026-07-28]"] == "not testable"
    assert re.search(r"\d+ not testable", result.stdout.splitlines()[-1]), result.stdout.splitlines()[-1]
    # The written baseline makes the same run pass, and names each failing case once;
    # the user's own warning filters (-W error) do not turn its SHOULD warnings
    # (TYP-4/clear, TYP-5/clear here) into failures.
    baseline = (tmp_path / "baseline.txt").read_text()
    assert "test_scenario[ORD-4-2026-07-28]: Not testable:" in baseline
    assert "test_scenario[BAT-1-2026-07-28]" not in baseline
    assert "SHOULD not met: TYP-4/clear" in result.stdout
    again = venv.pytest(tmp_path, "--pyargs", "elicit_conformance.cases", "--server=tiny:app",
                        "--conformance-baseline=baseline.txt", "-W", "error")
    assert again.returncode == 0, again.stdout[-4000:]


def test_a_server_keeps_its_own_golden_transcripts_with_the_ci_script(venv: Venv, tmp_path: Path) -> None:
    """A framework author's project (the small server above) pins its own wire behaviour:
    --snapshot-update writes its golden transcripts, an unchanged run is clean, and a
    question reworded where the catalog does not fix the words (its description) fails
    the run as a behaviour change, shown as a short diff, with every verdict unchanged.
    Runs through docs/ci/conformance.sh, as the GitHub Actions example does, the
    directory named by the project's pytest.ini (`elicit_snapshots`)."""
    (tmp_path / "tiny.py").write_text(TINY_SERVER)
    first = venv.pytest(tmp_path, "--pyargs", "elicit_conformance.cases", "--server=tiny:app",
                        "--conformance-write-baseline=baseline.txt", "--conformance-snapshots=golden",
                        "--snapshot-update")
    written = sorted((tmp_path / "golden").rglob("*.jsonl"))
    assert written and "written" in first.stdout, first.stdout[-3000:]
    # From here on the project's own ini names the directory, as a framework's repository would.
    (tmp_path / "pytest.ini").write_text("[pytest]\nelicit_snapshots = golden\n")
    env = {"ELICIT_BASELINE": "baseline.txt"}

    main = venv.script(tmp_path, "report-main", "--server=tiny:app", env=env)
    assert main.returncode == 0, main.stdout[-4000:]
    assert golden_all_same(main.stdout), main.stdout[-2000:]

    tiny = (tmp_path / "tiny.py").read_text()
    (tmp_path / "tiny.py").write_text(tiny.replace("The city you fly to", "Where the flight lands"))
    branch = venv.script(tmp_path, "report-pr", "--server=tiny:app", env={**env, "ELICIT_BASE_REPORT": "report-main"})
    assert branch.returncode == 1, branch.stdout[-4000:]
    verdicts = {k: {c["test_id"]: c["status"] for c in json.loads((tmp_path / k / "index.json").read_text())["cases"]}
                for k in ("report-main", "report-pr")}
    assert verdicts["report-main"] == verdicts["report-pr"]
    changed = [c for c in json.loads((tmp_path / "report-pr" / "index.json").read_text())["cases"]
               if c["golden_found"] == "changed"]
    assert changed, branch.stdout[-3000:]
    for case in changed:
        diff = case["golden_diff"].splitlines()
        assert len(diff) <= 12 and any("Where the flight lands" in line for line in diff if line[:1] == "+"), diff
    assert f"CHANGED: {changed[0]['test_id']}" in branch.stdout
    assert "Where the flight lands" in (tmp_path / "report-pr" / "changes.md").read_text()
    compared = (tmp_path / "report-pr" / "compare.md").read_text()
    assert "0 verdict(s) changed, 0 worse;" in compared and f"{len(changed)} transcript(s) changed" in compared


def test_a_non_python_server_end_to_end_as_the_readme_walks_through(venv: Venv, tmp_path: Path) -> None:
    """docs/using.md, "Running the suite against another server": the TypeScript peer,
    built with npm ci, checked from the installed wheel in its own folder over stdio
    (writing a baseline) and over HTTP (with that baseline, which must fit exactly).
    The generated attacks run on their `quick` profile: the peer's verdict on their `ci`
    examples is tests/test_typescript_peer.py's."""
    server = tmp_path / "server"
    try:
        dist = build(server)
    except RuntimeError as error:
        pytest.fail(str(error))
    stdio = venv.pytest(
        server, "--pyargs", "elicit_conformance.cases", "--server-command=node dist/stdio.js",
        "--conformance-report=report-stdio", "--conformance-write-baseline=elicit-baseline.txt", env=QUICK,
    )
    assert stdio.returncode == 1, stdio.stdout[-4000:]  # DIG-1 fails: see docs/typescript-sdk.md
    assert "elicit-conformance target: node dist/stdio.js (from --server-command)" in stdio.stdout, stdio.stdout[:2000]
    statuses = _statuses(server / "report-stdio" / "summary.md")
    assert statuses["test_scenario[ORD-4-2025-11-25]"] == statuses["test_scenario[ORD-4-2026-07-28]"] == "pass"
    baseline = (server / "elicit-baseline.txt").read_text()
    assert "test_dig_1_dig_2_answer_to_a_reworded_question_is_dropped[2026-07-28]:" in baseline, baseline
    with http_server(dist) as (url, _):
        http = venv.pytest(
            server, "--pyargs", "elicit_conformance.cases", f"--server={url}",
            "--conformance-baseline=elicit-baseline.txt", env=QUICK,
        )
    assert http.returncode == 0, http.stdout[-4000:]  # same verdicts: no entry stale, nothing new


def test_an_unrelated_project_is_untouched(venv: Venv, tmp_path: Path) -> None:
    (tmp_path / "test_mine.py").write_text(UNRELATED_TESTS)
    with_plugin = venv.pytest(tmp_path, "-v")
    without = venv.pytest(tmp_path, "-v", "-p", "no:elicit_conformance")
    assert with_plugin.returncode == without.returncode == 0, with_plugin.stdout[-3000:]
    assert _results(with_plugin.stdout) == _results(without.stdout)
    assert len(_results(with_plugin.stdout)) == 4
    ours = [line for line in with_plugin.stdout.splitlines() if line.startswith("elicit-conformance")]
    assert not ours, ours


def _results(output: str) -> list[tuple[str, str]]:
    return sorted(re.findall(r"^(\S+::\S+) (PASSED|FAILED|ERROR|SKIPPED)", output, re.M))


def _statuses(summary: Path) -> dict[str, str]:
    """Each case's status as summary.md says it: a table row, or a line of the
    cases rolled up by cause ("- not testable: CAUSE: N cases: ID, ID")."""
    lines = summary.read_text().splitlines()
    statuses = {cells[1].strip(): cells[5].strip() for cells in (l.split("|") for l in lines if l.startswith("| test_"))}
    for line in lines:
        if match := re.match(r"^- (not testable|not implemented): .*?: \d+ cases?: (.*)$", line):
            statuses.update({test_id: match[1] for test_id in match[2].split(", ")})
    return statuses
