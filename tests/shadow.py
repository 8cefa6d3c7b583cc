"""Which cases each mutant would change, measured on the reference by running every
mutant's replacements beside their originals.

A footprint (tests/footprint.py) says which cases *call* a replaced function; most
call it with arguments on which the replacement does exactly what the original
does (a mutant that drops titles changes only the questions that have one). This
plugin, in the reference's recorded run (`-p tests.shadow`, `ELICIT_SHADOW=FILE`),
imports every mutant whose replacements are all functions of the sans-IO engine
(`footprint.PURE`, and the methods of its classes), without letting them replace
anything. At each call of such a function on the reference, after the original
ran, each mutant's replacement runs too, on a copy of what the original got (a
method's object copied before the original changed it), and the two are
compared: the result or the exception, and a method's object afterwards, with
types and order counted (`strict`). Where they differ, the mutant *diverged* in
that case.

A mutant that adds one middleware to the app (`fixtures.variants.rewrite`) is kept
the same way: its middleware runs on each request after the reference answered it,
handed that answer (or error) for the request it got; a different answer, or
passing on another request, is a divergence.

Why that is enough: a case runs on a mutant exactly as on the reference up to
the first call where a replacement does something else, so a case in which no
call diverged runs on the mutant as on the reference, and passes. While one
mutant's replacement runs, the engine's functions it calls are that mutant's own
replacements where it has them (it runs as in its own process). What it assumes
is the footprint's (each case's path on the reference is the same from run to
run), and that what a replacement keeps between calls (a middleware's note of what
each round asked, say) depends on the calls alone; `tests/test_mutants.py` checks
the claim on a sample by running those mutants whole. Calls while the server is
built are not judged here (the mutant's own run compares those,
`footprint.Beside`); a divergence later before the first case makes its run whole.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import importlib
import inspect
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.footprint import PURE, SESSION, Outcome, components, fuzz_profile, unwrapped

SHADOW, SHADOW_OF = "ELICIT_SHADOW", "ELICIT_SHADOW_OF"


def strict(value: Any, _path: frozenset[int] = frozenset()) -> Any:
    """`value` as plain data that compares equal only when the two would act alike:
    types kept (1 is not True), order kept (a dict's order reaches the wire), other
    objects by identity (a copy made for the comparison shares them), as is a
    container met again inside itself."""
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return (type(value).__name__, value)
    if id(value) in _path:
        return ("again", id(value))
    path = _path | {id(value)}
    if isinstance(value, dict):
        return ("dict", tuple((strict(k, path), strict(v, path)) for k, v in value.items()))
    if isinstance(value, (list, tuple, set, frozenset)):
        return (type(value).__name__, tuple(strict(item, path) for item in value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__qualname__,
                tuple(strict(getattr(value, f.name), path) for f in dataclasses.fields(value)))
    if hasattr(value, "__pydantic_fields_set__") and not isinstance(value, type):
        return (type(value).__qualname__, strict(dict(value.__dict__), path),
                strict(sorted(value.__pydantic_fields_set__), path))
    if isinstance(value, BaseException):
        return (type(value).__qualname__, str(value))
    return ("object", id(value))


def _copied(obj: Any) -> Any:
    """A copy of a method's object whose containers are its own (the engine's objects
    keep their state in dicts and sets); what they hold is shared. A frozen dataclass
    cannot change: it is its own copy."""
    if dataclasses.is_dataclass(obj) and type(obj).__dataclass_params__.frozen:
        return obj
    twin = copy.copy(obj)
    for name, value in vars(obj).items():
        if isinstance(value, (dict, set, list)):
            setattr(twin, name, copy.copy(value))
    return twin


def _state(obj: Any) -> Any:
    return strict(dict(vars(obj)))


def _seen(outcome: Outcome) -> Any:
    """What one call did, as `strict` data: its result, or the exception it raised."""
    return strict(outcome.error) if outcome.error is not None else strict(outcome.value)


class Shadow:
    """Every shadowed mutant's replacements, and the cases where each diverged."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.current = SESSION
        #: Seam (owner, name) -> its original and each mutant's replacement (plain functions).
        self.seams: dict[tuple[Any, str], tuple[Any, dict[str, Callable[..., Any]]]] = {}
        self.diverged: dict[str, set[str]] = {}
        #: Mutants that add one middleware to the app, and it.
        self.middleware: dict[str, Callable[..., Any]] = {}
        #: The cases run, in order.
        self.cases: list[str] = []
        #: Mutants not shadowed, and why (they are selected by footprint alone).
        self.not_shadowed: dict[str, str] = {}
        self._local = threading.local()

    def load(self, here: Path, package: str, names: list[str]) -> None:
        """Import each mutant with its replacements collected instead of made, stopping
        at the first that is not the engine's (before the module can go on to change
        the reference's app); then put one wrapper on each replaced function."""
        from elicit_conformance.fixtures import mutants, variants
        from elicit_conformance.reference import app

        collected: dict[str, dict[tuple[Any, str], Any]] = {}
        listed = _built(app.app)
        rewrite = variants.rewrite
        for name in names:
            if why := _does_more_than_patch(here / f"{name}.py"):
                self.not_shadowed[name] = why
                continue
            made: dict[tuple[Any, str], Any] = {}
            rewritten: list[Any] = []

            def collect(owner: Any, attribute: str, new: Any, made: dict[tuple[Any, str], Any] = made) -> None:
                if why := _not_the_engines(owner, attribute):
                    raise NotShadowed(why)
                if (owner, attribute) in made:
                    raise NotShadowed(f"it replaces {attribute} twice")
                made[(owner, attribute)] = new

            def keep(middleware: Any, rewritten: list[Any] = rewritten) -> tuple[Any, Any, Any]:
                # What `rewrite` would put outermost on the app, kept to run beside it instead.
                from elicit_conformance.reference.asgi import asgi

                rewritten.append(middleware)
                return app.app, asgi, app.registration

            mutants.collect, variants.rewrite = collect, keep
            try:
                module = importlib.import_module(f"{package}.{name}")
            except NotShadowed as why:
                self.not_shadowed[name] = str(why)
                continue
            finally:
                mutants.collect, variants.rewrite = None, rewrite
            if getattr(module, "app", None) is not app.app:
                self.not_shadowed[name] = "its app is not the reference's"
            elif rewritten and not made and len(rewritten) == 1:
                self.diverged[name] = set()
                self.middleware[name] = rewritten[0]
            elif not made:
                self.not_shadowed[name] = "it replaces nothing through patch() or the app's middleware"
            elif rewritten:
                self.not_shadowed[name] = "it replaces functions and adds middleware"
            else:
                collected[name] = made
        if _built(app.app) != listed:
            raise RuntimeError("tests/shadow.py: importing the mutants changed the reference's app")
        for name, made in collected.items():
            self.diverged[name] = set()
            for (owner, attribute), new in made.items():
                original = inspect.getattr_static(owner, attribute)
                self.seams.setdefault((owner, attribute), (original, {}))[1][name] = unwrapped(new)
        for (owner, attribute), (original, _) in self.seams.items():
            setattr(owner, attribute, self._wrapper(owner, attribute, original))
        if self.middleware:
            app.app._mcp_server.middleware.insert(0, self._beside_the_middleware)

    async def _beside_the_middleware(self, ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        """Each kept middleware, on what the reference answered this request: the same
        answer (or error) for the same request, or it diverged."""
        from elicit_conformance.fixtures.variants import as_wire

        before = strict(getattr(ctx, "params", None))
        ours, error = None, None
        try:
            ours = await call_next(ctx)
        except Exception as raised:  # noqa: BLE001 - compared, then raised again
            error = raised
        seen = strict(error) if error is not None else strict(as_wire(ours))

        async def replay(given: Any) -> Any:
            if given is not ctx or strict(getattr(given, "params", None)) != before:
                raise Rewritten
            if error is not None:
                raise error
            return ours

        for name, middleware in self.middleware.items():
            try:
                theirs = strict(as_wire(await middleware(ctx, replay)))
            except Rewritten:
                theirs = ("rewritten",)
            except Exception as raised:  # noqa: BLE001 - what it raised is what it answered
                theirs = strict(raised)
            if theirs != seen:
                self.diverged[name].add(self.current)
        if error is not None:
            raise error
        return ours

    def _wrapper(self, owner: Any, attribute: str, original: Any) -> Any:
        kind = type(original) if isinstance(original, (staticmethod, classmethod)) else None
        plain = unwrapped(original)
        replacements = self.seams[(owner, attribute)][1]
        method = not inspect.ismodule(owner) and kind is None

        def shadowed(*args: Any, **kwargs: Any) -> Any:
            simulating = getattr(self._local, "mutant", None)
            if simulating is not None:
                # Inside one mutant's replacement: it runs as in that mutant's process.
                return replacements.get(simulating, plain)(*args, **kwargs)
            # Inside the original of a call compared already (a recursive one, say), a mutant
            # compared there does not run this original at all: only the others are compared.
            outer = getattr(self._local, "compared", frozenset())
            pending = [name for name in replacements if name not in outer and self.current not in self.diverged[name]]
            if not pending:
                return plain(*args, **kwargs)
            before = _copied(args[0]) if method else None
            self._local.compared = outer | set(pending)
            try:
                ours = Outcome(plain, args, kwargs)
            finally:
                self._local.compared = outer
            try:
                seen, after = _seen(ours), (_state(args[0]) if method else None)
            except Exception:  # noqa: BLE001 - what cannot be compared counts as a difference
                differ = pending
            else:
                differ = [name for name in pending if not self._alike(
                    name, replacements[name], (_copied(before), *args[1:]) if method else args, kwargs, seen, after)]
            for name in differ:
                self.diverged[name].add(self.current)
            return ours.give()

        return kind(shadowed) if kind is not None else shadowed

    def _alike(self, name: str, new: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
               seen: Any, after: Any) -> bool:
        """Whether mutant `name`'s replacement, called as the original was, did what it did."""
        self._local.mutant = name
        try:
            theirs = Outcome(new, args, kwargs)
            return _seen(theirs) == seen and (after is None or _state(args[0]) == after)
        except Exception:  # noqa: BLE001 - a comparison that fails counts as a difference
            return False
        finally:
            self._local.mutant = None

    def _during(self, name: str) -> Iterator[None]:
        before, self.current = self.current, name
        try:
            return (yield)
        finally:
            self.current = before

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[object]:
        self.cases.append(item.nodeid)
        return (yield from self._during(item.nodeid))

    def pytest_sessionfinish(self) -> None:
        from elicit_conformance.reference import app

        self.path.write_text(json.dumps({
            "diverged": {name: sorted(cases) for name, cases in self.diverged.items()},
            "not_shadowed": self.not_shadowed,
            # What a run selected by these alone compares (`footprint.Footprints.united`).
            "cases": self.cases,
            "components": components(app.app),
            "profile": fuzz_profile(),
        }))


#: What a mutant may call as it is imported: what changes the reference only through `patch()`,
#: or adds a middleware to its app (`fixtures.variants.rewrite`, kept to run beside it).
PATCHING = frozenset({"patch", "settle_instead", "rewrite"})
FIXTURES = "elicit_conformance.fixtures"


def _does_more_than_patch(path: Path) -> str | None:
    """Why importing the mutant could change this process other than through `patch()`
    (adding middleware to the reference's app, say), or None: its module only imports,
    names values, defines functions and calls `PATCHING`."""
    for statement in ast.parse(path.read_text()).body:
        module = statement.module or "" if isinstance(statement, ast.ImportFrom) else ""
        if module.startswith(f"{FIXTURES}.variants."):
            # A legal variant's module, imported for its app: it must keep to the same rules.
            if why := _does_more_than_patch(path.parents[1] / "variants" / f"{module.rsplit('.', 1)[1]}.py"):
                return f"{module}, which it imports: {why}"
            continue
        if module.startswith(FIXTURES) and module not in (f"{FIXTURES}.mutants", f"{FIXTURES}.variants"):
            return f"its module imports {module} at line {statement.lineno}"
        if isinstance(statement, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        value = getattr(statement, "value", None)
        if isinstance(statement, ast.Expr) and isinstance(value, ast.Constant):
            continue
        if isinstance(statement, ast.Expr) and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                and value.func.id in PATCHING:
            continue
        targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
        names = all(isinstance(t, (ast.Name, ast.Tuple)) for t in targets)
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and names and (
                not any(isinstance(node, ast.Call) for node in ast.walk(statement))
                or isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in PATCHING):
            continue
        return f"its module does more than patch() at line {statement.lineno}"
    return None


class Rewritten(Exception):
    """A kept middleware passed on another request than it got."""


class NotShadowed(Exception):
    """A mutant replaces something that is not the sans-IO engine's: its import stops."""


def _not_the_engines(owner: Any, attribute: str) -> str | None:
    home = owner.__name__ if inspect.ismodule(owner) else getattr(owner, "__module__", "")
    original = unwrapped(inspect.getattr_static(owner, attribute))
    if home in PURE and inspect.isfunction(original) and not inspect.iscoroutinefunction(original):
        return None
    return f"{getattr(owner, '__qualname__', home)}.{attribute} is not a function of the sans-IO engine"


def _built(server: Any) -> tuple[Any, ...]:
    """What the app lists, and the middleware on its low-level server."""
    return components(server), tuple(server._mcp_server.middleware)


#: Loaded when this plugin is imported (`-p` loads it before any plugin is configured):
#: the mutants' replacements, or with `ELICIT_SHADOW_OF=variants` the legal variants'.
_shadow = Shadow(Path(os.environ[SHADOW])) if os.environ.get(SHADOW) else None
if _shadow is not None and os.environ.get(SHADOW_OF) == "variants":
    from elicit_conformance.fixtures import variants

    _shadow.load(variants.HERE, variants.Variant.PACKAGE, [v.name for v in variants.catalogue()])
elif _shadow is not None:
    from elicit_conformance.fixtures import mutants

    _shadow.load(mutants.HERE, mutants.Mutant.PACKAGE,
                 [m.name for m in mutants.catalogue() if m.runnable and m.serve != "http"])


def pytest_configure(config: pytest.Config) -> None:
    if _shadow is not None:
        config.pluginmanager.register(_shadow, "elicit-shadow")
