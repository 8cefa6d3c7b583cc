"""Golden transcripts as a contributor meets them: a question reworded in the reference
alone (the catalog not told) fails naming the catalog's question, shows the change as
a short diff beside the verdicts, and `--snapshot-update` then rewrites the changed
files and deletes none. Run on a copy of the reference and of its golden files, so
the repository's own are never touched."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.suite import QUICK, ROOT, run

OLD = 'Elicit("Which cabin class would you like?", response_type={'
NEW = 'Elicit("Which cabin class do you want?", response_type={'


def test_a_question_reworded_in_the_reference_alone(tmp_path: Path) -> None:
    source = (ROOT / "reference" / "app" / "tools.py").read_text()
    assert source.count(OLD) == 1, "the reference no longer asks book_cabin_extras' cabin so: update this test"
    # A module of its own: the app's relative imports made absolute.
    (tmp_path / "reworded.py").write_text(source.replace(OLD, NEW).replace("from .", "from elicit_conformance.reference.app."))
    golden = tmp_path / "golden"
    shutil.copytree(ROOT / "snapshots", golden, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    before = {p.relative_to(golden): p.read_text() for p in golden.rglob("*.jsonl")}
    options = ("--server=reworded:app", f"--conformance-snapshots={golden}")
    # Golden files judged, not hostile input: the attacks on their quick profile.
    env = {"PYTHONPATH": str(tmp_path), **QUICK}

    first = run(tmp_path / "first", *options, env=env)
    assert first.returncode == 1, first.output[-3000:]
    failed = {c["test_id"] for c in first.judged_cases() if c["status"] != "pass"}
    assert failed and all("TYP-7" in c or "typ_7" in c for c in failed), failed
    # Every failure names the catalog's question the reworded one stands for.
    for case in (c for c in first.judged_cases() if c["status"] != "pass"):
        assert "the nearest is 'cabin': 'Which cabin class would you like?'" in case["message"], case["message"]
    # The change on the wire, apart from the verdicts: only these cases', as short diffs.
    changed = {c["test_id"] for c in first.index["cases"] if c["golden_found"] == "changed"}
    assert changed == failed, changed ^ failed
    changes = (tmp_path / "first" / "report" / "changes.md").read_text()
    for case in first.index["cases"]:
        if case["golden_found"] == "changed":
            diff = case["golden_diff"].splitlines()
            assert any("do you want" in line for line in diff if line.startswith("+")), diff
            assert len(diff) <= 20, f"a diff of {len(diff)} lines for one reworded question"
            assert case["golden_diff"].rstrip() in changes
    assert "CHANGED: test_scenario[TYP-7-2026-07-28] (verdict: fail)" in first.output

    update = run(tmp_path / "update", *options, "--snapshot-update", env=env)
    after = {p.relative_to(golden): p.read_text() for p in golden.rglob("*.jsonl")}
    assert set(after) == set(before), f"--snapshot-update deleted {sorted(set(before) - set(after))}"
    rewritten = {str(name) for name in before if before[name] != after[name]}
    assert len(rewritten) == len(changed) and all("typ_7" in n or "TYP-7" in n for n in rewritten), rewritten
    assert f"{len(changed)} written" in update.output, update.output[-2000:]
