"""Correct servers that do not behave like the reference pass the cases that
concern them: the suite judges behaviour the behaviour document allows, not
the reference's choices. Each server here is small and written for the test."""

from __future__ import annotations

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
