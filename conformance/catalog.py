"""The scenario catalog (`fixtures/scenarios.json`, and the tools generated from the
declaration space in `fixtures/space.json`) as typed, frozen records.

The catalog is the contract every target implements, and the script the
cases follow, so it is read and checked once (`load()`), and everything that
derives from it lives here: rendering a question's message, the `{run}`
prefix of a scenario's arguments, and the depth of a tool's question graph.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from types import MappingProxyType
from typing import Any, Literal
from elicit_conformance.exceptions import CatalogError

#: The per-run prefix in scenario arguments (see `Scenario.for_run`).
RUN = "{run}"
#: A question a tool never gets to ask (it fails before asking).
NEVER_ASKED = "(none)"



@dataclass(frozen=True)
class Question:
    """One elicited parameter of a catalog tool."""

    param: str
    #: A template filled from the tool's arguments and earlier answers.
    message: str
    type: str
    #: Arguments and questions the message quotes.
    needs: tuple[str, ...] = ()
    optional: bool = False
    #: An object question's fields; a scalar question's allowed values and bound.
    fields: tuple[str, ...] = ()
    enum: tuple[Any, ...] = ()
    exclusive_minimum: float | None = None
    minimum: float | None = None
    maximum: float | None = None
    #: What the declaration labels the answer with: on the value field (TYP-6).
    title: str | None = None
    description: str | None = None
    #: A titled single choice: (value, title) pairs; a multiple choice: its items, plain
    #: (TYP-7) or as (value, title) pairs for a titled one (TYP-9).
    one_of: tuple[tuple[str, str], ...] = ()
    items: tuple[str | tuple[str, str], ...] = ()
    #: An optional question's default, offered as the value's `default` (OPT-6); None: none offered.
    default: Any = None

    def schema(self) -> dict[str, Any] | None:
        """The schema a conforming server requests (titles aside); None if never asked."""
        if self.message == NEVER_ASKED:
            return None
        if self.type == "object":
            fields = list(self.fields)
            return {"type": "object", "properties": {f: {"type": "string"} for f in fields}, "required": fields}
        value: dict[str, Any] = {"type": self.type}
        if self.one_of:
            value["oneOf"] = [{"const": const, "title": title} for const, title in self.one_of]
        if self.item_titles:
            value["items"] = {"anyOf": [{"const": const, "title": title} for const, title in self.item_titles]}
        elif self.items:
            value["items"] = {"type": "string", "enum": list(self.items)}
        if self.enum:
            value["enum"] = list(self.enum)
        stated = {"exclusiveMinimum": self.exclusive_minimum, "minimum": self.minimum, "maximum": self.maximum,
                  "default": self.default}
        value.update({k: v for k, v in stated.items() if v is not None})
        return {"type": "object", "properties": {"value": value}, "required": ["value"]}

    @property
    def item_titles(self) -> tuple[tuple[str, str], ...]:
        """A titled multiple choice's (value, title) pairs; empty for any other question."""
        return tuple(i for i in self.items if isinstance(i, tuple))

    @property
    def choice_form(self) -> str | None:
        """The SEP-1330 enum form the question is asked in (`wire_schema.FORMS`); None
        for a question that is no choice."""
        if self.items:
            return "titled multi" if self.item_titles else "untitled multi"
        return "titled single" if self.one_of else "untitled single" if self.enum else None

    def render(self, known: Mapping[str, Any]) -> str | None:
        """The message with `known` filled in; None while something it quotes is unknown."""
        try:
            return self.message.format(**known)
        except (KeyError, IndexError):
            return None


#: Every target implements the core; "python" tools spell a declaration the way
#: only Python can (a union outside `Annotated`, a type alias, `functools.partial`),
#: so a server in another language leaves them out.
PROFILES = ("core", "python")


@dataclass(frozen=True)
class Tool:
    name: str
    arguments: Mapping[str, str]
    #: What the tool returns, as a template or a sentence.
    returns: str
    #: In signature order.
    questions: Mapping[str, Question]
    profile: str = "core"
    #: The description the tool is listed with, where the catalog fixes one (SCH-3).
    description: str | None = None
    #: A target that offers the tasks extension runs it as a task when asked (TASK).
    task: bool = False
    #: A one-time action: its last round's requestState is consumed at most once (SEC-5).
    once: bool = False

    def depth(self, param: str, among: frozenset[str] | None = None) -> int:
        """The round a question is asked in: 1 + the depth of the questions it quotes
        (only those in `among`, when given)."""
        question = self.questions[param]
        quoted = [n for n in question.needs if n in self.questions and (among is None or n in among)]
        return 1 + max((self.depth(n, among) for n in quoted), default=0)


@dataclass(frozen=True)
class Reply:
    """What the scripted user answers to one question."""

    action: Literal["accept", "decline", "cancel"]
    #: The content sent with an accept (None: an accept without content).
    content: Mapping[str, Any] | None = None

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> Reply:
        """`{"accept": v}` (a scalar's value), `{"content": {...}}` (raw content),
        `{"decline": true}` or `{"cancel": true}`."""
        if "accept" in spec:
            return cls("accept", {"value": spec["accept"]})
        if "content" in spec:
            return cls("accept", spec["content"])
        if "decline" in spec:
            return cls("decline")
        if "cancel" in spec:
            return cls("cancel")
        raise CatalogError(f"a reply must accept, give content, decline or cancel: {spec!r}")

    @property
    def value(self) -> Any:
        """What an accepted answer means for the questions that quote it."""
        content = self.content or {}
        return content.get("value", content) if isinstance(content, Mapping) else content

    def wire(self) -> dict[str, Any]:
        """The raw `ElicitResult` a client sends."""
        if self.action != "accept":
            return {"action": self.action}
        if self.content is None:
            return {"action": "accept"}
        return {"action": "accept", "content": _plain(self.content)}


@dataclass(frozen=True)
class Expect:
    """What a conforming server does with a scenario."""

    #: The modern era's rounds, each in signature order.
    rounds: tuple[tuple[str, ...], ...]
    #: The result text of a call that completes; None for a call that fails.
    result: str | None = None
    #: Names a failure MUST mention, and names it SHOULD mention.
    error: tuple[str, ...] = ()
    error_should: tuple[str, ...] = ()
    #: How often the body ran, when the scenario observes it.
    body_runs: int | None = None
    #: Every question asked must request the schema the catalog gives it (GEN-1).
    schemas: bool = False


@dataclass(frozen=True)
class Scenario:
    id: str
    tool: str
    arguments: Mapping[str, Any]
    answers: Mapping[str, Reply]
    expect: Expect

    @property
    def family(self) -> str:
        """The requirement row the scenario is named for: `REG-9/partial` -> `REG-9`."""
        return self.id.split("/")[0]

    def for_run(self, run_id: str) -> Scenario:
        """The scenario with `{run}` in its arguments replaced, so that records one run
        leaves on the server never meet another run's."""
        arguments = {
            k: v.replace(RUN, run_id) if isinstance(v, str) else v for k, v in self.arguments.items()
        }
        return replace(self, arguments=MappingProxyType(arguments))


@dataclass(frozen=True)
class Prompt(Tool):
    """A prompt with a declared parameter (ERA-6): rendered (`returns`), it asks or
    takes the default."""

    defaults: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class Resource(Prompt):
    """A resource template with a declared parameter (ERA-6): read at a URI it
    matches, it asks or takes the default. Its arguments are its URI's variables."""

    uri: str = ""
    #: The variables the suite reads it with, and what it answers if asked.
    read_at: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    answer: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def read_uri(self) -> str:
        """The URI the suite reads: the template filled with `read_at`."""
        return self.uri.format(**self.read_at)


@dataclass(frozen=True)
class Refused(Tool):
    """A declaration a framework must refuse at registration (`row`, a REG row), written
    out as a tool so that a target whose framework accepted it anyway is judged by what
    calling it does: asked, it must return the answer the user gave."""

    row: str = ""
    #: The declaration, as a Python author would write it.
    declares: str = ""
    #: What the suite answers to each question, if asked.
    answer: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class Catalog:
    about: str
    tools: Mapping[str, Tool]
    scenarios: Mapping[str, Scenario]
    prompts: Mapping[str, Prompt]
    resources: Mapping[str, Resource] = field(default_factory=lambda: MappingProxyType({}))
    #: Declarations a framework must refuse at registration (REG), as tools.
    refused: Mapping[str, Refused] = field(default_factory=lambda: MappingProxyType({}))

    def questions(self, name: str) -> Mapping[str, Question]:
        """The questions of the tool, prompt, resource template or refused declaration `name`."""
        return (self.tools.get(name) or self.prompts.get(name) or self.refused.get(name)
                or self.resources[name]).questions

    def floor(self, scenario: Scenario) -> int:
        """The fewest rounds a scenario can take: the depth of the graph of the
        questions it asks."""
        tool = self.tools[scenario.tool]
        asked = frozenset(q for round_ in scenario.expect.rounds for q in round_)
        return max((tool.depth(q, asked) for q in asked), default=0)


@functools.cache
def load() -> Catalog:
    """The packaged catalog, read and checked once per process."""
    fixtures = resources.files("elicit_conformance.fixtures")
    raw = json.loads(fixtures.joinpath("scenarios.json").read_text())
    # The declaration space's tools and scenarios are catalog entries like any other.
    generated = json.loads(fixtures.joinpath("space.json").read_text())["generated"]
    if clash := (set(raw["tools"]) & set(generated["tools"])) | (set(raw["scenarios"]) & set(generated["scenarios"])):
        raise CatalogError(f"{sorted(clash)} are both in scenarios.json and generated in space.json")
    raw = {**raw, "tools": {**raw["tools"], **generated["tools"]},
           "scenarios": {**raw["scenarios"], **generated["scenarios"]}}
    tools = {name: _tool(name, spec) for name, spec in raw["tools"].items()}
    scenarios = {sid: _scenario(sid, spec, tools) for sid, spec in raw["scenarios"].items()}
    prompts = {
        name: Prompt(
            name, MappingProxyType(dict(spec["arguments"])), spec["returns"], _questions(spec),
            defaults=MappingProxyType(dict(spec["defaults"])),
        )
        for name, spec in raw.get("prompts", {}).items()
    }
    templates = {
        name: Resource(
            name, MappingProxyType(dict(spec["arguments"])), spec["returns"], _questions(spec),
            defaults=MappingProxyType(dict(spec["defaults"])), uri=spec["uri"],
            read_at=MappingProxyType(dict(spec["read_at"])), answer=MappingProxyType(dict(spec["answer"])),
        )
        for name, spec in raw.get("resources", {}).items()
    }
    refused = {
        name: Refused(
            name, MappingProxyType(dict(spec["arguments"])), spec["returns"], _questions(spec), "python",
            row=spec["row"], declares=spec["declares"], answer=MappingProxyType(dict(spec["answer"])),
        )
        for name, spec in raw.get("refused", {}).items()
    }
    names = [*tools, *prompts, *templates, *refused]
    if clash := sorted({name for name in names if names.count(name) > 1}):
        raise CatalogError(f"{clash} name more than one tool, prompt, resource template or refused declaration")
    return Catalog(raw["about"], MappingProxyType(tools), MappingProxyType(scenarios), MappingProxyType(prompts),
                   MappingProxyType(templates), MappingProxyType(refused))


def _questions(spec: Mapping[str, Any]) -> Mapping[str, Question]:
    return MappingProxyType({
        param: Question(
            param, q["message"], q["type"], tuple(q.get("needs", ())), bool(q.get("optional")),
            tuple(q.get("fields", ())), tuple(q.get("enum", ())), q.get("exclusiveMinimum"),
            q.get("minimum"), q.get("maximum"), q.get("title"), q.get("description"),
            tuple(tuple(pair) for pair in q.get("oneOf", ())), tuple(tuple(i) if isinstance(i, list) else i for i in q.get("items", ())), q.get("default"),
        )
        for param, q in spec["questions"].items()
    })


def _tool(name: str, spec: Mapping[str, Any]) -> Tool:
    profile = spec.get("profile", "core")
    if profile not in PROFILES:
        raise CatalogError(f"tool {name}: profile {profile!r} is not one of {PROFILES}")
    return Tool(
        name, MappingProxyType(dict(spec["arguments"])), spec["returns"], _questions(spec), profile,
        spec.get("description"), bool(spec.get("task")), bool(spec.get("once")),
    )


def _scenario(sid: str, spec: Mapping[str, Any], tools: Mapping[str, Tool]) -> Scenario:
    tool = tools.get(spec["tool"])
    if tool is None:
        raise CatalogError(f"scenario {sid}: no tool {spec['tool']!r} in the catalog")
    for param in [*spec["answers"], *(p for r in spec["expect"]["rounds"] for p in r)]:
        if param not in tool.questions:
            raise CatalogError(f"scenario {sid}: {spec['tool']} asks no question {param!r}")
    expect = spec["expect"]
    if ("result" in expect) == ("error" in expect):
        raise CatalogError(f"scenario {sid}: expect either a result or an error")
    return Scenario(
        sid,
        spec["tool"],
        MappingProxyType(dict(spec["arguments"])),
        MappingProxyType({p: Reply.parse(r) for p, r in spec["answers"].items()}),
        Expect(
            tuple(tuple(r) for r in expect["rounds"]), expect.get("result"), tuple(expect.get("error", ())),
            tuple(expect.get("error_should", ())), expect.get("body_runs"), bool(expect.get("schemas")),
        ),
    )


def _plain(value: Any) -> Any:
    """A copy the caller may change without changing the catalog."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value
