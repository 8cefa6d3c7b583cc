"""Versions that say what changed: the contract's changes since an earlier contract.json,
a not-implemented file written from a run, and the changelog naming this version."""

from __future__ import annotations

import json
import re

import pytest

from elicit_conformance.contract.changes import changes
from elicit_conformance.contract.page import data
from elicit_conformance.version import VERSION
from tests.suite import ROOT
from tests.test_wheel import TINY_SERVER


def test_changes_since_an_earlier_contract_name_what_is_new_changed_and_gone() -> None:
    new = data()
    old = json.loads(json.dumps(new))
    del old["tools"]["book_once"]  # new since
    old["tools"]["book_trip"]["returns"] = "something else"  # changed since
    old["tools"]["book_gone"] = {"arguments": {}}  # removed since
    old["requirements"] = [r for r in old["requirements"] if r["id"] != "SEC-5"]
    for tool in old["tools"].values():
        tool.pop("once", None)  # a field new at its empty value asks nothing new
    text = changes(old, new, "0.1")
    assert "- added: `book_once`" in text and "- added: `SEC-5`" in text
    assert "- changed: `book_trip` (returns)" in text
    assert "- removed: `book_gone`" in text
    assert text.count("- changed:") == 1, text
    assert changes(new, new, "itself").endswith("Nothing changed.\n")


def test_the_pytest_option_writes_the_changes_and_refuses_what_is_no_contract(pytester: pytest.Pytester) -> None:
    old = data()
    del old["tools"]["book_once"]
    (pytester.path / "old.json").write_text(json.dumps(old))
    done = pytester.runpytest_subprocess("--conformance-contract=changes.md", "--conformance-contract-since=old.json",
                                         "-p", "no:cacheprovider")
    assert done.ret == 0
    assert "- added: `book_once`" in (pytester.path / "changes.md").read_text()
    (pytester.path / "bad.json").write_text("[]")
    bad = pytester.runpytest_subprocess("--conformance-contract=x.md", "--conformance-contract-since=bad.json",
                                        "-p", "no:cacheprovider")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    assert "--conformance-contract-since=bad.json: not a contract.json (it has no 'tools')" in str(bad.stderr)
    assert not (pytester.path / "x.md").exists()


def test_a_not_implemented_file_written_from_a_run_makes_the_same_run_pass(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(tiny=TINY_SERVER)
    cases = ("--pyargs", "elicit_conformance.cases", "--server=tiny:app", "-p", "no:cacheprovider",
             "-k", "test_scenario and (BAT-1 or RES-9) and 2026-07-28")
    first = pytester.runpytest_subprocess(*cases, "--conformance-write-not-implemented=missing.txt")
    assert first.ret == pytest.ExitCode.TESTS_FAILED  # RES-9's tools are missing: not testable
    written = (pytester.path / "missing.txt").read_text()
    assert re.search(r"^book_bags: not listed by the target in this run$", written, re.M), written
    assert "book_destination" not in written  # the tiny server has it
    again = pytester.runpytest_subprocess(*cases, "--conformance-not-implemented=missing.txt")
    assert again.ret == pytest.ExitCode.OK, str(again.stdout)[-2000:]
    assert "not implemented" in str(again.stdout)


def test_a_baseline_written_beside_it_leaves_the_missing_tools_to_it(pytester: pytest.Pytester) -> None:
    """The README's pair of commands: both files written from one run, then both read."""
    pytester.makepyfile(tiny=TINY_SERVER)
    cases = ("--pyargs", "elicit_conformance.cases", "--server=tiny:app", "-p", "no:cacheprovider",
             "-k", "(test_scenario and (BAT-1 or RES-9)) or sch_3")
    pytester.runpytest_subprocess(*cases, "--conformance-write-baseline=baseline.txt",
                                  "--conformance-write-not-implemented=missing.txt")
    baseline = (pytester.path / "baseline.txt").read_text()
    assert "test_sch_3_hiding_parameters_keeps_the_tool_description[2026-07-28]:" in baseline  # a real failure
    assert "RES-9" not in baseline, baseline  # its tool is declared missing instead
    again = pytester.runpytest_subprocess(*cases, "--conformance-baseline=baseline.txt",
                                          "--conformance-not-implemented=missing.txt")
    assert again.ret == pytest.ExitCode.OK, str(again.stdout)[-2000:]


def test_the_changelog_names_this_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert re.search(rf"^## \[{re.escape(VERSION)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", changelog, re.M), VERSION
    assert f'version = "{VERSION}"' in (ROOT / "pyproject.toml").read_text()
