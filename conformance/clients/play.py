"""One client scenario played: the scenario server up, the client run against it once,
and what the client sent, read back for the checks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from elicit_conformance.harness.case import Case
from elicit_conformance.harness.driver import as_object
from elicit_conformance.limits import DEFAULT_TIMEOUT
from elicit_conformance.quoting import brief
from elicit_conformance.revisions import MODERN
from elicit_conformance.verdict import check

from .command import Exited, run_client
from .in_process import run_in_process
from .handshake_server import handshake_app
from .recording import Recording
from .scenario_server import RunningTask, ScenarioServer, serving
from .scenarios import SCENARIOS


@dataclass(frozen=True)
class Played:
    server: Recording
    exited: Exited

    def calls(self, tool: str) -> list[dict[str, Any]]:
        """The client's `tools/call` requests of `tool`: the first call, then each retry."""
        return self.server.calls(tool)

    def tasks(self) -> list[RunningTask]:
        """The tasks the 2026-07-28 scenario server made, in the order made."""
        return list(self.server.server.tasks.values())

    def not_retried(self, tool: str) -> str:
        """Why `tool` was not retried, as a sentence: what the client did instead."""
        calls = len(self.calls(tool))
        return (f"the client called {tool} {calls} time(s) and never retried it after the server asked; "
                f"{self.exited.said()}")


async def play(case: Case, name: str, revision: str) -> Played:
    """Play the scenario `name` on `revision` (the case's era, the scenario's own) with the
    client under test; its messages go to the case's transcript."""
    scenario = SCENARIOS[name]
    assert revision == scenario.revision, f"{name} is played on {scenario.revision}, not {revision}"
    modern = revision == MODERN
    app = (ScenarioServer({s.tool: s for s in scenario.scripts}, together=scenario.together) if modern
           else handshake_app(scenario.scripts))
    server = Recording(app, case.transcript)
    async with serving(server, lifespan=not modern) as url:
        # The whole scenario, start-up included, within one timeout (30 s by default, as the
        # official suite's client mode allows).
        timeout, context = case.timeout or DEFAULT_TIMEOUT, scenario.context()
        exited = await (run_in_process(case.target.main, url, name, revision, context, timeout) if case.target.main
                        else run_client(case.target.argv, url, name, revision, context, timeout))
    return Played(server, exited)


def params_of(request: dict[str, Any]) -> dict[str, Any]:
    return as_object(request.get("params"))


def is_the_answer(sent: Any, wanted: dict[str, Any]) -> bool:
    """Whether the ElicitResult `sent` is the user's answer `wanted`: the same action, and
    for an accepted one the same content (anything else it carries, `_meta` say, is free)."""
    got = as_object(sent)
    return got.get("action") == wanted["action"] and (wanted["action"] != "accept" or got.get("content") == wanted["content"])


def capabilities_of(request: dict[str, Any]) -> Any:
    """The client capabilities a request declared in its `_meta`, or None."""
    return as_object(params_of(request).get("_meta")).get("io.modelcontextprotocol/clientCapabilities")


def answered(played: Played, tool: str) -> list[dict[str, Any]]:
    """The calls of `tool`, its retries checked to exist: a client with an answer for every
    question answers (CLI-7)."""
    calls = played.calls(tool)
    check("CLI-7", len(calls) >= 2, played.not_retried(tool))
    return calls


def responses_of(request: dict[str, Any]) -> dict[str, Any]:
    """The `inputResponses` a retry (or a `tasks/update`) carried."""
    responses = params_of(request).get("inputResponses")
    return responses if isinstance(responses, dict) else {}


def check_answers(scenario: str, retry: dict[str, Any], asked: dict[str, str]) -> None:
    """CLI-4 and CLI-7 for one retry: a response under each key asked (`asked`: key ->
    question message), each the scenario's answer to that question."""
    responses = responses_of(retry)
    missing = sorted(set(asked) - set(responses))
    check("CLI-4", not missing, f"the retry {brief(params_of(retry))} has no response under {missing}; the round "
          f"asked {sorted(asked)}, and each asked input is constructed before the retry")
    for key, message in asked.items():
        wanted, sent = SCENARIOS[scenario].answers[message], responses[key]
        check("CLI-7", is_the_answer(sent, wanted), f"{message!r} (key {key!r}) was answered {brief(sent)}; the user's answer was {brief(wanted)}")
