"""`index.html`: the report a reviewer opens, one self-contained file (no network at
view time; readable without its script).

At the top the verdict table (requirement row x revision, coloured by what was
proved, with each row's level and source); then a section per case, failures first:
its sentence, the catalog's rounds beside the server's, its golden diff where one
changed, and its transcript drawn as a conversation, the client on the left and the
server on the right, each exchange (a call and its rounds of questions and answers)
grouped. A checkbox (the page's one script) hides the cases that passed. The
Markdown files say the same in text; this is for looking at.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

from elicit_conformance.quoting import brief
from elicit_conformance.requirements import Requirement, Table
from elicit_conformance.status import Status
from elicit_conformance.version import VERSION

from .cells import Cell, rank
from .report import Outcome, Report

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 78em; color: #1b1f24; }
h1 { font-size: 1.4em; } h2 { font-size: 1.2em; margin-top: 2em; } h3 { font-size: 1em; margin: 0; }
table.verdicts { border-collapse: collapse; width: 100%; }
.verdicts th, .verdicts td { border: 1px solid #d0d7de; padding: .25em .5em; text-align: left; vertical-align: top; }
.pass { background: #dafbe1; } .fail, .timed-out { background: #ffd7d5; }
.expected-failure, .should-not-met, .stale-baseline { background: #fff1c2; }
.not-testable, .not-implemented, .not-run, .skipped, .not-reached, .not-evaluated { background: #f0f1f3; color: #57606a; }
section.case { border: 1px solid #d0d7de; border-radius: 6px; margin: 1em 0; padding: .75em 1em; }
.status { display: inline-block; padding: 0 .5em; border-radius: 1em; font-size: .9em; }
.sentence { margin: .5em 0; }
.conversation { margin-top: .5em; }
.exchange { border-left: 3px solid #d0d7de; margin: .75em 0; padding-left: .75em; }
.exchange > .label { color: #57606a; font-size: .85em; }
.message { border-radius: 8px; padding: .35em .7em; margin: .3em 0; max-width: 68%; overflow-wrap: anywhere; }
.client { background: #ddf4ff; margin-right: auto; }
.server { background: #eaeef2; margin-left: auto; }
.message pre, pre.diff { white-space: pre-wrap; font-size: .85em; margin: .3em 0 0; }
.from { font-size: .8em; color: #57606a; }
pre.diff .added { color: #116329; } pre.diff .removed { color: #82071e; }
"""


#: The one thing a script does here: hide the cases that passed, for a long run.
SCRIPT = """
document.getElementById("only-failing").addEventListener("change", function (event) {
  document.querySelectorAll("section.case").forEach(function (section) {
    section.hidden = event.target.checked && section.dataset.passed === "true";
  });
});
"""
#: What the failures list and an open transcript are for.
FAILED = (Status.FAIL, Status.TIMED_OUT, Status.STALE)


def page(report: Report, table: Table, directory: Path) -> str:
    """The whole report as one HTML page; transcripts are read from `directory`."""
    columns, rows = report.verdict_table(table)
    cases = sorted(report.outcomes.values(), key=lambda o: (rank(o.status), o.test_id))
    said = [*report.problems, *(rolled.said(ids=False) for rolled in report.rolled_up())]
    rolled = "".join(f"<li>{escape(line)}</li>" for line in said)
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>elicit-conformance: '
        f"{escape(report.target)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(report.headline())}</h1><p>elicit-conformance {escape(VERSION)}</p>"
        + (f"<ul>{rolled}</ul>" if rolled else "")
        + "<h2>Verdicts by requirement</h2>" + verdicts(columns, rows, table)
        + _failures(cases)
        + '<h2>Cases</h2><label><input type="checkbox" id="only-failing"> only the cases that did not pass</label>'
        + "".join(_case(o, directory) for o in cases) + f"<script>{SCRIPT}</script></body></html>\n"
    )


def verdicts(columns: list[str], rows: list[tuple[Requirement, list[Cell]]], table: Table,
             shown: Callable[[Cell], str] = lambda cell: cell.text) -> str:
    """A verdict table (a row per requirement, a column per run and revision), each cell
    coloured by its verdict; `shown` is what a cell displays (its whole text is its tooltip)."""
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join(
        f"<tr><td>{escape(row.id)}</td><td>{escape(row.level)}</td>"
        + "".join(f'<td class="{css(c.status)}" title="{escape(c.text)}">{escape(shown(c))}</td>' for c in cells)
        + f"<td>{source(table.source_of(row.id))}</td></tr>"
        for row, cells in rows
    )
    return (f'<table class="verdicts"><thead><tr><th>Requirement</th><th>Level</th>{head}<th>Source</th></tr>'
            f"</thead><tbody>{body}</tbody></table>")


def _failures(cases: list[Outcome]) -> str:
    failing = [o for o in cases if o.status in FAILED]
    if not failing:
        return ""
    return "<h2>Failures</h2><ul>" + "".join(
        f'<li><a href="#{escape(o.test_id)}">{escape(o.test_id)}</a>: {escape(o.message)}</li>' for o in failing
    ) + "</ul>"


def _case(outcome: Outcome, directory: Path) -> str:
    failed = outcome.status in FAILED
    passed = "true" if outcome.status == Status.PASS else "false"
    parts = [f'<section class="case" id="{escape(outcome.test_id)}" data-passed="{passed}"><h3>{escape(outcome.test_id)} '
             f'<span class="status {css(outcome.status)}">{escape(str(outcome.status))}</span></h3>',
             f"<div>checks {escape(', '.join(outcome.checks))} &middot; {escape(outcome.revision or 'n/a')} "
             f"&middot; {escape(outcome.level)}</div>"]
    if outcome.message:
        parts.append(f'<p class="sentence">{escape(outcome.message)}</p>')
    parts += [f'<p class="sentence">SHOULD not met: {escape(note)}</p>' for note in outcome.should_not_met]
    if outcome.rounds:
        parts.append("<p>Rounds: the catalog's " + escape(_rounds(outcome.rounds["expected"]))
                     + "; the server's " + escape(_rounds(outcome.rounds["observed"])) + "</p>")
    if outcome.golden_diff:
        parts.append(f"<p>Its transcript against its golden file <code>{escape(outcome.golden)}</code>:</p>"
                     + _diff(outcome.golden_diff))
    messages = _messages(directory, outcome.transcript)
    if messages:
        parts.append(f"<details{' open' if failed else ''}><summary>Transcript ({len(messages)} messages)</summary>"
                     f'<div class="conversation">{_conversation(messages)}</div></details>')
    return "".join(parts) + "</section>"


def _rounds(rounds: list[list[str | None]]) -> str:
    return " then ".join("[" + ", ".join(p or "(not the catalog's)" for p in r) + "]" for r in rounds) or "none"


def _messages(directory: Path, transcript: str | None) -> list[dict[str, Any]]:
    path = directory / transcript if transcript else None
    if path is None or not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _conversation(messages: list[dict[str, Any]]) -> str:
    """Each exchange (a client's request or notification, and everything until the
    next) grouped, its messages on their side."""
    exchanges: list[list[dict[str, Any]]] = []
    for line in messages:
        message = line.get("message", {})
        if (line.get("direction") == "client->server" and "method" in message) or not exchanges:
            exchanges.append([])
        exchanges[-1].append(line)
    html = []
    for exchange in exchanges:
        first = exchange[0].get("message", {})
        label = str(first.get("method", "")) or "messages"
        html.append(f'<div class="exchange"><div class="label">{escape(label)}</div>'
                    + "".join(_bubble(line) for line in exchange) + "</div>")
    return "".join(html)


def _bubble(line: dict[str, Any]) -> str:
    side = "client" if line.get("direction") == "client->server" else "server"
    message = line.get("message", {})
    return (f'<div class="message {side}"><div class="from">{side}</div>{escape(said(message))}'
            f"<details><summary>JSON</summary><pre>{escape(json.dumps(message, ensure_ascii=False))}</pre>"
            "</details></div>")


def said(message: dict[str, Any]) -> str:
    """One message as a line a person reads: a call and its answers, the questions
    of a round, an answer, a result's text, an error."""
    if not isinstance(message, dict):
        return str(message)
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    method = message.get("method")
    if method == "tools/call":
        answers = params.get("inputResponses")
        return (f"calls {params.get('name')} with {brief(params.get('arguments', {}))}"
                + (f"; answers {_answers(answers)}" if isinstance(answers, dict) else ""))
    if method == "elicitation/create":
        return f"asks {params.get('message')!r} ({brief(params.get('requestedSchema', {}))})"
    if method is not None:
        return f"{method} {brief(params)}" if params else str(method)
    if "error" in message:
        error = message["error"] if isinstance(message["error"], dict) else {}
        return f"error {error.get('code')}: {error.get('message')}"
    result = message.get("result")
    if not isinstance(result, dict):
        return brief(result)
    if result.get("resultType") == "input_required":
        asked = result.get("inputRequests") if isinstance(result.get("inputRequests"), dict) else {}
        questions = "; ".join(f"{key}: {_question(request)!r}" for key, request in asked.items())
        return f"asks {len(asked)} question(s): {questions}"
    if "action" in result:
        return f"answers: {result.get('action')} {brief(result.get('content'))}" if "content" in result \
            else f"answers: {result.get('action')}"
    if "content" in result:
        texts = [b.get("text", "") for b in result.get("content") or [] if isinstance(b, dict)]
        return ("error result: " if result.get("isError") else "result: ") + " ".join(map(str, texts))
    return f"result {brief(result)}"


def _question(request: Any) -> str:
    params = request.get("params") if isinstance(request, dict) else None
    return str(params.get("message")) if isinstance(params, dict) else str(request)


def _answers(answers: dict[str, Any]) -> str:
    return "; ".join(f"{key}: {answer.get('action') if isinstance(answer, dict) else answer}"
                     + (f" {brief(answer['content'])}" if isinstance(answer, dict) and "content" in answer else "")
                     for key, answer in answers.items())


def _diff(text: str) -> str:
    lines = []
    for line in text.splitlines():
        kind = {"+": "added", "-": "removed"}.get(line[:1]) if not line.startswith(("+++", "---")) else None
        lines.append(f'<span class="{kind}">{escape(line)}</span>' if kind else escape(line))
    return '<pre class="diff">' + "\n".join(lines) + "</pre>"


def source(source: dict[str, str]) -> str:
    if "url" in source:
        return f'<a href="{escape(source["url"])}">{escape(source.get("keyword", "source"))}</a>'
    return f"feature: {escape(source['promise'])}" if "promise" in source else "no source"


def css(status: str) -> str:
    """A status's colour class ("not testable": not-testable; "": none)."""
    return status.replace(" ", "-")
