"""Target options: every wrong value gets an error that says what to do."""

import pytest

from elicit_conformance.target import DEFAULT_SPEC, TargetError, command_target, load_target


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("elicit_conformance.reference.app", "neither module:attribute"),
        ("no_such_module_xyz:app", "could not be imported"),
        ("elicit_conformance.reference.app:missing", "has no attribute 'missing'"),
        ("elicit_conformance.reference.app:Airport", "not an MCP server"),
        ("elicit_conformance.cases.test_scenarios:CATALOG", "not an MCP server"),
    ],
)
def test_bad_server_values_are_explained(spec: str, says: str) -> None:
    with pytest.raises(TargetError, match=says):
        load_target(spec, "--server")


def test_urls_and_commands_are_targets_of_their_own_kind() -> None:
    assert load_target("http://127.0.0.1:9/mcp", "--server").kind == "url"
    stdio = command_target("python -m elicit_conformance.reference --flag 'two words'")
    assert stdio.kind == "command" and stdio.argv == ("python", "-m", "elicit_conformance.reference", "--flag", "two words")
    with pytest.raises(TargetError, match="empty"):
        command_target("  ")


def test_default_is_the_reference() -> None:
    target = load_target(DEFAULT_SPEC, "default")
    assert target.is_reference and target.registration_probes()


def test_server_option_reaches_the_header(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_nothing():\n    assert True\n")
    result = pytester.runpytest("--server=elicit_conformance.reference.app:app", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["elicit-conformance target: elicit_conformance.reference.app:app (from --server)"])
    bad = pytester.runpytest("--server=elicit_conformance.reference.app:nope")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*has no attribute 'nope'*"])
    both = pytester.runpytest("--server=elicit_conformance.reference.app:app", "--server-command=python -m elicit_conformance.reference")
    assert both.ret == pytest.ExitCode.USAGE_ERROR
    both.stderr.fnmatch_lines(["*both name a target*"])
