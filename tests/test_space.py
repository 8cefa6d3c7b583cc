"""The declaration space (GEN-1): the generated catalog covers every allowed pair of
axis values, never an excluded one, and the committed files are what the
generator writes today."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest

from elicit_conformance.catalog import load
from elicit_conformance.dev import space

SPACE = json.loads(space.SPACE_JSON.read_text())
AXES = SPACE["axes"]
ROWS = [dict(zip(AXES, row, strict=True)) for row in SPACE["generated"]["declarations"]]


def test_every_allowed_pair_of_axis_values_is_declared_somewhere() -> None:
    missing = [
        ((a, va), (b, vb))
        for a, b in combinations(AXES, 2) for va in AXES[a] for vb in AXES[b]
        if space.allowed({a: va, b: vb}, SPACE["excluded"])
        and not any(row[a] == va and row[b] == vb for row in ROWS)
    ]
    assert not missing, missing
    # Pairwise, not the product: the point is staying inside the CI budget.
    product = 1
    for values in AXES.values():
        product *= len(values)
    assert len(ROWS) < product / 20, len(ROWS)


def test_no_declaration_is_an_excluded_combination() -> None:
    assert all(space.allowed(row, SPACE["excluded"]) for row in ROWS)
    rule = {"form": ["fixed"], "dependency": ["later"]}
    assert not space.allowed({"form": "fixed", "dependency": "later", "type": "string"}, [rule])
    assert space.allowed({"form": "fixed", "dependency": "none"}, [rule])


def test_every_declaration_is_a_question_of_one_catalog_tool_with_its_axis_values() -> None:
    catalog = load()
    declared = [
        {**q_spec["declared"], "spelling": spec["spelling"], "body": spec["body"]}
        for name, spec in SPACE["generated"]["tools"].items()
        for q_spec in spec["questions"].values() if "declared" in q_spec
    ]
    assert sorted(map(str, declared)) == sorted(map(str, ROWS))
    for name in SPACE["generated"]["tools"]:
        assert name in catalog.tools
        scenarios = [s for s in catalog.scenarios.values() if s.tool == name]
        assert len(scenarios) == 1 and scenarios[0].family in ("GEN-1", "RES-9"), scenarios


def test_the_committed_files_are_what_the_generator_writes() -> None:
    assert space.main(["--check"]) == 0, "run `python -m elicit_conformance.dev.space` and commit what it writes"


def test_a_stale_file_is_named_and_rewritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("SPACE_JSON", "REFERENCE_PROFILE", "MCP_SDK_PROFILE"):
        original: Path = getattr(space, name)
        copy = tmp_path / original.name
        copy.write_text(original.read_text())
        monkeypatch.setattr(space, name, copy)
    monkeypatch.setattr(space, "ROOT", tmp_path)
    (tmp_path / "space.py").write_text("# edited by hand\n")
    assert space.main(["--check"]) == 1
    assert "space.py is stale: run python -m elicit_conformance.dev.space" in capsys.readouterr().err
    assert space.main([]) == 0
    assert space.main(["--check"]) == 0
