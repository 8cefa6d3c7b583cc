"""The CI recipe where a framework's CI runs it: docs/ci/github-actions.yml and the
action it uses (docs/ci/action.yml), every step but GitHub's own run as written.

In an empty folder, a small project of its own (`myproject`, the MCP SDK server of
tests/test_wheel.py) and a fresh venv: the one-time set-up command the recipe's
comment gives, then the job on a push: green; then the server answers wrongly, and
the job is red with that case's sentence in the job-summary file. The action
installs the suite from its own checkout (a copy of this repository), as GitHub
checks an action out at its tag.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.suite import ROOT, checked, child_environment, source_copy
from tests.test_wheel import TINY_SERVER

pytestmark = pytest.mark.slow

RECIPE = ROOT / "docs" / "ci" / "github-actions.yml"
ACTION = ROOT / "docs" / "ci" / "action.yml"
#: How the recipe names the action: `OWNER/elicit-conformance/docs/ci@<tag>`.
USES = re.compile(r"OWNER/elicit-conformance/docs/ci@v(?P<version>[\w.]+)")
EXPRESSION = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")
TIMEOUT = 900

PYPROJECT = """\
[build-system]
requires = ["setuptools>=69"]
build-backend = "setuptools.build_meta"

[project]
name = "myproject"
version = "0.0.1"
dependencies = ["mcp>=2.3,<3"]

[tool.setuptools]
packages = ["myproject"]
"""


@dataclass
class Job:
    """A GitHub Actions job on a push, run here: `run` steps in bash, GitHub's own
    actions (`actions/...`) skipped, the suite's action expanded from docs/ci."""

    workspace: Path
    bin: Path
    #: The suite's checkout, as GitHub puts an action's repository at its tag.
    action_path: Path
    temp: Path
    log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.summary = self.temp / "step-summary.md"
        self.outputs = self.temp / "outputs.txt"

    def environment(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in child_environment({}).items() if k not in ("PYTHONPATH", "ELICIT_SERVER")}
        return {**env, "PATH": f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}", "CI": "true",
                "GITHUB_WORKSPACE": str(self.workspace), "GITHUB_EVENT_NAME": "push",
                "GITHUB_STEP_SUMMARY": str(self.summary), "GITHUB_OUTPUT": str(self.outputs),
                "GITHUB_ACTION_PATH": str(self.action_path), "RUNNER_TEMP": str(self.temp), **(extra or {})}

    def run(self, steps: list[dict[str, Any]], inputs: dict[str, str] | None = None) -> bool:
        """The steps in order; False once one failed (later ones run only under `always()`)."""
        ok = True
        for step in steps:
            if not _runs(step, ok):
                self.log.append(f"skipped: {step.get('name', step.get('uses'))}")
                continue
            passed = self._step(step, inputs or {})
            ok = ok and (passed or bool(step.get("continue-on-error")))
        return ok

    def _step(self, step: dict[str, Any], inputs: dict[str, str]) -> bool:
        uses = step.get("uses")
        if uses is not None:
            if uses.startswith("actions/"):  # GitHub's own: checkout, setup-python, upload-artifact
                self.log.append(f"GitHub's own: {uses}")
                return True
            assert USES.fullmatch(uses), f"the recipe uses {uses!r}, not the suite's action"
            action = yaml.safe_load(ACTION.read_text())
            given = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
            unknown = set(step.get("with", {})) - set(given)
            assert not unknown, f"the recipe gives the action inputs it does not have: {unknown}"
            given.update({k: str(v) for k, v in step.get("with", {}).items()})
            return self.run(action["runs"]["steps"], given)
        cwd = self.workspace / _expanded(str(step.get("working-directory", ".")), inputs)
        env = self.environment({k: _expanded(str(v), inputs) for k, v in step.get("env", {}).items()})
        script = _expanded(step["run"], inputs)
        done = subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT)
        self.log.append(f"$ {script}\n(exit {done.returncode})\n{done.stdout[-4000:]}{done.stderr[-2000:]}")
        return done.returncode == 0

    def outputs_read(self) -> dict[str, str]:
        lines = self.outputs.read_text().splitlines() if self.outputs.exists() else []
        return dict(line.split("=", 1) for line in lines if "=" in line)


def _runs(step: dict[str, Any], ok: bool) -> bool:
    """GitHub's `if:` on a push: `always()` runs; any other condition here is about
    pull requests (the base-branch steps), false on a push."""
    condition = step.get("if")
    if condition is None:
        return ok
    return condition == "always()"


def _expanded(text: str, inputs: dict[str, str]) -> str:
    """`${{ inputs.NAME }}` replaced; any other expression in a step that runs is an error here."""
    text = EXPRESSION.sub(lambda m: inputs[m.group(1)], text)
    assert "${{" not in text, f"an expression this runner does not evaluate, in a step that runs: {text}"
    return text


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> Job:
    checkout = source_copy(tmp_path_factory.mktemp("action"))
    workspace = tmp_path_factory.mktemp("workspace")
    (workspace / "myproject").mkdir()
    (workspace / "myproject" / "__init__.py").write_text("")
    (workspace / "myproject" / "server.py").write_text(TINY_SERVER)
    (workspace / "pyproject.toml").write_text(PYPROJECT)
    venv = tmp_path_factory.mktemp("venv") / "v"
    checked(sys.executable, "-m", "venv", venv, cwd=workspace, env=dict(os.environ))
    job = Job(workspace, venv / "bin", checkout / "docs" / "ci", tmp_path_factory.mktemp("runner"))
    # Set-up, as a user does once on their machine: the server, the suite from its
    # checkout (the README's "or from a checkout"), then the recipe comment's command.
    env = job.environment()
    checked("pip", "install", "-q", "-e", ".", cwd=workspace, env=env)
    checked("pip", "install", "-q", f"{checkout}[xdist]", cwd=workspace, env=env)
    (setup,) = re.findall(r"^#   \$ (pytest .*)$", RECIPE.read_text(), re.M)
    subprocess.run(shlex.split(setup), cwd=workspace, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert (workspace / "conformance" / "baseline.txt").exists(), setup
    assert list((workspace / "conformance" / "snapshots").rglob("*.jsonl")), setup
    checked("pip", "check", cwd=workspace, env=env)
    return job


def test_the_recipe_names_this_release_of_the_action() -> None:
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    tags = {m.group("version") for m in USES.finditer(RECIPE.read_text())}
    assert tags == {version}, (tags, version)


def test_green_then_red_on_a_wrong_answer_with_its_sentence_in_the_job_summary(job: Job) -> None:
    steps = yaml.safe_load(RECIPE.read_text())["jobs"]["conformance"]["steps"]
    green = job.run(steps)
    assert green, "\n\n".join(job.log)
    assert job.outputs_read()["verdict"] == "pass"
    assert int(job.outputs_read()["passed"]) > 0
    summary = job.summary.read_text()
    assert "elicit-conformance against myproject.server:app:" in summary, summary[:2000]
    assert "skipped: The suite on that branch" in job.log  # a push: no base branch

    server = job.workspace / "myproject" / "server.py"
    server.write_text(TINY_SERVER.replace('f"Booked a flight to {destination.value}"',
                                          'f"Booked a flight to {destination.value.upper()}"'))
    job.summary.write_text("")
    job.outputs.write_text("")
    red = job.run(steps)
    assert not red, "\n\n".join(job.log[-3:])
    outputs = job.outputs_read()
    assert outputs["verdict"] == "fail" and int(outputs["failed"]) > 0, outputs
    summary = job.summary.read_text()
    assert re.search(r"\| fail \| BAT-1: the call returned 'Booked a flight to PARIS'; the catalog's result is "
                     r"'Booked a flight to Paris'", summary), summary[:3000]
    assert "golden transcripts:" in summary and "PARIS" in summary  # changes.md, the wire's diff


def test_the_action_alone_against_the_bundled_reference_a_server_command_and_a_client(job: Job) -> None:
    """The action's own steps, as another workflow uses it: the reference in-process (a
    few cases, pass), a stdio server that exits at once (fail, said in the log), and a
    client (the client cases: the hand-written client shipped with the suite, pass)."""
    action = yaml.safe_load(ACTION.read_text())
    step = {"uses": "OWNER/elicit-conformance/docs/ci@v0.3.0",
            "with": {"server": "elicit_conformance.reference.app:app", "pytest-args": "-k BAT-1",
                     "report": "reference-report"}}
    job.outputs.write_text("")
    assert job.run([step]), "\n\n".join(job.log[-2:])
    assert job.outputs_read()["verdict"] == "pass" and int(job.outputs_read()["passed"]) >= 2
    totals = json.loads(job.outputs_read()["totals"])
    assert totals["pass"] == int(job.outputs_read()["passed"]) and not {"fail", "timed out"} & set(totals), totals
    step["with"] = {"server-command": "python -c 'raise SystemExit(3)'", "report": "dead-report"}
    job.outputs.write_text("")
    assert not job.run([step])
    assert job.outputs_read()["verdict"] == "fail"
    ran = "\n".join(job.log[-3:])  # the run step, then the upload (GitHub's own, under always())
    assert "cannot reach --server-command=" in ran, ran
    step["with"] = {"client-command": "python -m elicit_conformance.fixtures.clients.raw_client",
                    "revision": "2026-07-28", "report": "client-report"}
    job.outputs.write_text("")
    assert job.run([step]), "\n\n".join(job.log[-2:])
    assert job.outputs_read()["verdict"] == "pass" and int(job.outputs_read()["passed"]) >= 8, job.outputs_read()
    assert set(action["inputs"]) >= {"server", "server-command", "client-command", "revision", "baseline",
                                     "not-implemented", "snapshots", "strict"}


def test_an_action_without_a_target_says_so(job: Job, tmp_path: Path) -> None:
    action = yaml.safe_load(ACTION.read_text())
    run_step = next(step for step in action["runs"]["steps"] if step.get("id") == "run")
    done = subprocess.run(["bash", "-c", run_step["run"]], cwd=tmp_path, capture_output=True, text=True,
                          env=job.environment({"INPUT_SERVER": "", "INPUT_SERVER_COMMAND": "", "INPUT_CLIENT_COMMAND": ""}))
    assert done.returncode == 2
    assert "give exactly one of the inputs 'server' (module:app or URL), 'server-command' and 'client-command'" \
        in done.stderr


def test_every_output_the_action_declares_is_written() -> None:
    action = yaml.safe_load(ACTION.read_text())
    written = set(re.findall(r'print\(f"(\w+)=', (ROOT / "docs" / "ci" / "action.sh").read_text()))
    assert set(action["outputs"]) == written, set(action["outputs"]) ^ written
