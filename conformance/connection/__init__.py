"""Reaching a target: what `--server` / `--server-command` names (`target`), a stdio
server run as a desktop client runs it (`stdio`), a recorded JSON-RPC peer (`wire`),
and the check that a target answers before any case runs (`reach`).

May import: the vocabulary (`elicit_conformance.revisions`, `elicit_conformance.verdict`)
and the MCP client libraries; nothing of the harness, the grading or the reports.
"""
