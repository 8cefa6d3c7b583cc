"""Target options: every wrong value gets an error that says what to do."""

import re

import pytest

from elicit_conformance.connection.target import DEFAULT_SPEC, command_target, load_target
from elicit_conformance.exceptions import TargetError


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("elicit_conformance.reference.app", "neither module:attribute"),
        ("no_such_module_xyz:app", "could not be imported"),
        ("elicit_conformance.reference.app:missing", "has no attribute 'missing'"),
        ("elicit_conformance.reference.app.tools:Airport", "not an MCP server"),
        ("elicit_conformance.cases.test_scenarios:SCENARIOS", "not an MCP server"),
        ("htp://127.0.0.1:8000/mcp", "looks like a URL, but the suite speaks streamable HTTP only"),
    ],
)
def test_bad_server_values_are_explained(spec: str, says: str) -> None:
    with pytest.raises(TargetError, match=says):
        load_target(spec, "--server")


def test_a_lazy_attribute_that_crashes_is_a_usage_error(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A module may build its server on first access (PEP 562); a crash there is
    # the server failing to start, not an internal error of the suite.
    (tmp_path / "lazy_server.py").write_text("def __getattr__(name):\n    raise RuntimeError('boom')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(TargetError, match="raised RuntimeError: boom"):
        load_target("lazy_server:app", "--server")


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


HANGING_SERVER = """
import anyio
from fastmcp import FastMCP

app = FastMCP("hangs")


@app.tool
async def book_destination(ref: str) -> str:
    await anyio.sleep_forever()
    return "never"
"""


def test_a_hanging_tool_ends_as_timed_out_cases(pytester: pytest.Pytester) -> None:
    # The module sits in the invocation folder: --server imports from there, as uvicorn does.
    pytester.makepyfile(hangs=HANGING_SERVER)
    result = pytester.runpytest_subprocess(
        "--pyargs", "elicit_conformance.cases", "--server=hangs:app", "--conformance-timeout=1",
        "-k", "test_scenario and BAT-1", "-p", "no:cacheprovider",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = str(result.stdout)
    assert "TIMED OUT: test_scenario[BAT-1-2026-07-28]: timed out after 1 s: the server did not answer tools/call" in out
    assert re.search(r"\d+ deselected, 2 timed out in", out.splitlines()[-1]), out.splitlines()[-1]


@pytest.mark.parametrize(
    ("option", "says"),
    [
        ("--server=http://127.0.0.1:1/mcp", "cannot reach --server=http://127.0.0.1:1/mcp: the connection was refused"),
        ("--server-command=false", "cannot reach --server-command='false'"),
        ("--server-command=no-such-server-xyz --stdio", "'no-such-server-xyz' is not a command on PATH"),
    ],
)
def test_an_unreachable_target_is_one_usage_error(pytester: pytest.Pytester, option: str, says: str) -> None:
    result = pytester.runpytest("--pyargs", "elicit_conformance.cases", option, "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1 and says in errors[0], str(result.stderr)
    assert "Traceback" not in str(result.stdout) + str(result.stderr)
    assert re.search(r"collected \d+ items", str(result.stdout)) and " passed" not in str(result.stdout)


def test_the_cases_say_so_when_their_plugin_is_disabled(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        "--pyargs", "elicit_conformance.cases", "-p", "no:elicit_conformance", "-p", "no:cacheprovider"
    )
    assert result.ret != pytest.ExitCode.OK
    assert "disables (-p no:elicit_conformance): drop that option" in str(result.stdout)


def test_a_wrong_http_path_is_said_as_the_http_status_it_was(pytester: pytest.Pytester, tmp_path) -> None:
    from elicit_conformance.dev.local_server import LocalServer

    with LocalServer("elicit_conformance.reference.asgi:asgi", log=tmp_path / "uvicorn.log") as server:
        wrong = server.url.replace("/mcp", "/wrong")
        result = pytester.runpytest("--pyargs", "elicit_conformance.cases", f"--server={wrong}", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1, str(result.stderr)
    assert f"HTTP 404 Not Found from {wrong}: nothing is served at the path '/wrong'" in errors[0], errors[0]
    assert "-32601" not in errors[0]


HANGING_ATTACKS = """
import anyio
import mcp_types
from fastmcp import Context, FastMCP

app = FastMCP("hangs-under-attack")
SCHEMA = {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}


@app.tool
def body_runs(ref: str) -> int:
    return 0


@app.tool
def book_trip(ref: str) -> mcp_types.InputRequiredResult:
    return mcp_types.InputRequiredResult(input_requests={"cabin": mcp_types.ElicitRequest(
        params=mcp_types.ElicitRequestFormParams(message="Which cabin class?", requested_schema=SCHEMA))})


@app.tool
async def book_reworded(ref: str, ctx: Context) -> mcp_types.InputRequiredResult:
    if ref.rsplit("-", 1)[-1].isdigit():  # a generated example's call: never answered
        await anyio.sleep_forever()
    return mcp_types.InputRequiredResult(input_requests={"destination": mcp_types.ElicitRequest(
        params=mcp_types.ElicitRequestFormParams(message="Where would you like to fly?", requested_schema=SCHEMA))},
        request_state="s")
"""


def test_a_timeout_inside_the_generated_attacks_ends_the_case_as_timed_out(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(hangs_under_attack=HANGING_ATTACKS)
    result = pytester.runpytest_subprocess(
        "--pyargs", "elicit_conformance.cases", "--server=hangs_under_attack:app", "--conformance-timeout=1",
        "-k", "generated_attacks", "-p", "no:cacheprovider",
    )
    out = str(result.stdout)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    # At the first unanswered request, without shrinking (each try would wait again).
    assert ("TIMED OUT: test_sec_1_sec_3_generated_attacks_never_crash_credit_or_run_the_body[2026-07-28]: "
            "timed out after 1 s: the server did not answer tools/call") in out
    assert "CancelledError" not in out and "ExceptionGroup" not in out and "Traceback" not in out
