"""The package's shape: one import package, `elicit_conformance`, made of four folders
(pyproject.toml's package-dir). Every subpackage in them either ships in the wheel
(listed in `packages`) or is declared here as the repository's own evidence."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from tests.suite import ROOT

#: Subpackages that stay in the repository: the suite's evidence, not what a target needs.
REPOSITORY_ONLY = {
    "elicit_conformance.bench",
    "elicit_conformance.dev",
    "elicit_conformance.fixtures.mutants",
    "elicit_conformance.fixtures.peers",
    "elicit_conformance.fixtures.spec",
    "elicit_conformance.fixtures.variants",
}


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def subpackages() -> set[str]:
    """Every folder with an `__init__.py` under the mapped folders, by its import name."""
    return {name for name, path in _modules().items() if path.name == "__init__.py"}


def _modules() -> dict[str, Path]:
    """Every module of the mapped folders, by its import name."""
    found = {}
    for package, folder in _setuptools()["package-dir"].items():
        for path in (ROOT / folder).rglob("*.py"):
            if "node_modules" in path.parts:
                continue
            parts = [p for p in path.relative_to(ROOT / folder).with_suffix("").parts if p != "__init__"]
            found[".".join((package, *parts))] = path
    return found


def test_every_subpackage_ships_or_is_declared_repository_only() -> None:
    listed = set(_setuptools()["packages"])
    unplaced = sorted(subpackages() - listed - REPOSITORY_ONLY)
    assert not unplaced, (
        f"{unplaced}: add each to [tool.setuptools] packages in pyproject.toml (it ships in the "
        "wheel) or to REPOSITORY_ONLY in tests/test_layout.py (it stays in the repository)")
    assert not listed & REPOSITORY_ONLY, sorted(listed & REPOSITORY_ONLY)
    stale = sorted((listed | REPOSITORY_ONLY) - subpackages())
    assert not stale, f"{stale}: listed, but no such folder holds an __init__.py"


#: The layering, lowest first: a room imports only rooms of its own layer or below, and the
#: rooms' imports form no cycle. A room is a subpackage (`connection`), or a module of the
#: top package not yet in one. The engine never imports its scenario server (`reference.app`),
#: and neither imports the suite;
#: the suite's vocabulary imports nothing above it; the repository's own tools and evidence
#: may import anything.
LAYERS = (
    {"reference"},
    {"reference.app", "reference.space", "reference.asgi", "reference.__main__", "snapshots", "fixtures"},
    {"", "version", "revisions", "limits", "status", "quoting", "exceptions", "requirements", "verdict", "catalog", "unimplemented"},
    {"connection"},
    {"reporting", "harness"},
    {"grading", "registration", "run"},
    {"contract", "compare", "matrix"},
    {"plugin"},
    {"cases", "clients"},
    {"bench", "dev", "fixtures.mutants", "fixtures.variants", "fixtures.peers", "fixtures.clients"},
)
LAYER_OF = {room: i for i, layer in enumerate(LAYERS) for room in layer}


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules `name` imports, anywhere in its source."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1] + [node.module or ""]).strip(".") \
                if node.level else node.module or ""
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for found in names:
            while found and found not in modules:
                found = found.rpartition(".")[0]
            if found and found != name:
                imported.add(found)
    return imported


def room(module: str) -> str:
    """The room a module lives in: the deepest of the layering's rooms that holds it."""
    rest = module.removeprefix("elicit_conformance").removeprefix(".")
    rooms = sorted((r for r in LAYER_OF if r and (rest == r or rest.startswith(r + "."))), key=len)
    return rooms[-1] if rooms else rest


def _room_imports() -> dict[tuple[str, str], list[str]]:
    """Each import between two rooms, with the modules that make it."""
    modules = _modules()
    edges: dict[tuple[str, str], list[str]] = {}
    for name, path in modules.items():
        for imported in _imports(name, path, modules):
            if room(name) != room(imported):
                edges.setdefault((room(name), room(imported)), []).append(f"{name} -> {imported}")
    return edges


def test_every_room_has_a_layer() -> None:
    unplaced = sorted({room(m) for m in _modules()} - set(LAYER_OF))
    assert not unplaced, f"{unplaced}: place each in LAYERS (tests/test_layout.py)"


def test_imports_keep_to_the_layering_and_rooms_form_no_cycle() -> None:
    edges = _room_imports()
    upward = {edge: made for edge, made in edges.items()
              if LAYER_OF.get(edge[1], 0) > LAYER_OF.get(edge[0], 0)}
    assert not upward, f"imports from a lower layer to a higher one: {upward}"
    graph = {a: {b for (x, b) in edges if x == a} for a, _ in edges}
    cycle = _cycle(graph)
    assert cycle is None, f"rooms that import each other: {' -> '.join(cycle or [])}: " + "; ".join(
        made for a, b in zip(cycle or [], (cycle or [])[1:]) for made in edges[(a, b)][:2])


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle in `graph` as a path that ends where it began, if there is one."""
    visiting: list[str] = []
    done: set[str] = set()

    def visit(node: str) -> list[str] | None:
        if node in visiting:
            return [*visiting[visiting.index(node):], node]
        if node in done:
            return None
        visiting.append(node)
        for after in sorted(graph.get(node, ())):
            if found := visit(after):
                return found
        visiting.pop()
        done.add(node)
        return None

    return next((found for node in sorted(graph) if (found := visit(node))), None)


def test_every_pytest_hook_is_a_few_lines_over_the_session() -> None:
    """The hooks translate; the logic lives in `elicit_conformance.run`, tested in-process."""
    long = []
    for path in sorted((ROOT / "conformance" / "plugin").glob("*.py")) + [ROOT / "conformance" / "cases" / "conftest.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and _is_hook(node):
                body = node.body[1:] if ast.get_docstring(node) else node.body
                lines = body[-1].end_lineno - body[0].lineno + 1
                if lines > 10:
                    long.append(f"{path.name}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, f"hooks over 10 lines: move their logic into the session: {long}"


def _is_hook(node: ast.FunctionDef) -> bool:
    return node.name.startswith("pytest_") or any("hookimpl" in ast.unparse(d) for d in node.decorator_list)


def test_no_module_of_the_suite_is_over_400_lines() -> None:
    """Small modules, one idea each: a module past 400 lines holds two."""
    long = {str(path.relative_to(ROOT)): lines for path in (ROOT / "conformance").rglob("*.py")
            if (lines := len(path.read_text().splitlines())) > 400}
    assert not long, f"over 400 lines: {long}: split by idea"
