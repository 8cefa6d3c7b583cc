"""What a target must implement, as one Markdown document.

Rendered from the data the suite runs on (the scenario catalog, the requirement
table, and which tools each case calls), so it cannot drift from the cases:
`docs/contract.md` is this output, and a test fails when it is stale.

    pytest --conformance-contract=contract.md       # or: python -m elicit_conformance.contract
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import elicit_conformance.cases
from elicit_conformance.catalog import load
from elicit_conformance.requirements import Table

RULES = """\
## The rules every case applies

- **Questions are identified by their message.** A request in `inputRequests`
  (2026-07-28) or an `elicitation/create` (2025-11-25) is matched to a catalog
  question by its `message`, rendered from the template with the tool's
  arguments and the answers given so far. `inputRequests` keys are yours to
  choose; the suite answers under the key you used.
- **`requestState` is opaque and optional.** When a round carries one, the
  client sends it back unchanged with the answers; when it carries none, the
  client sends none. The suite never reads it.
- **Answers.** A scalar question (string, integer, number, boolean) is answered
  as `{"value": ...}`, so its requested schema must be an object with exactly
  one property, `value`. An object question is answered with its fields.
  Titles and descriptions in a schema are free; the parts the suite checks are
  named under each tool.
- **Errors.** Where a case expects a call to fail, either a JSON-RPC error or a
  tool result with `"isError": true` is accepted. "The error names X" means X
  appears as a word of its own (not inside another name such as the tool's) in
  the error's message or data, or in the result's text.
- **`body_runs` counts across connections.** Every case opens its own
  connection, and a later one, made by the same kind of client (revision and
  declared elicitation modes), asks `body_runs` how often an earlier call's
  body ran. Count per `ref` for the whole life of the server process; memory
  is enough (over stdio the suite keeps one process per kind of client for
  the run and sends the question to the one that served the call). Only a
  deployment of several processes behind one address must share the count.
- **Time.** Each request must be answered within the run's timeout
  (`--conformance-timeout`, 30 s by default); a case that waits longer ends as
  "timed out".
- **A missing tool** fails the cases that need it as "not testable", never as
  a pass. Tools marked *Python spelling* exist to check how Python declares a
  question (REG-9); a server in another language leaves them out, and no other
  case depends on them.
"""

SCHEMA_NOTE = (
    "The schema shown is the one the reference requests (titles left out); what "
    "the suite checks of it is in the TYP rows."
)


def tools_used() -> dict[str, set[str]]:
    """tool -> the requirement rows of the cases that call it, read from their source.

    A case uses a tool it names in a string, directly, through a module-level
    constant, or through a catalog scenario it runs.
    """
    catalog = load()
    tools, scenarios = set(catalog.tools), catalog.scenarios
    used: dict[str, set[str]] = {tool: set() for tool in tools}
    for path in sorted(Path(elicit_conformance.cases.__file__).parent.glob("test_*.py")):
        module = ast.parse(path.read_text())
        constants = {
            target.id: _strings(node.value)
            for node in module.body if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name)
        }
        for node in module.body:
            if not isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef) or not node.name.startswith("test_"):
                continue
            rows = [s for d in node.decorator_list if _is_checks(d) for s in _strings(d)]
            names = _strings(node) | {s for n in ast.walk(node) if isinstance(n, ast.Name) for s in constants.get(n.id, ())}
            if node.name == "test_scenario":  # parametrized over every scenario
                pairs = [(s.tool, s.family) for s in scenarios.values()]
            else:
                called = {n for n in names if n in tools} | {scenarios[n].tool for n in names if n in scenarios}
                pairs = [(tool, row) for tool in called for row in rows]
            for tool, row in pairs:
                used[tool].add(row)
    return used


def _is_checks(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "checks"


def _strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def render() -> str:
    catalog = load()
    table = Table.load()
    used = tools_used()
    out = [
        "# The conformance contract",
        "",
        "<!-- Generated by `python -m elicit_conformance.contract`; do not edit by hand. -->",
        "",
        "What a server must implement for `pytest --pyargs elicit_conformance.cases` to judge it:",
        "every tool below, asking exactly the listed questions, and returning the listed result.",
        "Python targets may also provide a registration adapter for the REG cases",
        "(`elicit_conformance.registration` documents it); over HTTP and stdio those cases are skipped.",
        "",
        RULES,
        "## Tools",
        "",
        SCHEMA_NOTE,
        "",
    ]
    for name, tool in catalog.tools.items():
        out += [f"### `{name}`", ""]
        arguments = ", ".join(f"`{a}`: {t}" for a, t in tool.arguments.items()) or "none"
        out += [f"- Arguments: {arguments}", f"- Returns: `{tool.returns}`"]
        if tool.profile == "python":
            out.append("- Profile: Python spelling. A server in another language leaves it out; "
                       "only the scenario that uses it is then not testable.")
        if rows := used[name]:
            out.append("- Checked by: " + ", ".join(_ordered(rows, table)))
        if tool.questions:
            out += ["", "| Parameter | Message template | Waits for | Optional | Requested schema |",
                    "|---|---|---|---|---|"]
            for param, question in tool.questions.items():
                schema = question.schema()
                out.append(
                    f"| `{param}` | `{question.message}` | {', '.join(question.needs) or '-'} "
                    f"| {'yes' if question.optional else 'no'} "
                    f"| {'never asked' if schema is None else '`' + json.dumps(schema) + '`'} |"
                )
        out.append("")
    out += ["## Prompts", "",
            "Only for a server whose framework accepts `Elicit` on a prompt (ERA-6). Rendered with "
            "`prompts/get` on both revisions, the prompt asks the question (the suite answers `Ada`) "
            "or takes the default; the declared parameter is not one of its arguments. A framework "
            "that refuses the marker at registration leaves the prompt out.", ""]
    for name, prompt in catalog.prompts.items():
        arguments = ", ".join(f"`{a}`: {t}" for a, t in prompt.arguments.items())
        out += [f"### `{name}`", "", f"- Arguments: {arguments}", f"- Renders: `{prompt.returns}`",
                f"- Defaults: `{json.dumps(dict(prompt.defaults))}`", "",
                "| Parameter | Message template | Optional |", "|---|---|---|"]
        out += [f"| `{p}` | `{q.message}` | {'yes' if q.optional else 'no'} |" for p, q in prompt.questions.items()]
        out.append("")
    out += ["## Scripted scenarios", "",
            "Each runs on both revisions. Rounds are what 2026-07-28 asks; on 2025-11-25 the same "
            "questions go out one `elicitation/create` each, none before what it quotes.", "",
            "| Scenario | Tool | Arguments | User replies | Rounds | Outcome |", "|---|---|---|---|---|---|"]
    for scenario_id, scenario in catalog.scenarios.items():
        expect = scenario.expect
        if expect.result is not None:
            outcome = f"result `{expect.result}`"
        else:
            outcome = "fails" + (f", naming {', '.join(expect.error)}" if expect.error else "")
            if expect.error_should:
                outcome += f" (SHOULD name {', '.join(expect.error_should)})"
        if expect.body_runs is not None:
            outcome += f"; body ran {expect.body_runs}x"
        replies = {param: reply.wire() for param, reply in scenario.answers.items()}
        out.append(
            f"| {scenario_id} | `{scenario.tool}` | `{json.dumps(dict(scenario.arguments))}` "
            f"| `{json.dumps(replies)}` | {[list(r) for r in expect.rounds]} | {outcome} |"
        )
    out += ["", "`{run}` in an argument is a per-run prefix, so records of one run never meet another's.", "",
            "## Requirements", "",
            "What each ID means, and the MCP specification section it rests on: `docs/behaviour.md`.", "",
            "| ID | Level | What is checked |", "|---|---|---|"]
    for row in table.rows.values():
        sentence = row.checks + (f" *(not checked: {row.excluded})*" if row.excluded else "")
        out.append(f"| {row.id} | {row.level} | {sentence} |")
    return "\n".join(out) + "\n"


def _ordered(rows: set[str], table: Table) -> list[str]:
    order = {row_id: index for index, row_id in enumerate(table.rows)}
    return sorted(rows, key=lambda row: (order.get(row, len(order)), row))


def write_contract(destination: str) -> None:
    """Write the contract to `destination`, or to standard output for "-"."""
    text = render()
    if destination == "-":
        sys.stdout.write(text)
    else:
        Path(destination).write_text(text)


if __name__ == "__main__":
    write_contract(sys.argv[1] if len(sys.argv) > 1 else "-")
