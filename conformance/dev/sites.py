"""The mutation sites of the reference engine: every first-order change of the kinds
below to its engine modules, named so an ID survives edits elsewhere, and a fixed-seed
sample of them. `mutate` runs them.

The kinds (`ast`, so no formatting or comments are involved). The first five
were this tool's own; the rest are the classes an independent generator used
to find what they missed:

- `cmp`: one comparison flipped (`==`/`!=`, `<`/`>=`, `is`/`is not`, `in`/`not in`);
- `bool`: one `and` made `or`, or the reverse;
- `delete`: one statement inside a function replaced by `pass` (a `raise` too);
- `return`: one `return <value>` made `return None`;
- `drop`: one element dropped from a list, tuple, set or dict literal;
- `arg`: one positional argument or keyword dropped from a call;
- `unwrap`: a call replaced by its first argument;
- `swap`: two neighbouring positional arguments swapped;
- `true`, `false`: the condition of an `if`, `while`, conditional expression or
  comprehension filter forced;
- `operand`: one operand of an `and`/`or` dropped;
- `not`: a `not` removed; `unary`: a unary minus removed;
- `string`: a non-empty string emptied (docstrings left alone);
- `constant`: a number made one more, `True` and `False` swapped;
- `await`: an `await` removed;
- `except`: an `except` body replaced by a bare `raise`;
- `decorator`: one decorator dropped;
- `anyall`: `any` and `all` swapped;
- `slice`: one bound of a slice dropped;
- `arith`: `+`/`-`, `*`/`/`, `//`/`/`, `%`/`*`, `|`/`&` swapped (augmented too);
- `boundary`: `<`/`<=`, `>`/`>=` swapped;
- `loop`: `break` and `continue` swapped.

A mutant's ID names where it is, not the line: `rounds.Leg._settle/cmp#1` is
the second `cmp` site in `Leg._settle`, so IDs survive edits elsewhere.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import importlib.util
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PACKAGE = "elicit_conformance.reference"
#: Every engine file: the marker, the questions and answers, the rounds, the server,
#: the once-only last round, and the tasks extension's additions (the app's scenario tools are not the engine).
ENGINE = ("markers", "questions", "answers", "rounds", "serve", "once", "tasks")

_FLIP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
    ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
}
#: Statements whose removal is not a behaviour change worth a run: definitions
#: and imports fail at import (trivially caught), `pass` is already nothing.
_KEPT_STATEMENTS = (
    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom,
    ast.Pass, ast.Global, ast.Nonlocal, ast.Return,
)


# -- sites ---------------------------------------------------------------------


@dataclass(frozen=True)
class Site:
    """One first-order mutant: where, what kind, and the code before and after."""

    id: str
    module: str
    line: int
    before: str
    after: str

    @property
    def change(self) -> str:
        """`before -> after`, as `--list` prints it and equivalent.toml records it."""
        return f"{self.before} -> {self.after}"


@dataclass
class _Candidate:
    qualname: str
    kind: str
    node: ast.AST
    #: Where the node hangs: its parent, the field, and the index in a list field.
    parent: ast.AST
    field: str
    index: int | None
    make: Callable[[Any], ast.AST]

    def replacement(self) -> ast.AST | None:
        """The node put in its place; None when it is taken out (a dropped decorator)."""
        new = self.make(copy.deepcopy(self.node))
        return None if new is None else ast.copy_location(new, self.node)

    def apply(self) -> None:
        new = self.replacement()
        if self.index is None:
            setattr(self.parent, self.field, new)
        elif new is None:
            del getattr(self.parent, self.field)[self.index]
        else:
            getattr(self.parent, self.field)[self.index] = new


def _swap_comparison(at: int, table: dict[type[ast.cmpop], type[ast.cmpop]]) -> Callable[[ast.Compare], ast.AST]:
    """The `at`-th operator of a comparison replaced by its partner in `table`."""
    def make(node: ast.Compare) -> ast.AST:
        node.ops[at] = table[type(node.ops[at])]()
        return node

    return make


def _swap_bool(node: ast.BoolOp) -> ast.AST:
    node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    return node


def _drop(at: int) -> Callable[[Any], ast.AST]:
    def make(node: Any) -> ast.AST:
        if isinstance(node, ast.Dict):
            del node.keys[at], node.values[at]
        else:
            del node.elts[at]
        return node

    return make


_BOUNDARY: dict[type[ast.cmpop], type[ast.cmpop]] = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
_ARITH: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div,
    ast.Mod: ast.Mult, ast.BitOr: ast.BitAnd, ast.BitAnd: ast.BitOr,
}


def _removed(node: Any) -> None:
    """`make` of a site whose node is taken out of its list (a decorator)."""
    return None


def _swap_arith(node: ast.BinOp | ast.AugAssign) -> ast.AST:
    node.op = _ARITH[type(node.op)]()
    return node


def _drop_operand(at: int) -> Callable[[ast.BoolOp], ast.AST]:
    def make(node: ast.BoolOp) -> ast.AST:
        del node.values[at]
        return node.values[0] if len(node.values) == 1 else node

    return make


def _drop_argument(at: int) -> Callable[[ast.Call], ast.AST]:
    def make(node: ast.Call) -> ast.AST:
        if at < len(node.args):
            del node.args[at]
        else:
            del node.keywords[at - len(node.args)]
        return node

    return make


def _swap_arguments(at: int) -> Callable[[ast.Call], ast.AST]:
    def make(node: ast.Call) -> ast.AST:
        node.args[at], node.args[at + 1] = node.args[at + 1], node.args[at]
        return node

    return make


def _swap_any_all(node: ast.Call) -> ast.AST:
    assert isinstance(node.func, ast.Name)
    node.func.id = "all" if node.func.id == "any" else "any"
    return node


def _reraise(node: ast.ExceptHandler) -> ast.AST:
    node.body = [ast.Raise()]
    return node


def _drop_bound(bound: str) -> Callable[[ast.Subscript], ast.AST]:
    def make(node: ast.Subscript) -> ast.AST:
        assert isinstance(node.slice, ast.Slice)
        setattr(node.slice, bound, None)
        return node

    return make


def _candidates(tree: ast.Module) -> Iterator[_Candidate]:
    """Every mutation site of `tree`, in a fixed order (source order)."""

    def walk(node: ast.AST, scope: tuple[str, ...], in_function: bool) -> Iterator[_Candidate]:
        qualname = ".".join(scope) or "<module>"
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scope, in_function = (*scope, node.name), isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            qualname = ".".join(scope)
        for field_name, value in ast.iter_fields(node):
            # Annotations are not run (the engine modules use deferred
            # annotations), and a decorator or base is wiring, not behaviour.
            if field_name in ("annotation", "returns", "decorator_list", "bases", "type_comment"):
                continue
            children = value if isinstance(value, list) else [value]
            for index, child in enumerate(children):
                if not isinstance(child, ast.AST):
                    continue
                at = index if isinstance(value, list) else None
                yield from _sites_of(child, qualname, node, field_name, at, in_function)
                yield from walk(child, scope, in_function)

    yield from walk(tree, (), False)


def _sites_of(
    node: ast.AST, qualname: str, parent: ast.AST, field_name: str, at: int | None, in_function: bool,
) -> Iterator[_Candidate]:
    def site(kind: str, make: Callable[[Any], ast.AST]) -> _Candidate:
        return _Candidate(qualname, kind, node, parent, field_name, at, make)

    if isinstance(node, ast.Compare):
        for position, op in enumerate(node.ops):
            if type(op) in _FLIP:
                yield site("cmp", _swap_comparison(position, _FLIP))
    elif isinstance(node, ast.BoolOp):
        yield site("bool", _swap_bool)
    elif isinstance(node, ast.Return) and node.value is not None and not (
        isinstance(node.value, ast.Constant) and node.value.value is None
    ):
        yield site("return", lambda n: ast.Return(value=ast.Constant(value=None)))
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)) and isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
        if not _is_dunder_all(parent):
            for position in range(len(node.elts)):
                yield site("drop", _drop(position))
    elif isinstance(node, ast.Dict):
        for position, key in enumerate(node.keys):
            if key is not None:
                yield site("drop", _drop(position))
    if (
        in_function and isinstance(node, ast.stmt) and not isinstance(node, _KEPT_STATEMENTS)
        and not _is_docstring(node) and not (isinstance(node, ast.AnnAssign) and node.value is None)
    ):
        yield site("delete", lambda n: ast.Pass())
    yield from _more_sites_of(node, qualname, parent, field_name, at, site)


def _more_sites_of(
    node: ast.AST, qualname: str, parent: ast.AST, field_name: str, at: int | None,
    site: Callable[[str, Callable[[Any], ast.AST]], _Candidate],
) -> Iterator[_Candidate]:
    """The kinds an independent generator found the first five blind to (issue 23).

    Kept apart from the first five so that their site IDs, which
    equivalent.toml records, do not move."""
    if isinstance(node, ast.Call):
        yield from _call_sites(node, site)
    elif isinstance(node, ast.BoolOp):
        for position in range(len(node.values)):
            yield site("operand", _drop_operand(position))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        yield site("not" if isinstance(node.op, ast.Not) else "unary", lambda n: n.operand)
    elif isinstance(node, ast.Await):
        yield site("await", lambda n: n.value)
    elif isinstance(node, ast.ExceptHandler):
        yield site("except", _reraise)
    elif isinstance(node, ast.Compare):
        for position, op in enumerate(node.ops):
            if type(op) in _BOUNDARY:
                yield site("boundary", _swap_comparison(position, _BOUNDARY))
    elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in _ARITH:
        yield site("arith", _swap_arith)
    elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        for bound in ("lower", "upper", "step"):
            if getattr(node.slice, bound) is not None:
                yield site("slice", _drop_bound(bound))
    elif isinstance(node, (ast.Break, ast.Continue)):
        yield site("loop", lambda n: ast.Continue() if isinstance(n, ast.Break) else ast.Break())
    elif isinstance(node, ast.Constant):
        yield from _constant_sites(node, parent, site)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        own = node.name if qualname == "<module>" else f"{qualname}.{node.name}"
        for position, decorator in enumerate(node.decorator_list):
            yield _Candidate(own, "decorator", decorator, node, "decorator_list", position, _removed)
    forced_test = (isinstance(parent, (ast.If, ast.While, ast.IfExp)) and field_name == "test") or (
        isinstance(parent, ast.comprehension) and field_name == "ifs"
    )
    if forced_test and isinstance(node, ast.expr):
        yield site("true", lambda n: ast.Constant(value=True))
        yield site("false", lambda n: ast.Constant(value=False))


def _call_sites(node: ast.Call, site: Callable[[str, Callable[[Any], ast.AST]], _Candidate]) -> Iterator[_Candidate]:
    for position in range(len(node.args) + len(node.keywords)):
        yield site("arg", _drop_argument(position))
    if node.args and not isinstance(node.args[0], ast.Starred):
        yield site("unwrap", lambda n: n.args[0])
    for position in range(len(node.args) - 1):
        if not isinstance(node.args[position], ast.Starred) and not isinstance(node.args[position + 1], ast.Starred):
            yield site("swap", _swap_arguments(position))
    if isinstance(node.func, ast.Name) and node.func.id in ("any", "all"):
        yield site("anyall", _swap_any_all)


def _constant_sites(
    node: ast.Constant, parent: ast.AST, site: Callable[[str, Callable[[Any], ast.AST]], _Candidate],
) -> Iterator[_Candidate]:
    value = node.value
    if isinstance(value, bool):
        yield site("constant", lambda n: ast.Constant(value=not n.value))
    elif isinstance(value, (int, float)):
        yield site("constant", lambda n: ast.Constant(value=n.value + 1))
    # A bare string statement is a docstring (or nothing); an f-string's literal
    # part is emptied as a string too.
    elif isinstance(value, str) and value and not isinstance(parent, ast.Expr):
        yield site("string", lambda n: ast.Constant(value=""))


def _is_docstring(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _is_dunder_all(parent: ast.AST) -> bool:
    return isinstance(parent, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "__all__" for t in parent.targets
    )


def _engine_dir() -> Path:
    spec = importlib.util.find_spec(PACKAGE)
    assert spec is not None and spec.submodule_search_locations, PACKAGE
    return Path(next(iter(spec.submodule_search_locations)))


def _numbered(module: str, tree: ast.Module) -> Iterator[tuple[str, _Candidate]]:
    seen: dict[tuple[str, str], int] = {}
    for candidate in _candidates(tree):
        key = (candidate.qualname, candidate.kind)
        number = seen.get(key, 0)
        seen[key] = number + 1
        yield f"{module}.{candidate.qualname}/{candidate.kind}#{number}", candidate


def _short(node: ast.AST | None) -> str:
    if node is None:
        return "(removed)"
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= 100 else text[:97] + "..."


def all_sites() -> list[Site]:
    """Every site of the engine modules, in module and source order."""
    sites = []
    for module in ENGINE:
        tree = ast.parse((_engine_dir() / f"{module}.py").read_text())
        for site_id, candidate in _numbered(module, tree):
            before = candidate.node
            sites.append(Site(site_id, module, getattr(before, "lineno", 0), _short(before), _short(candidate.replacement())))
    return sites


def sample(sites: Sequence[Site], size: int, seed: int) -> list[Site]:
    """A fixed-seed sample, in site order; the whole list when it is smaller.

    A site is drawn by a hash of the seed and its ID, not by its index, so an
    edit elsewhere in the engine leaves every other site's draw as it was and
    two runs a change apart judge mostly the same mutants."""
    if size >= len(sites):
        return list(sites)

    def draw(site: Site) -> bytes:
        return hashlib.sha256(f"{seed}:{site.id}".encode()).digest()

    chosen = {site.id for site in sorted(sites, key=draw)[:size]}
    return [site for site in sites if site.id in chosen]


def mutated_code(site_id: str) -> tuple[str, Any, Path]:
    """The module the mutant replaces, its mutated code object, and its file."""
    module = site_id.split(".", 1)[0]
    path = _engine_dir() / f"{module}.py"
    tree = ast.parse(path.read_text())
    for candidate_id, candidate in _numbered(module, tree):
        if candidate_id == site_id:
            candidate.apply()
            return f"{PACKAGE}.{module}", compile(ast.fix_missing_locations(tree), str(path), "exec"), path
    raise SystemExit(f"no mutation site {site_id!r}: `--list` shows them all.")
