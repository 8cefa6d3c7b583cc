"""What each case needs of a target, as the case declares it: its script (the
docstring), the rows it checks (`@pytest.mark.checks`), the revisions it runs on
(`revisions`) and the catalog tools it calls or lists (`tools`). The contract page
(`page.py`) is rendered from this; a run fails a case that calls a tool it does not
declare, so the page cannot leave one out.
"""

from __future__ import annotations

import importlib
import inspect
import warnings
from dataclasses import dataclass
from pathlib import Path

from _pytest.mark.structures import Mark, ParameterSet

from elicit_conformance.catalog import load

#: The case modules.
CASES = Path(__file__).parent.parent / "cases"


@dataclass(frozen=True)
class CaseNeeds:
    """One case function: its script (the docstring), the rows it checks, the tools it calls."""

    name: str
    script: str
    rows: tuple[str, ...]
    tools: tuple[str, ...]
    revisions: tuple[str, ...]


def cases() -> list[CaseNeeds]:
    """Every case function, in source order, as the case declares it: its docstring,
    its marks (`checks`, `revisions`, `tools`, on the function or on its parameters)."""
    catalog = load()
    found = []
    for path in sorted(CASES.glob("test_*.py")):
        with warnings.catch_warnings():  # outside a conformance run its marks are not registered
            warnings.simplefilter("ignore")
            module = importlib.import_module(f"elicit_conformance.cases.{path.stem}")
        for name, function in vars(module).items():
            if not name.startswith("test_") or not callable(function):
                continue
            # The function's own marks in source order (the decorator on top first); its
            # rows are those of its own `checks` (a parameter's rows are its scenario's).
            own = list(reversed(getattr(function, "pytestmark", [])))
            marks = own + _parameter_marks(own)
            tools = {tool for mark in marks if mark.name == "tools" for tool in mark.args}
            found.append(CaseNeeds(
                name, inspect.getdoc(function) or "",
                tuple(row for mark in own if mark.name == "checks" for row in mark.args),
                tuple(t for t in catalog.tools if t in tools),
                tuple(r for mark in marks if mark.name == "revisions" for r in mark.args),
            ))
    return found


def _parameter_marks(own: list[Mark]) -> list[Mark]:
    """The marks of each parameter a function's `parametrize` marks list."""
    params = [value for mark in own if mark.name == "parametrize" for value in mark.args[1]]
    return [mark for param in params if isinstance(param, ParameterSet) for mark in param.marks]


def tools_used() -> dict[str, set[str]]:
    """tool -> the requirement rows of the cases that call it."""
    catalog = load()
    used: dict[str, set[str]] = {tool: set() for tool in catalog.tools}
    for case in cases():
        if case.name == "test_scenario":
            for scenario in catalog.scenarios.values():
                used[scenario.tool].add(scenario.family)
            continue
        for tool in case.tools:
            used[tool].update(case.rows)
    return used
