"""The declaration space (GEN-1): its axes, drawn pairwise into catalog tools.

Hand-picked catalog tools cover the declarations someone thought of; a
parameter can be declared along six independent axes (`fixtures/space.json`),
and a wrong server hides in the combinations nobody picked. This module draws a
pairwise covering set from the axes (every valid pair of values appears in at
least one declaration: the full product is far past the CI budget, and
interactions of two axes are where the survivors of the mutation runs lived),
packs the declarations into a few tools, and writes them as ordinary catalog
tools and scenarios, plus their spelling in the reference and in the MCP SDK
peer (`spelling.py`):

    python -m elicit_conformance.dev.space           # rewrite the three files
    python -m elicit_conformance.dev.space --check   # exit 1 if one is stale

Packing: every declaration that can succeed joins the tool of its registration
spelling (one scenario answers all of them and checks the rounds, every
requested schema and the typed result); each declaration whose resolver asks
for a type the parameter cannot hold fails its call, so it gets a tool of its
own (a RES-9 scenario).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

#: Where the files this writes live in a source checkout.
ROOT = Path(__file__).resolve().parents[2]
SPACE_JSON = ROOT / "fixtures" / "space.json"
REFERENCE_PROFILE = ROOT / "reference" / "space.py"
MCP_SDK_PROFILE = ROOT / "fixtures" / "peers" / "mcp_sdk_space.py"

Pair = tuple[tuple[str, str], tuple[str, str]]


@dataclass(frozen=True)
class Declaration:
    """One generated parameter: a value on every axis."""

    type: str
    metadata: str
    form: str
    dependency: str
    spelling: str
    body: str

    @property
    def fails(self) -> bool:
        return self.form == "resolver-other-type"

    @property
    def asked(self) -> bool:
        return self.form != "resolver-value"

    @property
    def waits_for(self) -> str | None:
        """The anchor parameter its resolver takes: `origin` (declared before every
        generated parameter) or `final` (declared after them)."""
        return {"earlier": "origin", "later": "final"}.get(self.dependency)

    def message(self, param: str) -> str:
        """The question's message template: it says what was declared, and quotes
        the answer the resolver waited for."""
        waits = {"origin": " after {origin}", "final": " before {final}"}.get(self.waits_for or "", "")
        return f"{param}: {self.type}, {self.metadata}, {self.form}{waits}?"


def allowed(values: Mapping[str, str], excluded: Iterable[Mapping[str, Any]]) -> bool:
    """Whether no exclusion rule matches `values` (a rule matches when every axis it
    names is set to one of its listed values)."""
    return not any(
        all(axis in values and values[axis] in rule[axis] for axis in rule if axis != "why") for rule in excluded
    )


def pairwise(axes: Mapping[str, list[str]], excluded: list[Mapping[str, Any]]) -> list[Declaration]:
    """A covering set: every allowed pair of values of two axes is in some row.

    Greedy and deterministic: start each row from the first uncovered pair (axis
    and value order as listed), then give every other axis the value that covers
    most uncovered pairs, the earlier-listed value on a tie.
    """
    names = list(axes)
    rank = {(axis, value): (i, j) for i, axis in enumerate(names) for j, value in enumerate(axes[axis])}
    uncovered: set[Pair] = {
        ((a, va), (b, vb))
        for a, b in combinations(names, 2)
        for va in axes[a]
        for vb in axes[b]
        if allowed({a: va, b: vb}, excluded)
    }
    rows: list[Declaration] = []
    while uncovered:
        first = min(uncovered, key=lambda pair: (rank[pair[0]], rank[pair[1]]))
        row = dict(first)
        for axis in names:
            if axis in row:
                continue
            options = [v for v in axes[axis] if allowed({**row, axis: v}, excluded)]
            row[axis] = max(options, key=lambda v: (len(_pairs({**row, axis: v}) & uncovered), -rank[(axis, v)][1]))
        rows.append(Declaration(**row))
        uncovered -= _pairs(row)
    return rows


def _pairs(row: Mapping[str, str]) -> set[Pair]:
    # Both orientations: a row is filled in no fixed axis order, the uncovered set is in axis order.
    pairs = set(combinations(row.items(), 2))
    return pairs | {(y, x) for x, y in pairs}


# -- the catalog entries ----------------------------------------------------------


@dataclass(frozen=True)
class Generated:
    """A generated tool: its declarations in signature order, and its name."""

    name: str
    spelling: str
    declarations: tuple[tuple[str, Declaration], ...]
    #: "sync" or "async": the body's kind, which every declaration of the tool shares.
    body: str = "sync"

    @property
    def fails(self) -> bool:
        return any(d.fails for _, d in self.declarations)

    @property
    def description(self) -> str:
        return (f"Generated from the declaration space: {len(self.declarations)} declared parameter(s), "
                f"registered by {self.spelling}, with {'an async' if self.body == 'async' else 'a sync'} body (GEN-1).")


def pack(rows: list[Declaration], spellings: list[str], bodies: list[str]) -> list[Generated]:
    """The tools: one per spelling and body kind for the declarations that succeed
    (`space_<spelling>`, `space_<spelling>_async`), one per declaration that fails its
    call. Parameters are named `<type>_<n>`, `n` counting from 1 within the tool."""
    tools = []
    for spelling in spellings:
        for body in bodies:
            good = [d for d in rows if d.spelling == spelling and d.body == body and not d.fails]
            if good:
                suffix = "" if body == "sync" else f"_{body}"
                tools.append(Generated(f"space_{_snake(spelling)}{suffix}", spelling, _named(good), body))
    for n, row in enumerate((d for d in rows if d.fails), 1):
        tools.append(Generated(f"space_mismatch_{n}", row.spelling, _named([row]), row.body))
    return tools


def _named(rows: list[Declaration]) -> tuple[tuple[str, Declaration], ...]:
    return tuple((f"{row.type}_{n}", row) for n, row in enumerate(rows, 1))


def _snake(text: str) -> str:
    return text.replace("-", "_")


def _question(param: str, row: Declaration, space: Mapping[str, Any]) -> dict[str, Any]:
    kind = space["types"][row.type]
    declared = {"declared": {"type": row.type, "metadata": row.metadata, "form": row.form, "dependency": row.dependency}}
    if not row.asked:
        return {"message": "(none)", "type": kind["question"]["type"], "resolved": kind["resolved"], **declared}
    entry: dict[str, Any] = {"message": row.message(param)}
    if row.fails:
        entry["type"] = kind["other"]["type"]
    else:
        entry.update(kind["question"])
        if row.metadata == "field-constraints":
            entry.update(space["metadata"]["field-constraints"][row.type])
        if row.metadata == "marker-labels" and entry["type"] != "object":
            entry.update(space["metadata"]["marker-labels"])
    if row.waits_for:
        entry["needs"] = [row.waits_for]
    return {**entry, **declared}


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def catalog_entries(tools: list[Generated], space: Mapping[str, Any]) -> dict[str, Any]:
    """The generated tools and scenarios, in the catalog's own format."""
    anchors = space["anchors"]
    entries: dict[str, Any] = {"tools": {}, "scenarios": {}}
    for tool in tools:
        questions = {"origin": {"message": anchors["origin"]["message"], "type": "string"}}
        questions.update({param: _question(param, row, space) for param, row in tool.declarations})
        questions["final"] = {"message": anchors["final"]["message"], "type": "string"}
        resolved = [(p, space["types"][r.type]["resolved"]) for p, r in tool.declarations if not r.asked]
        if tool.fails:
            param, row = tool.declarations[0]
            returns = (f"fails naming {param}: its resolver (with no declared return type) asks for "
                       f"{_kind_word(space['types'][row.type]['other']['type'])}, which the {row.type} parameter "
                       "cannot hold")
        else:
            returns = ("its parameters as name=JSON in signature order, joined by '; ', each value as compact "
                       "JSON (no spaces; an enum as its value, a model as an object with its fields in order)") + "".join(
                f"; {p} is resolved without asking: {_json(v)}" for p, v in resolved)
        entries["tools"][tool.name] = {
            "arguments": {"ref": "string"},
            "spelling": tool.spelling,
            "body": tool.body,
            "returns": returns,
            "questions": questions,
        }
        entries["scenarios"].update(_scenario(tool, space))
    return entries


def _kind_word(json_type: str) -> str:
    return {"integer": "an integer"}.get(json_type, f"a {json_type}")


def _scenario(tool: Generated, space: Mapping[str, Any]) -> dict[str, Any]:
    anchors = space["anchors"]
    answers: dict[str, Any] = {"origin": {"accept": anchors["origin"]["answer"]}}
    first = ["origin"]
    later: list[str] = []
    values: dict[str, Any] = {"origin": anchors["origin"]["answer"]}
    for param, row in tool.declarations:
        kind = space["types"][row.type]
        if not row.asked:
            values[param] = kind["resolved"]
            continue
        answer = kind["other"]["answer"] if row.fails else kind["answer"]
        answers[param] = {"content": answer} if kind["question"]["type"] == "object" and not row.fails else {"accept": answer}
        values[param] = answer
        (first if row.dependency == "none" else later).append(param)
    first.append("final")
    answers["final"] = {"accept": anchors["final"]["answer"]}
    values["final"] = anchors["final"]["answer"]
    rounds = [first, later] if later else [first]
    ref = f"{{run}}-{tool.name.replace('_', '-')}"
    if tool.fails:
        param = tool.declarations[0][0]
        expect = {"rounds": rounds, "error": [], "error_should": [param], "body_runs": 0}
        return {f"RES-9/{tool.name}": {"tool": tool.name, "arguments": {"ref": ref}, "answers": answers, "expect": expect}}
    result = "; ".join(f"{p}={_json(v)}" for p, v in values.items())
    expect = {"rounds": rounds, "result": result, "body_runs": 1, "schemas": True}
    return {f"GEN-1/{tool.name}": {"tool": tool.name, "arguments": {"ref": ref}, "answers": answers, "expect": expect}}


# -- writing and checking ------------------------------------------------------------


def generate(space: Mapping[str, Any]) -> dict[Path, str]:
    """Every file the space writes, by path: the space file with its `generated`
    section, and the tools in the reference's and the MCP SDK peer's spelling."""
    from .spelling import mcp_sdk_profile, reference_profile

    axes = space["axes"]
    rows = pairwise(axes, space["excluded"])
    tools = pack(rows, axes["spelling"], axes["body"])
    written = {k: v for k, v in space.items() if k != "generated"}
    written["generated"] = {
        "declarations": [[d.type, d.metadata, d.form, d.dependency, d.spelling, d.body] for d in rows],
        **catalog_entries(tools, space),
    }
    return {
        SPACE_JSON: json.dumps(written, indent=2) + "\n",
        REFERENCE_PROFILE: reference_profile(tools, space),
        MCP_SDK_PROFILE: mcp_sdk_profile(tools, space),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m elicit_conformance.dev.space", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file it writes is stale")
    args = parser.parse_args(argv)
    if not SPACE_JSON.exists():
        parser.error(f"{SPACE_JSON} not found: the space is generated in a source checkout of elicit-conformance")
    files = generate(json.loads(SPACE_JSON.read_text()))
    stale = [path for path, text in files.items() if not path.exists() or path.read_text() != text]
    if args.check:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is stale: run python -m elicit_conformance.dev.space", file=sys.stderr)
        return 1 if stale else 0
    for path, text in files.items():
        path.write_text(text)
    generated = json.loads(files[SPACE_JSON])["generated"]
    print(f"{len(generated['declarations'])} declarations in {len(generated['tools'])} tools: wrote "
          + ", ".join(str(p.relative_to(ROOT)) for p in files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
