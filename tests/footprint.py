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
  and saved): against a mutant, run only the cases
  whose footprint holds a code object the mutant replaced, and write why
  to `ELICIT_FOOTPRINT_SELECTION=FILE`. The whole suite runs instead when the
  claim cannot be made: nothing was replaced through `patch()`; a replaced
  original is not a function or method (a class is used by `isinstance`,
  which calls none of its code); the session
  calls one; or the server lists other tools, prompts or resources than the
  reference did (a mutant that adds to the app).

What the claim assumes, and `tests/test_mutants.py` checks on a sample by
running those mutants' whole suite: each case's code path on the reference is
the same from run to run (recorded on both fuzz profiles, united), and cases
do not reach each other's state (each case's refs are its own).
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import anyio
import pytest

RECORD, SELECT, SELECTION = "ELICIT_FOOTPRINT_RECORD", "ELICIT_FOOTPRINT_SELECT", "ELICIT_FOOTPRINT_SELECTION"
SESSION = "<session>"


def key(code: CodeType) -> str:
    return f"{code.co_filename}:{code.co_firstlineno}:{code.co_qualname}"


class Recorder:
    """Every code object called, by the case that was running."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.current = SESSION
        #: Code objects by id, kept alive so that an id is never reused.
        self.codes: dict[int, CodeType] = {}
        self.seen: dict[str, set[int]] = {SESSION: set()}
        self._into = self.seen[SESSION]
        # A global trace function hears of each new frame and nothing else when it
        # returns None: cheaper than a profile function, which hears of C calls too.
        sys.settrace(self._trace)
        threading.settrace(self._trace)

    def _trace(self, frame: FrameType, event: str, arg: Any) -> None:
        code = frame.f_code
        if id(code) not in self._into:
            self._into.add(id(code))
            self.codes[id(code)] = code

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
            "components": components(_target(session.config)),
        }))


class Footprints:
    """Recordings united, inverted: for each code key, the cases that called it."""

    def __init__(self, cases: list[str], reach: dict[str, list[int]], components: dict[str, list[str]]) -> None:
        self.cases = cases
        self.reach = reach
        self.components = components

    @classmethod
    def united(cls, recordings: Iterable[Path]) -> Footprints:
        cases: dict[str, int] = {}
        reach: dict[str, set[int]] = {}
        components: dict[str, list[str]] = {}
        for path in recordings:
            data = json.loads(path.read_text())
            keys = data["keys"]
            for name, indices in data["footprints"].items():
                case = cases.setdefault(name, len(cases))
                for i in indices:
                    reach.setdefault(keys[i], set()).add(case)
            components = data["components"]
        return cls(list(cases), {k: sorted(v) for k, v in reach.items()}, components)

    @classmethod
    def load(cls, path: Path) -> Footprints:
        return cls(**json.loads(path.read_text()))

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"cases": self.cases, "reach": self.reach, "components": self.components}))

    def cases_reaching(self, keys: set[str]) -> set[str]:
        return {self.cases[i] for k in keys for i in self.reach.get(k, ())}


def replaced_code(original: Any) -> str | None:
    """The code key of a replaced function or method. None for anything else: a
    class, say, is used without calling any code of its own (`isinstance`), so no
    recording tells which cases it reaches."""
    if isinstance(original, (staticmethod, classmethod)):
        original = original.__func__
    return key(original.__code__) if inspect.isfunction(original) else None


class Selector:
    """Run only the cases a mutant's replacements can change."""

    def __init__(self, footprints: Footprints, out: Path | None) -> None:
        self.footprints = footprints
        self.out = out

    def _why_whole(self, config: pytest.Config) -> tuple[str | None, set[str]]:
        from elicit_conformance.fixtures.mutants import PATCHED

        if not PATCHED:
            return "it replaces nothing through patch()", set()
        replaced: set[str] = set()
        for owner, name, original in PATCHED:
            found = replaced_code(original)
            label = f"{getattr(owner, '__qualname__', getattr(owner, '__name__', owner))}.{name}"
            if found is None:
                return f"{label} is not a function, whose calls a recording sees", set()
            if SESSION in self.footprints.cases_reaching({found}):
                return f"{label} is called outside any case (at import or before the first case)", set()
            replaced.add(found)
        if components(_target(config)) != self.footprints.components:
            return "its server lists other tools, prompts or resources than the reference", set()
        return None, replaced

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        why, replaced = self._why_whole(config)
        if why is None:
            reaching, recorded = self.footprints.cases_reaching(replaced), set(self.footprints.cases)
            left = [item for item in items if item.nodeid not in reaching and item.nodeid in recorded]
            if left:
                config.hook.pytest_deselected(items=left)
                items[:] = [item for item in items if item.nodeid not in {i.nodeid for i in left}]
        if self.out is not None:
            self.out.write_text(json.dumps({"whole": why, "run": [item.nodeid for item in items]}))


def _target(config: pytest.Config) -> Any:
    from elicit_conformance import grading

    return grading.current(config).target


def components(target: Any) -> dict[str, list[str]]:
    """What an in-process server lists: tool, prompt, resource and template names."""
    server = target.server
    if server is None:
        return {}

    async def listed() -> dict[str, list[str]]:
        return {
            "tools": sorted(t.name for t in await server.list_tools()),
            "prompts": sorted(p.name for p in await server.list_prompts()),
            "resources": sorted(str(r.uri) for r in await server.list_resources()),
            "templates": sorted(t.uri_template for t in await server.list_resource_templates()),
        }

    return anyio.run(listed)


#: Started when this plugin is imported (`-p` loads it before any plugin is
#: configured), so that importing the server is recorded as the session's.
_recorder = Recorder(Path(os.environ[RECORD])) if os.environ.get(RECORD) else None


def pytest_configure(config: pytest.Config) -> None:
    if _recorder is not None:
        config.pluginmanager.register(_recorder, "elicit-footprint-record")
    elif path := os.environ.get(SELECT):
        out = os.environ.get(SELECTION)
        footprints = Footprints.load(Path(path))
        config.pluginmanager.register(Selector(footprints, Path(out) if out else None), "elicit-footprint-select")
