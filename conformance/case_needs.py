"""What each case needs of a target, read from the source of the case modules: its
script (the docstring), the rows it checks, the revisions it runs on, and the tools it
calls, directly, through a module-level constant or helper, or through a catalog
scenario it runs. The contract page (`contract.py`) is rendered from this.
"""

from __future__ import annotations

import ast
import importlib
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elicit_conformance.catalog import load


@dataclass(frozen=True)
class CaseNeeds:
    """One case function: its script (the docstring), the rows it checks, the tools it calls."""

    name: str
    script: str
    rows: tuple[str, ...]
    tools: tuple[str, ...]
    revisions: tuple[str, ...]


def cases() -> list[CaseNeeds]:
    """Every case function, read from the source of the case modules.

    A case uses a tool it names in a string, directly, through a module-level
    constant, or through a catalog scenario it runs.
    """
    catalog = load()
    tools, scenarios = set(catalog.tools), catalog.scenarios
    found = []
    for path in sorted((Path(__file__).parent / "cases").glob("test_*.py")):
        module = ast.parse(path.read_text())
        # Module constants as the module computes them (some come from the catalog).
        with warnings.catch_warnings():  # outside a conformance run its marks are not registered
            warnings.simplefilter("ignore")
            loaded = importlib.import_module(f"elicit_conformance.cases.{path.stem}")
        constants = {name: _values(value) for name, value in vars(loaded).items() if name.isupper()}
        helpers = {node.name: node for node in module.body
                   if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef) and not node.name.startswith("test_")}
        for node in module.body:
            if not isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef) or not node.name.startswith("test_"):
                continue
            node = _with_helpers(node, helpers)
            rows = [s for d in node.decorator_list if _is_marker(d, "checks") for s in _ordered_strings(d)]
            revisions = tuple(s for d in node.decorator_list if _is_marker(d, "revisions") for s in _revision_names(d))
            names = _strings(node) | {s for n in ast.walk(node) if isinstance(n, ast.Name) for s in constants.get(n.id, ())}
            if node.name == "test_scenario":  # parametrized over every scenario
                called = {s.tool for s in scenarios.values()}
            else:
                called = {n for n in names if n in tools} | {scenarios[n].tool for n in _scenarios_run(node) if n in scenarios}
            if _counts_runs(node):
                called.add("body_runs")
            found.append(CaseNeeds(node.name, node.docstring or "", tuple(rows),
                                   tuple(t for t in catalog.tools if t in called), revisions))
    return found


def _with_helpers(node: ast.AST, helpers: dict[str, ast.AST]) -> ast.Module:
    """The case and every module-level helper it calls, directly or not, as one tree."""
    body, seen, todo = [node], set(), [node]
    while todo:
        for call in ast.walk(todo.pop()):
            name = call.func.id if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) else None
            if name in helpers and name not in seen:
                seen.add(name)
                body.append(helpers[name])
                todo.append(helpers[name])
    tree = ast.Module(body=body, type_ignores=[])
    tree.name, tree.decorator_list = node.name, node.decorator_list  # type: ignore[attr-defined]
    tree.docstring = ast.get_docstring(node)  # type: ignore[attr-defined]
    return tree


def _values(value: Any) -> set[str]:
    """Every string in a constant's value (keys, items, nested)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {s for k, v in value.items() for s in _values(k) | _values(v)}
    if isinstance(value, (list, tuple, set, frozenset)):
        return {s for v in value for s in _values(v)}
    return set()


def _scenarios_run(node: ast.AST) -> set[str]:
    """The catalog scenarios a case runs: `case.run("ID", ...)` or `case.scenario("ID")`."""
    return {
        call.args[0].value for call in ast.walk(node)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in ("run", "scenario")
        and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)
    }


def _counts_runs(node: ast.AST) -> bool:
    """The case asks `body_runs` (through the case's helper or by name)."""
    return any(isinstance(n, ast.Attribute) and n.attr == "body_runs" for n in ast.walk(node)) or \
        "body_runs" in _strings(node)


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


def _is_marker(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name


def _ordered_strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _revision_names(node: ast.Call) -> list[str]:
    """`@pytest.mark.revisions(MODERN)`: the revisions named, through the era constants."""
    from elicit_conformance.revisions import HANDSHAKE, MODERN

    known = {"MODERN": MODERN, "HANDSHAKE": HANDSHAKE}
    return [known.get(a.id, a.id) if isinstance(a, ast.Name) else str(getattr(a, "value", a)) for a in node.args]


def _strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
