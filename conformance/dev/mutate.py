"""Generated mutants of the reference engine: `python -m elicit_conformance.dev.mutate`.

The hand-written mutants in `fixtures/mutants/` were written beside the cases
they must fail, so the score they give measures the suite against itself. The
mutants here are nobody's choice: every first-order change of the kinds below
to the four engine modules (`rounds`, `answers`, `questions`, `serve`),
sampled with a fixed seed, each run against the whole suite in a process of
its own. A mutant the suite passes is a survivor: either a behaviour no case
exercises, or an equivalent mutant (the program means the same thing), which
`fixtures/mutants/equivalent.toml` lists with a one-line reason each. A mutant
whose reference no longer imports is *incompetent*: it is reported apart and
left out of the score (the suite must still fail its run, at the target check,
and the run says so).

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

Usage::

    python -m elicit_conformance.dev.mutate                 # 300 mutants, seed 2026
    python -m elicit_conformance.dev.mutate --list          # every site, no runs
    python -m elicit_conformance.dev.mutate --only rounds.Leg._settle/cmp#1
    python -m elicit_conformance.dev.mutate --fail-under 95 --file-floor 90 --write-run docs/mutation.md
"""

from __future__ import annotations

import argparse
import ast
import copy
import datetime
import hashlib
import importlib.abc
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elicit_conformance.verdict import brief

PACKAGE = "elicit_conformance.reference"
ENGINE = ("rounds", "answers", "questions", "serve")
DEFAULT_SAMPLE = 300
DEFAULT_SEED = 2026
#: Equivalent mutants live beside the hand-written ones, in the repository.
EQUIVALENTS = Path(__file__).resolve().parents[2] / "fixtures" / "mutants" / "equivalent.toml"
#: Per child suite run (the whole suite takes well under a minute in-process). A
#: mutant that hangs a request is a failed case after --conformance-timeout; this
#: stops one that never lets the server start (an endless loop at import).
CHILD_TIMEOUT = 300
#: What a child prints when the mutated reference does not import.
INCOMPETENT = "mutant-incompetent:"

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
    """Every site of the four engine modules, in module and source order."""
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


# -- equivalents ---------------------------------------------------------------


@dataclass(frozen=True)
class Equivalent:
    change: str
    reason: str


def equivalents(path: Path = EQUIVALENTS) -> dict[str, Equivalent]:
    """The mutants known to mean what the reference means, each with its reason."""
    if not path.exists():
        raise SystemExit(
            f"{path} not found: the equivalent-mutant list is part of the repository; "
            "run the command from a clone (pip install -e .)."
        )
    raw = tomllib.loads(path.read_text())
    return {site_id: Equivalent(entry["change"], entry["reason"]) for site_id, entry in raw.items()}


def stale_equivalents(known: dict[str, Equivalent], sites: Sequence[Site]) -> list[str]:
    """Entries whose site is gone or now holds different code: each needs a fresh look."""
    by_id = {site.id: site for site in sites}
    return [
        site_id for site_id, entry in known.items()
        if site_id not in by_id or entry.change != by_id[site_id].change
    ]


# -- running -------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    site: Site
    #: "killed", "survived", "equivalent" or "error" (the suite itself broke).
    status: str
    #: The case that failed, the reason an equivalent is one, or what broke.
    detail: str


class _MutantFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the mutated module in place of the engine's own, for one child process."""

    def __init__(self, fullname: str, code: Any, path: Path) -> None:
        self.fullname, self.code, self.path = fullname, code, path

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.fullname:
            return None
        return importlib.util.spec_from_loader(fullname, self, origin=str(self.path))

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: Any) -> None:
        module.__file__ = str(self.path)
        exec(self.code, module.__dict__)


def _child(site_id: str, pytest_args: list[str]) -> int:
    """In the child: import the mutant in place of the engine module, then run the suite."""
    import pytest

    fullname, code, path = mutated_code(site_id)
    if any(name.startswith(PACKAGE) for name in sys.modules):
        raise SystemExit("the reference was imported before the mutant was installed")
    sys.meta_path.insert(0, _MutantFinder(fullname, code, path))
    try:
        importlib.import_module(f"{PACKAGE}.app")
    except Exception as error:  # noqa: BLE001 - whatever stops the import makes the mutant incompetent
        # Said before the suite runs, which must still report the run as failed
        # (its target check): the parent reads both.
        print(f"{INCOMPETENT} {type(error).__name__}: {error}".splitlines()[0], file=sys.stderr, flush=True)
        for name in [name for name in sys.modules if name.startswith(PACKAGE)]:
            del sys.modules[name]
    return int(pytest.main(pytest_args))


def __getattr__(name: str) -> Any:
    # The child's --server target: the reference app, imported only once the
    # mutant is in place, and its registration adapter for the REG cases.
    if name in ("app", "registration"):
        return getattr(importlib.import_module(f"{PACKAGE}.app"), name)
    raise AttributeError(name)


#: Where every child keeps hypothesis's files: each runs in a folder of its own, and
#: hypothesis builds its Unicode tables (2 CPU s) wherever a run's folder has none yet.
#: One folder, the one a run of the suite here would use, builds them once.
STORAGE = os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY", str(Path.cwd() / ".hypothesis"))


def run_one(site: Site, timeout: float) -> Verdict:
    with tempfile.TemporaryDirectory(prefix="mutant-") as scratch:
        report = Path(scratch) / "report"
        command = [
            sys.executable, "-m", "elicit_conformance.dev.mutate", "--child", site.id, "--",
            "--pyargs", "elicit_conformance.cases", "-x", "-q", "-p", "no:cacheprovider",
            # A SHOULD the mutant breaks is a change the suite reports: it counts.
            "--server=elicit_conformance.dev.mutate:app", "--conformance-strict",
            f"--conformance-timeout={timeout}", f"--conformance-report={report}",
        ]
        try:
            done = subprocess.run(
                command, cwd=scratch, capture_output=True, text=True, timeout=CHILD_TIMEOUT,
                env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "HYPOTHESIS_STORAGE_DIRECTORY": STORAGE},
            )
        except subprocess.TimeoutExpired:
            return Verdict(site, "killed", f"the suite did not finish in {CHILD_TIMEOUT} s")
        incompetent = next((line for line in done.stderr.splitlines() if line.startswith(INCOMPETENT)), None)
        if incompetent is not None:
            # Not a behaviour the suite caught: the reference does not import. The
            # suite must still fail the run, or its target check is broken.
            why = incompetent.removeprefix(INCOMPETENT).strip()
            if done.returncode != 0:
                return Verdict(site, "incompetent", f"the app does not import ({brief(why, 120)}); the suite failed the run (exit {done.returncode})")
            return Verdict(site, "error", f"the app does not import ({brief(why, 120)}), yet the suite passed")
        if done.returncode == 0:
            return Verdict(site, "survived", "every case passed")
        if done.returncode == 1:
            return Verdict(site, "killed", _first_failure(report, done.stdout))
        if done.returncode == 4 and "ERROR:" in done.stdout + done.stderr:
            return Verdict(site, "killed", "the server does not start (the suite's target check)")
        tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
        return Verdict(site, "error", f"exit {done.returncode}: {' | '.join(tail)}")


def _first_failure(report: Path, output: str) -> str:
    index = report / "index.json"
    if index.exists():
        for case in json.loads(index.read_text())["cases"]:
            if case["status"] != "pass":
                checks = ", ".join(case.get("checks", ()))
                return f"{case['nodeid'].split('::')[-1]} ({case['status']}; {checks})"
    failed = [line for line in output.splitlines() if line.startswith(("FAILED", "ERROR"))]
    return failed[0] if failed else "a case failed"


def judge(sites: Sequence[Site], known: dict[str, Equivalent], jobs: int, timeout: float,
          progress: Callable[[Verdict], None] = lambda verdict: None) -> list[Verdict]:
    """Every site's verdict, equivalents without a run, the rest `jobs` at a time."""
    verdicts: dict[str, Verdict] = {}
    to_run = []
    for site in sites:
        if site.id in known:
            verdicts[site.id] = Verdict(site, "equivalent", known[site.id].reason)
            progress(verdicts[site.id])
        else:
            to_run.append(site)

    def one(site: Site) -> Verdict:
        verdict = run_one(site, timeout)
        progress(verdict)
        return verdict

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for verdict in pool.map(one, to_run):
            verdicts[verdict.site.id] = verdict
    return [verdicts[site.id] for site in sites]


@dataclass(frozen=True)
class Score:
    killed: int
    equivalent: int
    incompetent: int
    total: int

    @property
    def judged(self) -> int:
        """Mutants that change behaviour and import: the denominator."""
        return self.total - self.equivalent - self.incompetent

    @property
    def percent(self) -> float:
        return 100.0 * self.killed / self.judged if self.judged else 100.0

    def line(self) -> str:
        return (
            f"mutation score: {self.killed}/{self.judged} non-equivalent mutants killed "
            f"({self.percent:.1f}%); {self.equivalent} equivalent, {self.incompetent} incompetent "
            f"(the app does not import), {self.total} in all"
        )


def score(verdicts: Sequence[Verdict]) -> Score:
    count = {status: sum(v.status == status for v in verdicts) for status in ("killed", "equivalent", "incompetent")}
    return Score(count["killed"], count["equivalent"], count["incompetent"], len(verdicts))


def kind_of(site: Site) -> str:
    """The operator of a site: `cmp` of `rounds.Leg._settle/cmp#1`."""
    return site.id.rsplit("/", 1)[1].split("#", 1)[0]


def breakdown(verdicts: Sequence[Verdict], key: Callable[[Site], str]) -> list[str]:
    """A Markdown table of the score per group (operator or module)."""
    groups: dict[str, list[Verdict]] = {}
    for v in verdicts:
        groups.setdefault(key(v.site), []).append(v)
    rows = ["| | killed / judged | score | equivalent | incompetent | survived |", "|---|---|---|---|---|---|"]
    for name, group in sorted(groups.items()):
        result = score(group)
        survived = sum(v.status in ("survived", "error") for v in group)
        rows.append(f"| {name} | {result.killed}/{result.judged} | {result.percent:.0f}% | "
                    f"{result.equivalent} | {result.incompetent} | {survived} |")
    return rows


# -- reporting -----------------------------------------------------------------


def render_run(verdicts: Sequence[Verdict], chosen: str, wall: float) -> str:
    """The Markdown record of one run: when, where, the score, and every mutant."""
    result = score(verdicts)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{platform.node() or 'unknown host'}: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    lines = [
        "# Generated-mutant run",
        "",
        "Written by `python -m elicit_conformance.dev.mutate --write-run docs/mutation.md`; the",
        "method is in `conformance/dev/mutate.py`, the equivalent mutants and their reasons in",
        "`fixtures/mutants/equivalent.toml`.",
        "",
        "How to read it. *Killed*: some case failed (the first is named). *Incompetent*: the",
        "mutated reference does not import, so no server exists to judge; the suite failed",
        "that run at its target check, and it is left out of the score. *Equivalent*: no",
        "server behaviour the contract (docs/contract.md) states can differ: a guard only a",
        "buggy caller reaches, a cache or a defensive copy, the sealed state's defensive",
        "parsing, or an error's wording beyond the names the contract requires it to carry.",
        "*Survived*: a behaviour change no case catches, counted against the score.",
        "",
        f"- Date: {now}",
        f"- Machine: {machine}",
        f"- Mutants: {chosen}; wall time {wall / 60:.1f} min",
        f"- **{result.line()}**",
        "",
        "Per engine file:",
        "",
        *breakdown(verdicts, lambda site: f"{site.module}.py"),
        "",
        "Per operator (`--list` prints every site; the module's docstring says what each does):",
        "",
        *breakdown(verdicts, kind_of),
        "",
        "| mutant | line | change | verdict | what caught it, or why it is equivalent |",
        "|---|---|---|---|---|",
    ]
    for v in verdicts:
        change = f"`{v.site.before}` → `{v.site.after}`".replace("|", "\\|")
        lines.append(f"| `{v.site.id}` | {v.site.line} | {change} | {v.status} | {v.detail.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--child"]:
        separator = args.index("--")
        return _child(args[1], args[separator + 1:])
    parser = argparse.ArgumentParser(prog="python -m elicit_conformance.dev.mutate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=DEFAULT_SAMPLE, help="how many sites (default %(default)s)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the sample's seed (default %(default)s)")
    parser.add_argument("--only", nargs="+", metavar="ID", help="run these mutant IDs instead of a sample")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="child suites at a time")
    parser.add_argument("--timeout", type=float, default=10.0, help="--conformance-timeout for each child")
    parser.add_argument("--list", action="store_true", help="print every site and exit")
    parser.add_argument("--survivors", type=Path, help="write the survivors as JSON here")
    parser.add_argument("--write-run", type=Path, help="write the run as Markdown here (docs/mutation.md)")
    parser.add_argument("--fail-under", type=float, default=0.0, help="exit 1 below this score (percent)")
    parser.add_argument("--file-floor", type=float, default=0.0, help="exit 1 if any engine file scores below this (percent)")
    parser.add_argument("--equivalents", type=Path, default=EQUIVALENTS, help="the equivalent-mutant list (default %(default)s)")
    options = parser.parse_args(args)

    sites = all_sites()
    if options.list:
        for site in sites:
            print(f"{site.id}\t{site.line}\t{site.change}")
        return 0
    known = equivalents(options.equivalents)
    stale = stale_equivalents(known, sites)
    if stale:
        print(f"equivalent.toml entries that no longer match their site (re-judge them): {', '.join(stale)}", file=sys.stderr)
        return 2
    if options.only:
        by_id = {site.id: site for site in sites}
        missing = [site_id for site_id in options.only if site_id not in by_id]
        if missing:
            parser.error(f"no such mutant: {', '.join(missing)} (`--list` shows them all)")
        chosen = [by_id[site_id] for site_id in options.only]
    else:
        chosen = sample(sites, options.sample, options.seed)

    started = time.monotonic()
    done = 0

    def progress(verdict: Verdict) -> None:
        nonlocal done
        done += 1
        print(f"[{done}/{len(chosen)}] {verdict.status:<10} {verdict.site.id}  ({verdict.detail})", flush=True)

    verdicts = judge(chosen, known, options.jobs, options.timeout, progress)
    wall = time.monotonic() - started
    result = score(verdicts)
    survivors = [v for v in verdicts if v.status in ("survived", "error")]
    for v in survivors:
        print(f"{v.status}: {v.site.id} (line {v.site.line}): {v.site.change}")
    print(result.line())
    if options.survivors:
        options.survivors.write_text(json.dumps(
            [{"id": v.site.id, "line": v.site.line, "before": v.site.before, "after": v.site.after, "status": v.status}
             for v in survivors], indent=2) + "\n")
    if options.write_run:
        how = (f"{len(chosen)} named with --only" if options.only
               else f"a sample of {len(chosen)} of {len(sites)} sites, seed {options.seed}")
        options.write_run.write_text(render_run(verdicts, how, wall))
    low_files = [
        module for module in ENGINE
        if score([v for v in verdicts if v.site.module == module]).percent < options.file_floor
    ]
    if low_files:
        print(f"below the per-file floor of {options.file_floor:g}%: {', '.join(low_files)}")
    return 1 if result.percent < options.fail_under or low_files else 0


if __name__ == "__main__":
    raise SystemExit(main())
