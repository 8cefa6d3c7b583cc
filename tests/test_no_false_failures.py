"""Correct servers that do not behave like the reference pass the cases that
concern them: the suite judges behaviour the behaviour document allows, not
the reference's choices. Each server here is small and written for the test."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.suite import run

#: On the handshake era a framework may serve a hand-returned ask itself, over
#: elicitation/create (as the TypeScript SDK's shim does): a correct exchange.
SHIM = '''
import mcp_types
from fastmcp import Context, FastMCP
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

app = FastMCP("shim")
QUESTION = "Where would you like to fly?"
SCHEMA = {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}


@app.tool
async def guard_by_hand(ctx: Context) -> str | mcp_types.InputRequiredResult:
    if ctx.request_context.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        answer = await ctx.session.elicit(message=QUESTION, requested_schema=SCHEMA,
                                          related_request_id=ctx.request_id)
        return f"Booked a flight to {answer.content['value']}"
    reply = (ctx.input_responses or {}).get("where")
    if isinstance(reply, mcp_types.ElicitResult) and reply.content:
        return f"Booked a flight to {reply.content['value']}"
    return mcp_types.InputRequiredResult(
        input_requests={"where": mcp_types.ElicitRequest(
            params=mcp_types.ElicitRequestFormParams(message=QUESTION, requested_schema=SCHEMA))},
    )
'''

ERA_3 = "conformance/cases/test_behaviours.py::test_era_3_hand_returned_ask_is_gated_by_era"


def test_a_handshake_shim_for_hand_returned_asks_passes_era_3(tmp_path: Path) -> None:
    (tmp_path / "shim.py").write_text(SHIM)
    result = run(tmp_path / "run", "--server=shim:app", "-k", "ERA-3", env={"PYTHONPATH": str(tmp_path)})
    statuses = result.statuses()
    assert statuses == {f"{ERA_3}[2026-07-28]": "pass", f"{ERA_3}[2025-11-25]": "pass"}, result.output[-3000:]


#: A server in another language has no Python spellings: here, the reference
#: without its three "python" profile tools.
NO_PYTHON_SPELLINGS = '''
from elicit_conformance.catalog import load
from elicit_conformance.reference.app import app

for name, tool in load().tools.items():
    if tool.profile == "python":
        app.local_provider.remove_tool(name)
'''


def test_schema_cases_judge_a_server_without_python_spellings(tmp_path: Path) -> None:
    (tmp_path / "core_only.py").write_text(NO_PYTHON_SPELLINGS)
    result = run(tmp_path / "run", "--server=core_only:app", "-k", "SCH or REG-9",
                 env={"PYTHONPATH": str(tmp_path)})
    statuses = result.statuses()
    sch = {s for n, s in statuses.items() if "test_sch_1_sch_2" in n}
    assert sch == {"pass"}, result.output[-3000:]
    spelled = {n: s for n, s in statuses.items() if "test_scenario[REG-9/" in n}
    assert spelled and set(spelled.values()) == {"not testable"}, spelled


#: ERA-6 allows a framework to take `Elicit` on a prompt: rendering then asks
#: (here the reference's own engine applied to a prompt, bypassing its refusal),
#: or takes the default without asking (a prompt that hides the parameter).
PROMPT_ASKS = '''
from typing import Annotated

from fastmcp import FastMCP

from elicit_conformance.reference import Elicit, declared
from elicit_conformance.reference.app import app, registration


def greeting(city: str, name: Annotated[str, Elicit("What name should the greeting use?")] = "traveller") -> str:
    return f"Welcome to {city}, {name}"


FastMCP.prompt(app, declared(greeting))
'''
PROMPT_TAKES_THE_DEFAULT = '''
from elicit_conformance.reference.app import app, registration


@app.prompt
def greeting(city: str) -> str:
    return f"Welcome to {city}, traveller"
'''
ERA_6 = "conformance/cases/test_registration.py::test_era_6_a_prompt_with_a_declared_parameter_renders_or_was_refused"


def test_a_prompt_that_asks_or_takes_its_default_passes_era_6(tmp_path: Path) -> None:
    for name, source in (("prompt_asks", PROMPT_ASKS), ("prompt_default", PROMPT_TAKES_THE_DEFAULT)):
        (tmp_path / f"{name}.py").write_text(source)
        result = run(tmp_path / name, f"--server={name}:app", "-k", "era_6_a_prompt", env={"PYTHONPATH": str(tmp_path)})
        assert result.statuses() == {f"{ERA_6}[2026-07-28]": "pass", f"{ERA_6}[2025-11-25]": "pass"}, (
            name, result.output[-3000:],
        )


#: A server that serves only the 2025 revision (the TypeScript SDK over stdio is
#: one): it answers server/discover with -32601. Here the reference behind a
#: middleware that refuses the modern era.
HANDSHAKE_ONLY = '''
from mcp.shared.exceptions import MCPError

from elicit_conformance.reference.app import app


async def refuse_modern(ctx, call_next):
    if ctx.method == "server/discover":
        raise MCPError(-32601, "Method not found")
    return await call_next(ctx)


app._mcp_server.middleware.append(refuse_modern)

if __name__ == "__main__":
    app.run("stdio", show_banner=False)
'''


def test_a_server_of_one_revision_is_tested_on_it_and_not_testable_on_the_other(tmp_path: Path) -> None:
    (tmp_path / "handshake_only.py").write_text(HANDSHAKE_ONLY)
    targets = {"in-process": "--server=handshake_only:app",
               "stdio": f"--server-command={sys.executable} {tmp_path / 'handshake_only.py'}"}
    for name, option in targets.items():
        result = run(tmp_path / name, option, "-k", "test_scenario and (OPT-3 or BAT-1)", env={"PYTHONPATH": str(tmp_path)})
        rows = {row["test_id"]: row for row in result.index["cases"]}
        assert {i: r["status"] for i, r in rows.items()} == {
            "test_scenario[BAT-1-2025-11-25]": "pass", "test_scenario[OPT-3-2025-11-25]": "pass",
            "test_scenario[BAT-1-2026-07-28]": "not testable", "test_scenario[OPT-3-2026-07-28]": "not testable",
        }, (name, result.output[-3000:])
        assert "does not serve 2026-07-28: it refused it when first reached (-32601 Method not found)" in (
            rows["test_scenario[BAT-1-2026-07-28]"]["message"])
