"""What a target must implement, as one Markdown document.

Rendered from the data the suite runs on (the scenario catalog, the requirement
table, and which tools each case calls), so it cannot drift from the cases:
`docs/contract.md` is this output, and a test fails when it is stale.

    pytest --conformance-contract=contract.md       # or: python -m elicit_conformance.contract
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from elicit_conformance.catalog import Prompt, load
from elicit_conformance.reporting.report import cited
from elicit_conformance.requirements import Table

from . import changes
from .needs import cases, tools_used

#: The rules every case applies: (title, text). The Markdown page and the JSON
#: form both say them; a case that compares anything not under a tool below
#: rests on one of these.
RULES: tuple[tuple[str, str], ...] = (
    ("Questions are identified by their message.",
     "A request in `inputRequests` (2026-07-28) or an `elicitation/create` (2025-11-25) is "
     "matched to a catalog question by its `message`, rendered from the template with the "
     "tool's arguments and the answers given so far. `inputRequests` keys are yours to choose; "
     "the suite answers under the key you used. A message no catalog question has is reported "
     "with the nearest catalog message."),
    ("Asking on 2026-07-28.",
     "A call that needs answers returns a result with `\"resultType\": \"input_required\"` and "
     "`inputRequests` (key to an `elicitation/create` request), and does not run the tool's body. "
     "The client calls again with the same arguments, `inputResponses` (key to an `ElicitResult`) "
     "and the round's `requestState`. Any other result (with `content`) ends the call."),
    ("`requestState` is opaque and optional.",
     "When a round carries one, the client sends it back unchanged with the answers; when it "
     "carries none, the client sends none. The suite never reads it."),
    ("Asking on 2025-11-25.",
     "Each question goes out as an `elicitation/create` request while the `tools/call` is open; "
     "the call's one result ends it."),
    ("Client capabilities.",
     "On 2025-11-25 a client declares elicitation once, in `initialize`'s `capabilities.elicitation`; "
     "on 2026-07-28 it declares it on every request, in "
     "`params._meta[\"io.modelcontextprotocol/clientCapabilities\"].elicitation`. `{\"form\": {}, "
     "\"url\": {}}` is what the suite's client declares; a client that declares no `elicitation`, "
     "or only `{\"url\": {}}`, must never be sent a form question (ERA-5, ERA-7)."),
    ("Answers.",
     "A scalar question (string, integer, number, boolean) is answered as `{\"value\": ...}`, so its "
     "requested schema must be an object with exactly one property, `value`. An object question is "
     "answered with its fields. Titles and descriptions in a schema are free; the parts the suite "
     "checks are named under each tool and case."),
    ("An answer belongs to the wording it answered (digests).",
     "If a question's rendered message changes after it was asked, whether its reply is in flight "
     "or was already carried forward into a later round, the old answer is dropped and the question "
     "is asked again in its new wording (DIG-1); with the wording unchanged, an answer carried "
     "forward stays credited (DIG-2). An answer under a key that was not asked is never credited (DIG-4)."),
    ("Errors and refusals.",
     "Where a case expects a call to fail, either a JSON-RPC error or a tool result with "
     "`\"isError\": true` is accepted; where it expects bad input to be refused, failing the call or "
     "asking the question again are both refusals, and the body must not have run. \"The error names "
     "X\" means X appears as a word of its own (not inside another name such as the tool's) in the "
     "error's message or data, or in the result's text. At registration (REG rows), a refusal is an "
     "exception, of any class but an internal lookup, attribute, assertion, recursion or arithmetic "
     "error, whose message names what is at fault: the marked parameter, its resolver, the tool "
     "(each probe's tool is named `book`) or the name that cannot be resolved (REG/refusal; see "
     "conformance/registration.py)."),
    ("Every message as the specification's schema defines it.",
     "Each message is judged against the schema of the revision in use (WIR-1; the "
     "specification's published JSON Schema is the judge, so a `null` where the schema has an "
     "optional string or object fails): on 2026-07-28 every result states `resultType` (WIR-2), and "
     "a refusal for a capability the client did not declare is the error -32021 whose "
     "`data.requiredCapabilities` is a `ClientCapabilities` object naming what is missing, e.g. "
     "`{\"requiredCapabilities\": {\"elicitation\": {\"form\": {}}}}` (not a list of names), "
     "sent over HTTP with the status 400 (ERA-7/http)."),
    ("`body_runs` counts across connections.",
     "Every case opens its own connection, and a later one, made by the same kind of client "
     "(revision and declared elicitation modes), asks `body_runs` how often an earlier call's body "
     "ran. Count per `ref` for the whole life of the server process; memory is enough (over stdio "
     "the suite keeps one process per kind of client for the run and sends the question to the one "
     "that served the call). Only a deployment of several processes behind one address must share "
     "the count."),
    ("Background tasks (TASK, optional).",
     "A target that runs tools as tasks advertises `io.modelcontextprotocol/tasks` under "
     "`capabilities.extensions` in `server/discover`; without it every TASK case reads \"not "
     "implemented\" (the server's own capabilities say so) and does not fail the run. With it, each tool marked *Task* below runs as a task when a 2026-07-28 "
     "client declares the extension in the request's `_meta[\"io.modelcontextprotocol/clientCapabilities\"]"
     ".extensions`: `tools/call` answers `{\"resultType\": \"task\", \"taskId\", \"status\"}`; "
     "`tasks/get {taskId}` reports `working`, `input_required` with `inputRequests` (the same "
     "questions as in the foreground, an episode per round, in signature order), `completed` with the "
     "tool's whole `CallToolResult` in `result` (a refused call too, with `isError`), `failed` with an "
     "`error`, or `cancelled`; `tasks/update {taskId, inputResponses}` answers some or all of an "
     "episode's keys; `tasks/cancel {taskId}` cancels. The suite polls at the task's `pollIntervalMs` "
     "within the run's timeout, so keep it short. A client without form elicitation is never asked "
     "inside a task: refuse the creation with -32021, or end the task without asking. On 2025-11-25 "
     "the same tools run in the foreground and `tasks/*` are not methods."),
    ("Time.",
     "Each request must be answered within the run's timeout (`--conformance-timeout`, 30 s by "
     "default); a case that waits longer ends as \"timed out\". A stdio server's start is not a "
     "request: its first answer may take up to `--conformance-startup` (120 s by default)."),
    ("A missing tool",
     "fails the cases that need it as \"not testable\", never as a pass; the section \"What each "
     "case needs\" lists them. A tool you leave out on purpose goes in a file given to "
     "`--conformance-not-implemented` (`TOOL: reason` per line): its cases then read \"not "
     "implemented\" and do not fail the run. Tools marked *Python spelling* exist to check how "
     "Python declares a question (REG-9); a server in another language leaves them out, and no "
     "other case depends on them."),
)

SCHEMA_NOTE = (
    "The schema shown is the one the reference requests (titles left out); the labels "
    "column is the title and description the question declares, which label its `value` "
    "field (TYP-6, GEN-1); what the suite checks of each is in the TYP and GEN rows. "
    "Every message is also judged against the specification's own schema for the revision "
    "in use (WIR-1, by the specification's published JSON Schema for it): a requested "
    "schema's properties are each one of its `PrimitiveSchemaDefinition`s, a choice in the "
    "SEP-1330 enum form its question shows here (TYP-9: `enum`, `oneOf`, `items.enum` with "
    "`items.type` `string`, or `items.anyOf`)."
)


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
        "The same contract as data: `docs/contract.json` (`--conformance-contract=FILE.json`).",
        "",
        "## The rules every case applies",
        "",
        *[f"- **{title}** {text}" for title, text in RULES],
        "",
        "## Tools",
        "",
        SCHEMA_NOTE,
        "",
    ]
    for name, tool in catalog.tools.items():
        out += [f"### `{name}`", ""]
        arguments = ", ".join(f"`{a}`: {t}" for a, t in tool.arguments.items()) or "none"
        out += [f"- Arguments: {arguments}", f"- Returns: `{tool.returns}`"]
        if tool.description is not None:
            out.append(f"- Description, listed exactly (SCH-3): `{tool.description}`")
        if tool.task:
            out.append("- Task: runs as a task for a client that opts in, on a target that offers "
                       "the tasks extension (TASK).")
        if tool.once:
            out.append("- One-time: a booking a requestState may complete at most once. Its last round, "
                       "sent again (a client retrying a lost response), runs no body: the target answers "
                       "the first result, an error, or a new question (SEC-5).")
        if tool.profile == "python":
            out.append("- Profile: Python spelling. A server in another language leaves it out; "
                       "only the scenario that uses it is then not testable.")
        if rows := used[name]:
            out.append("- Checked by: " + ", ".join(_ordered(rows, table)))
        if tool.questions:
            out += ["", "| Parameter | Message template | Waits for | Optional | Requested schema | Labels |",
                    "|---|---|---|---|---|---|"]
            for param, question in tool.questions.items():
                schema = question.schema()
                labels = {"title": question.title, "description": question.description}
                said = ", ".join(f"{k} `{v}`" for k, v in labels.items() if v is not None) or "-"
                out.append(
                    f"| `{param}` | `{question.message}` | {', '.join(question.needs) or '-'} "
                    f"| {'yes' if question.optional else 'no'} "
                    f"| {'never asked' if schema is None else '`' + json.dumps(schema) + '`'} | {said} |"
                )
        out.append("")
    out += _asking_entries(
        "Prompts",
        "Only for a server whose framework accepts `Elicit` on a prompt (ERA-6). Rendered with "
        "`prompts/get` on both revisions, the prompt asks the question (the suite answers `Ada`) "
        "or takes the default; the declared parameter is not one of its arguments. A framework "
        "that refuses the marker at registration leaves the prompt out.",
        {name: (prompt, [f"- Arguments: {_arguments(prompt)}", f"- Renders: `{prompt.returns}`",
                         f"- Defaults: `{json.dumps(dict(prompt.defaults))}`"])
         for name, prompt in catalog.prompts.items()})
    out += _asking_entries(
        "Resource templates",
        "The same for a resource template (ERA-6), where the framework accepts `Elicit` on one: "
        "listed by `resources/templates/list` with exactly this URI template (the declared "
        "parameter is not one of its variables), and read with `resources/read` at the URI "
        "below on both revisions, it asks the question (the suite gives the answer below) "
        "or takes the default. A framework that refuses the marker at "
        "registration leaves the template out.",
        {name: (template, [f"- URI template: `{template.uri}`", f"- Variables: {_arguments(template)}",
                           f"- Reads (text): `{template.returns}`",
                           f"- Defaults: `{json.dumps(dict(template.defaults))}`",
                           f"- Read by the suite at: `{template.read_uri}`, answering "
                           f"`{json.dumps(dict(template.answer))}` if asked"])
         for name, template in catalog.resources.items()})
    out += ["## Refused declarations", "",
            "Declarations a framework must refuse at registration (the row named), written out as tools. "
            "A target does **not** list them: refused, the tool never exists (in-process, the row's "
            "registration probe shows the refusal). A target that lists one accepted the wiring, and "
            "fails its row on the wire with what calling it did, answering as below.", ""]
    for name, refused in catalog.refused.items():
        out += [f"### `{name}` ({refused.row})", "", f"- Declares: `{refused.declares}`",
                f"- If listed anyway, called with `{{}}` and answered `{json.dumps(dict(refused.answer))}`", ""]
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
            "## What each case needs", "",
            "Every case, with the rows it checks, the revisions it runs on, the tools it calls (a tool "
            "you lack makes it not testable) and its script: what the client does and what a conforming "
            "server answers.", ""]
    for case in cases():
        out += [f"### `{case.name}`", "",
                f"- Checks: {', '.join(case.rows) or 'the rows of each scenario'}",
                f"- Revisions: {', '.join(case.revisions) or 'both'}",
                f"- Tools: {', '.join(f'`{t}`' for t in case.tools) or 'none'}",
                "", case.script, ""]
    out += ["## Requirements", "",
            "What each ID means, and the MCP specification section it rests on: `docs/behaviour.md`.", "",
            "| ID | Level | What is checked | Source |", "|---|---|---|---|"]
    for row in table.rows.values():
        sentence = row.checks + (f" *(not checked: {row.excluded})*" if row.excluded else "")
        out.append(f"| {row.id} | {row.level} | {sentence} | {cited(table.source_of(row.id))} |")
    return "\n".join(out) + "\n"


def _ordered(rows: set[str], table: Table) -> list[str]:
    order = {row_id: index for index, row_id in enumerate(table.rows)}
    return sorted(rows, key=lambda row: (order.get(row, len(order)), row))


def data() -> dict[str, Any]:
    """The contract as data: what `render()` says, for a tool to read."""
    catalog = load()
    used = tools_used()
    return {
        "rules": [{"title": title, "text": text} for title, text in RULES],
        "tools": {
            name: {
                "arguments": dict(tool.arguments), "returns": tool.returns, "description": tool.description,
                "profile": tool.profile, "task": tool.task, "once": tool.once, "checked_by": sorted(used[name]),
                "questions": {
                    param: {"message": q.message, "needs": list(q.needs), "optional": q.optional,
                            "requested_schema": q.schema()}
                    for param, q in tool.questions.items()
                },
            }
            for name, tool in catalog.tools.items()
        },
        "prompts": {
            name: {"arguments": dict(p.arguments), "renders": p.returns, "defaults": dict(p.defaults),
                   "questions": {param: {"message": q.message, "optional": q.optional}
                                 for param, q in p.questions.items()}}
            for name, p in catalog.prompts.items()
        },
        "resources": {
            name: {"uri_template": r.uri, "variables": dict(r.arguments), "reads": r.returns,
                   "defaults": dict(r.defaults), "read_at": r.read_uri, "answers": dict(r.answer),
                   "questions": {param: {"message": q.message, "optional": q.optional}
                                 for param, q in r.questions.items()}}
            for name, r in catalog.resources.items()
        },
        "refused": {
            name: {"row": r.row, "declares": r.declares, "answers": dict(r.answer),
                   "questions": {param: {"message": q.message} for param, q in r.questions.items()}}
            for name, r in catalog.refused.items()
        },
        "scenarios": {
            sid: {"tool": sc.tool, "arguments": dict(sc.arguments),
                  "replies": {param: reply.wire() for param, reply in sc.answers.items()},
                  "rounds": [list(r) for r in sc.expect.rounds], "result": sc.expect.result,
                  "error_names": list(sc.expect.error), "error_should_name": list(sc.expect.error_should),
                  "body_runs": sc.expect.body_runs}
            for sid, sc in catalog.scenarios.items()
        },
        "cases": [asdict(case) for case in cases()],
        "requirements": [asdict(row) for row in Table.load().rows.values()],
        "promises": [asdict(promise) for promise in Table.load().promises.values()],
    }


def _asking_entries(title: str, intro: str, entries: dict[str, tuple[Prompt, list[str]]]) -> list[str]:
    """A section of entries that ask (prompts, resource templates): each its facts, then
    its questions."""
    out = [f"## {title}", "", intro, ""]
    for name, (entry, facts) in entries.items():
        out += [f"### `{name}`", "", *facts, "", *_question_table(entry)]
    return out


def _arguments(entry: Prompt) -> str:
    return ", ".join(f"`{a}`: {t}" for a, t in entry.arguments.items())


def _question_table(declared: Prompt) -> list[str]:
    """The questions of a prompt or resource template, as a Markdown table."""
    return ["| Parameter | Message template | Optional |", "|---|---|---|",
            *(f"| `{p}` | `{q.message}` | {'yes' if q.optional else 'no'} |" for p, q in declared.questions.items()), ""]


def write_contract(destination: str, since: Path | None = None) -> None:
    """Write the contract to `destination` (JSON for a `.json` file), or to standard output
    for "-"; with `since` (an earlier contract.json), what changed since it, as Markdown."""
    if since is not None:
        text = changes.changes(changes.read(since), data(), str(since))
    else:
        text = json.dumps(data(), indent=2, ensure_ascii=False) + "\n" if destination.endswith(".json") else render()
    if destination == "-":
        sys.stdout.write(text)
    else:
        Path(destination).write_text(text)

