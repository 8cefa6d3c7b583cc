"""Which code each case runs against the reference, and which cases a mutant can change.

A mutant is the reference with some attributes replaced through
`fixtures.mutants.patch()`. Until a run first calls a replaced attribute, a
mutant runs exactly as the reference does; so a case that never calls any of
the replaced originals on the reference runs on the mutant as it does on the
reference, and passes. Only the cases whose *footprint* (the code objects they
call) holds a replaced original can change, and only those need running.

This plugin does both halves, in a child suite run (`-p tests.footprint`):

- `ELICIT_FOOTPRINT_RECORD=FILE`: against the reference, record every code
  object each case calls (setup, call and teardown, in every thread) with
  `sys.settrace`. Calls outside a case, and in fixtures wider than a case
  (importing the server, the reachability check before the first case), are
  the *session's*: they can change every case.
- `ELICIT_FOOTPRINT_SELECT=FILE` (recordings united by `Footprints.united`
  and saved): against a mutant, run only the cases whose footprint holds a
  code object the mutant replaced, and write why to
  `ELICIT_FOOTPRINT_SELECTION=FILE`. The whole suite runs instead when the
  claim cannot be made: nothing was replaced through `patch()`; a replaced
  original is not a function or method (a class is used by `isinstance`,
  which calls none of its code); the session calls one and may have built
  another server with it; or the server lists other tools, prompts or
  resources than the reference did (a mutant that adds to the app).
  Of the cases reaching a replaced engine function, a mutant tests/shadow.py
  ran beside the reference runs only those where it did something else.

The session's calls are what import builds the server with. A replaced
function of the sans-IO engine (`PURE`: no state, no I/O, a result from its
arguments alone) is run beside its original until the first case; where every
such call gave the original's result (or raised as it did), the server was
built as the reference's was, and the cases it can change are again those
that call the original. A replaced seam that builds prompts and resources and
nothing else (`BUILDS_PROMPTS_AND_RESOURCES`) may build them otherwise: with
the tools listed exactly as the reference lists them, what it changed is seen
only by the cases that list, get or read prompts or resources.

What the claim assumes, and `tests/test_mutants.py` checks on a sample by
running those mutants' whole suite: each case's code path on the reference is
the same from run to run (the generated attacks, whose examples are the fuzz
profile's, only on the profile recorded: a run on another runs them), and cases
do not reach each other's state (each case's refs are its own).
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import anyio
import pytest

from tests.suite import FUZZ

RECORD, SELECT, SELECTION = "ELICIT_FOOTPRINT_RECORD", "ELICIT_FOOTPRINT_SELECT", "ELICIT_FOOTPRINT_SELECTION"
#: The mutant (or legal variant) a selecting run judges: its name in `fixtures/`.
MUTANT = "ELICIT_FOOTPRINT_MUTANT"
SESSION = "<session>"


def key(code: CodeType) -> str:
    return f"{code.co_filename}:{code.co_firstlineno}:{code.co_qualname}"


def seam(owner: Any, name: str) -> str:
    """A replaced attribute's name: `module.function` or `Class.method`."""
    return f"{getattr(owner, '__qualname__', getattr(owner, '__name__', owner))}.{name}"


class Recorder:
    """Every code object called, by the case that was running."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.current = SESSION
        #: Code objects by id, kept alive so that an id is never reused.
        self.codes: dict[int, CodeType] = {}
        self.seen: dict[str, set[int]] = {SESSION: set()}
        self._into = self.seen[SESSION]
        #: The tools each case ran (in the foreground or as a task), by name.
        self.ran: dict[str, set[str]] = {}
        self._runs_a_tool = _tool_runs()
        # A global trace function hears of each new frame and nothing else when it
        # returns None: cheaper than a profile function, which hears of C calls too.
        sys.settrace(self._trace)
        threading.settrace(self._trace)

    def _trace(self, frame: FrameType, event: str, arg: Any) -> None:
        code = frame.f_code
        if id(code) not in self._into:
            self._into.add(id(code))
            self.codes[id(code)] = code
        if (name_of := self._runs_a_tool.get(code)) is not None:
            self.ran.setdefault(self.current, set()).add(name_of(frame.f_locals))

    def _during(self, name: str) -> Iterator[None]:
        before, self.current = self.current, name
        self._into = self.seen.setdefault(name, set())
        try:
            return (yield)
        finally:
            self.current = before
            self._into = self.seen[before]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[object]:
        return (yield from self._during(item.nodeid))

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef[Any]) -> Iterator[object]:
        # A fixture wider than a case serves every case after it.
        if fixturedef.scope == "function":
            return (yield)
        return (yield from self._during(SESSION))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]
        keys = sorted({key(code) for code in self.codes.values()})
        index = {k: i for i, k in enumerate(keys)}
        self.path.write_text(json.dumps({
            "keys": keys,
            "footprints": {name: sorted({index[key(self.codes[i])] for i in ids}) for name, ids in self.seen.items()},
            "components": components(_target(session.config).server),
            "tools": {name: sorted(tools) for name, tools in self.ran.items()},
            "profile": fuzz_profile(),
        }))


class Footprints:
    """Recordings united, inverted: for each code key, the cases that called it; and for
    each mutant tests/shadow.py ran beside the reference, the cases where it diverged."""

    def __init__(self, cases: list[str], reach: dict[str, list[int]], components: dict[str, list[str]] | None,
                 diverged: dict[str, list[str]] | None = None, tools: dict[str, list[str]] | None = None,
                 profiles: list[str | None] | None = None) -> None:
        self.cases = cases
        self.reach = reach
        self.components = components
        self.diverged = diverged or {}
        #: The tools each case ran.
        self.tools = tools or {}
        #: The fuzz profiles (`ELICIT_FUZZ`) the recordings ran the generated attacks on.
        self.profiles = profiles or []

    @classmethod
    def united(cls, recordings: Iterable[Path], shadows: Iterable[Path] = ()) -> Footprints:
        cases: dict[str, int] = {}
        reach: dict[str, set[int]] = {}
        components: dict[str, list[str]] | None = None
        diverged: dict[str, set[str]] = {}
        tools: dict[str, set[str]] = {}
        profiles: list[str | None] = []
        for path in shadows:
            data = json.loads(path.read_text())
            profiles.append(data["profile"])
            for name, where in data["diverged"].items():
                diverged.setdefault(name, set()).update(where)
            # Judged by these alone (no recording), they say what was run and listed.
            for name in data["cases"]:
                cases.setdefault(name, len(cases))
            components = components or data["components"]
        for path in recordings:
            data = json.loads(path.read_text())
            profiles.append(data["profile"])
            keys = data["keys"]
            for name, indices in data["footprints"].items():
                case = cases.setdefault(name, len(cases))
                for i in indices:
                    reach.setdefault(keys[i], set()).add(case)
            components = data["components"]
            for name, ran in data["tools"].items():
                tools.setdefault(name, set()).update(ran)
        return cls(list(cases), {k: sorted(v) for k, v in reach.items()}, components,
                   {name: sorted(where) for name, where in diverged.items()},
                   {name: sorted(ran) for name, ran in tools.items()}, sorted(set(profiles), key=str))

    @classmethod
    def load(cls, path: Path) -> Footprints:
        return cls(**json.loads(path.read_text()))

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"cases": self.cases, "reach": self.reach, "components": self.components,
                                    "diverged": self.diverged, "tools": self.tools, "profiles": self.profiles}))

    def cases_reaching(self, keys: set[str]) -> set[str]:
        return {self.cases[i] for k in keys for i in self.reach.get(k, ())}

    def cases_running(self, tools: set[str]) -> set[str]:
        return {case for case, ran in self.tools.items() if tools & set(ran)}

    def recorded(self) -> set[str]:
        """The cases whose recording holds for this run: all, but the generated attacks
        where they were recorded on another fuzz profile, whose examples are not this
        run's (a mutant meant to fail them runs the `brief` examples, the recording the
        `quick` ones: it runs them)."""
        if fuzz_profile() in self.profiles:
            return set(self.cases)
        return {case for case in self.cases if not case.startswith(GENERATED)}


#: The one case whose path depends on the fuzz profile: its examples are the profile's.
GENERATED = "conformance/cases/test_hostile_input.py::"


def fuzz_profile() -> str | None:
    """The generated attacks' profile this run (`ELICIT_FUZZ`; None: the suite's default)."""
    return os.environ.get(FUZZ)


#: The engine's modules whose functions hold no state and do no I/O, each result made from
#: its arguments alone (the sans-IO engine, and reading a signature or a reply): a
#: replacement of one can be run beside its original and the results compared. Not
#: serve.py, which registers tools and wraps them in new functions.
PURE = ("elicit_conformance.reference.questions", "elicit_conformance.reference.answers",
        "elicit_conformance.reference.rounds")


class Outcome:
    """What one call did: returned a value, or raised."""

    def __init__(self, call: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.error: BaseException | None = None
        self.value: Any = None
        try:
            self.value = call(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - compared, then raised again
            self.error = error

    def same_as(self, other: Outcome) -> bool:
        if self.error is not None or other.error is not None:
            return (type(self.error), str(self.error)) == (type(other.error), str(other.error))
        try:
            return bool(self.value == other.value)
        except Exception:  # noqa: BLE001 - values that cannot be compared are not the same
            return False

    def give(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


class Beside:
    """The engine's replacements, each run beside its original until the first case."""

    def __init__(self) -> None:
        self.building = True
        #: Replacements whose result differed from the original's while building, and for
        #: each the functions being declared as tools then (None: outside any).
        self.differed: set[str] = set()
        self.declaring: dict[str, list[Any]] = {}

    def wrap(self, owner: Any, name: str, new: Any) -> Any:
        original = inspect.getattr_static(owner, name)
        if not (inspect.ismodule(owner) and owner.__name__ in PURE and inspect.isfunction(original)):
            return new

        def beside(*args: Any, **kwargs: Any) -> Any:
            theirs = Outcome(new, args, kwargs)
            if self.building and not theirs.same_as(Outcome(original, args, kwargs)):
                self.differed.add(seam(owner, name))
                self.declaring.setdefault(seam(owner, name), []).append(_declaring(sys._getframe(1)))
            return theirs.give()

        return beside


#: The seams that build prompts and resources, and nothing else: serve.py registers tools
#: through other code, and the tools' listing is compared besides. What they build is seen
#: only by a case that lists, gets or reads a prompt or a resource (or calls them itself).
BUILDS_PROMPTS_AND_RESOURCES = frozenset({
    "DeclarativeFastMCP.prompt", "DeclarativeFastMCP.resource", "elicit_conformance.reference.serve._refuse_markers",
})


def sees_prompts_and_resources() -> set[str]:
    """fastmcp's handlers of the requests that list, get or read prompts and resources."""
    from fastmcp.server.mixins.mcp_operations import MCPOperationsMixin

    handlers = ("_on_list_prompts", "_on_get_prompt", "_on_list_resources", "_on_list_resource_templates",
                "_on_read_resource")
    return {key(getattr(MCPOperationsMixin, name).__code__) for name in handlers}


def _tool_runs() -> dict[CodeType, Callable[[dict[str, Any]], str]]:
    """The code a call of a fastmcp tool goes through, and how its frame names the tool:
    the `tools/call` handler (before anything may refuse it), `Tool._run`, and as a task,
    fastmcp-tasks' wrapper of its function."""
    from fastmcp.server.mixins.mcp_operations import MCPOperationsMixin
    from fastmcp.tools.base import Tool

    runs: dict[CodeType, Callable[[dict[str, Any]], str]] = {
        MCPOperationsMixin._on_call_tool.__code__: lambda local: local["params"].name,
        Tool._run.__code__: lambda local: local["self"].name,
    }
    if importlib.util.find_spec("fastmcp_tasks") is not None:
        from fastmcp_tasks.input_loop import reentrant_task_fn

        runs[reentrant_task_fn(lambda: None, "").__code__] = lambda local: local["tool_name"]
    return runs


def _declaring(frame: FrameType | None) -> Any:
    """The function `serve.declared` is making into a tool in this call stack, if any."""
    while frame is not None:
        code = frame.f_code
        if code.co_name == "declared" and code.co_filename.endswith(f"reference{os.sep}serve.py"):
            return frame.f_locals["fn"]
        frame = frame.f_back
    return None


def tools_declared_from(server: Any, functions: list[Any]) -> set[str] | None:
    """The names of `server`'s tools made from `functions`; None where one is none of them
    (or was not a tool's at all)."""
    async def listed() -> list[Any]:
        return list(await server.list_tools())

    made: dict[int, str] = {}
    for tool in anyio.run(listed):
        # The function itself, or the one `declared` wraps (held in its closure).
        fn = getattr(tool, "fn", None)
        for cell in [*(getattr(fn, "__closure__", None) or ()), None]:
            made[id(cell.cell_contents if cell is not None else fn)] = tool.name
    names = {made.get(id(fn)) for fn in functions if fn is not None}
    return None if None in names or None in functions else names


def replaced_code(original: Any) -> str | None:
    """The code key of a replaced function or method. None for anything else: a
    class, say, is used without calling any code of its own (`isinstance`), so no
    recording tells which cases it reaches."""
    original = unwrapped(original)
    return key(original.__code__) if inspect.isfunction(original) else None


def unwrapped(attribute: Any) -> Any:
    """The function a staticmethod or classmethod holds; anything else as it is."""
    return attribute.__func__ if isinstance(attribute, (staticmethod, classmethod)) else attribute


class Selector:
    """Run only the cases a mutant's replacements can change."""

    def __init__(self, footprints: Footprints, out: Path | None, beside: Beside, mutant: str | None) -> None:
        self.footprints = footprints
        self.out = out
        self.beside = beside
        #: The cases where the mutant diverged beside the reference (tests/shadow.py), if it was run so.
        self.diverged = footprints.diverged.get(mutant) if mutant else None
        #: The session's replacements judged harmless: they must stay so until the first case.
        self.built_alike: set[str] = set()
        #: Whether the session called replacements that build only prompts and resources.
        self.scoped = False
        #: The tools an engine replacement built otherwise than the reference did.
        self.built_otherwise: set[str] = set()
        #: When they were chosen: each such replacement's calls that differed.
        self._differed_then: dict[str, int] = {}

    def _why_whole(self, config: pytest.Config) -> tuple[str | None, set[str]]:
        from elicit_conformance.fixtures.mutants import PATCHED

        if self.diverged is not None and SESSION in self.diverged:
            return "beside the reference, it did something else before the first case", set()
        if not PATCHED and self.diverged is None:
            return "it replaces nothing through patch()", set()
        replaced: set[str] = set()
        for owner, name, original in PATCHED:
            found = replaced_code(original)
            label = seam(owner, name)
            if found is None:
                return f"{label} is not a function, whose calls a recording sees", set()
            if SESSION in self.footprints.cases_reaching({found}):
                if label in BUILDS_PROMPTS_AND_RESOURCES:
                    self.scoped = True
                elif not inspect.ismodule(owner) or owner.__name__ not in PURE:
                    return f"{label} is called outside any case (at import or before the first case)", set()
                if label in self.beside.differed:
                    tools = tools_declared_from(_target(config).server, self.beside.declaring[label])
                    if tools is None:
                        return f"{label} gave another result than the reference's while the server was built", set()
                    # What it changed is those tools: the cases that run one can change.
                    self.built_otherwise |= tools
                    self._differed_then[label] = len(self.beside.declaring[label])
                else:
                    self.built_alike.add(label)
            replaced.add(found)
        listed, recorded = components(_target(config).server), self.footprints.components
        if listed is None or recorded is None:
            return "its server cannot say what it lists", set()
        if listed["tools"] != recorded["tools"]:
            return "its server lists other tools than the reference", set()
        if listed != recorded and not self.scoped:
            return "its server lists other prompts or resources than the reference", set()
        return None, replaced

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        why, replaced = self._why_whole(config)
        if why is None:
            # Of the cases reaching its replacements, those where they did something else
            # (tests/shadow.py), where they were run beside the reference.
            reaching = self.footprints.cases_reaching(replaced) if self.diverged is None else set(self.diverged)
            if self.scoped:
                reaching |= self.footprints.cases_reaching(sees_prompts_and_resources())
            reaching |= self.footprints.cases_running(self.built_otherwise)
            recorded = self.footprints.recorded()
            left = [item for item in items if item.nodeid not in reaching and item.nodeid in recorded]
            if left:
                config.hook.pytest_deselected(items=left)
                items[:] = [item for item in items if item.nodeid not in {i.nodeid for i in left}]
        if self.out is not None:
            ways = [way for way, used in (("divergence", self.diverged is not None),
                                          ("footprint", self.diverged is None),
                                          ("prompts and resources", self.scoped),
                                          ("tools built otherwise", bool(self.built_otherwise))) if used]
            by = None if why else " + ".join(ways)
            self.out.write_text(json.dumps({"whole": why, "run": [item.nodeid for item in items], "by": by}))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> None:
        if self.beside.building:
            self.beside.building = False
            grew = {label for label, then in self._differed_then.items() if len(self.beside.declaring[label]) > then}
            if broken := (self.built_alike & self.beside.differed) | grew:
                # After the cases were chosen (before the first case: the reachability check).
                pytest.exit(f"tests/footprint.py: {sorted(broken)} differed from the reference after the "
                            "cases were chosen; this mutant must run whole", returncode=3)


def _target(config: pytest.Config) -> Any:
    from elicit_conformance.plugin.hooks import current

    return current(config).target


def components(server: Any) -> dict[str, list[str]] | None:
    """What an in-process server lists: each tool's listing, prompt, resource and template
    names; None for a server this cannot list (no listing methods by these names)."""
    methods = ("list_tools", "list_prompts", "list_resources", "list_resource_templates")
    if server is None or not all(hasattr(server, name) for name in methods):
        return None

    async def listed() -> dict[str, list[str]]:
        return {
            # Each tool as a client sees it listed, not its name alone.
            "tools": sorted(json.dumps(t.to_mcp_tool().model_dump(mode="json"), sort_keys=True)
                            for t in await server.list_tools()),
            "prompts": sorted(p.name for p in await server.list_prompts()),
            "resources": sorted(str(r.uri) for r in await server.list_resources()),
            "templates": sorted(t.uri_template for t in await server.list_resource_templates()),
        }

    return anyio.run(listed)


#: Started when this plugin is imported (`-p` loads it before any plugin is
#: configured), so that importing the server is recorded as the session's.
_recorder = Recorder(Path(os.environ[RECORD])) if os.environ.get(RECORD) else None
#: Likewise in place before a mutant is imported, so that its replacements are run beside.
_beside = Beside()
if os.environ.get(SELECT):
    from elicit_conformance.fixtures import mutants

    mutants.wrap = _beside.wrap


def pytest_configure(config: pytest.Config) -> None:
    if _recorder is not None:
        config.pluginmanager.register(_recorder, "elicit-footprint-record")
    elif path := os.environ.get(SELECT):
        out = os.environ.get(SELECTION)
        selector = Selector(Footprints.load(Path(path)), Path(out) if out else None, _beside, os.environ.get(MUTANT))
        config.pluginmanager.register(selector, "elicit-footprint-select")
