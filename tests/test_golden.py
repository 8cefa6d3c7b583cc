"""`elicit_conformance.reporting.snapshot` on files written here: what comparing finds, what
updating writes and removes, and a diff that stays short for a long message."""

from __future__ import annotations

import json
from pathlib import Path

from elicit_conformance.reporting.snapshot import SHOWN, Found, Golden, diff, file_name, render

NODE = "conformance/cases/test_scenarios.py::test_scenario[TYP-9/unlisted-2026-07-28]"


def transcript(*texts: str) -> str:
    return render({"direction": "server->client", "message": {"result": {"text": t, "padding": "x" * 500}}}
                  for t in texts)


def test_file_names_follow_the_test_ids() -> None:
    assert file_name(NODE) == "test_scenarios/test_scenario[TYP-9unlisted-2026-07-28].jsonl"


def test_compare_finds_same_changed_and_missing_and_update_writes(tmp_path: Path) -> None:
    golden = Golden(tmp_path)
    assert golden.compare(NODE, transcript("a")).found == Found.MISSING
    assert not list(tmp_path.rglob("*.jsonl")), "comparing never writes"
    assert Golden(tmp_path, update=True).compare(NODE, transcript("a")).found == Found.WRITTEN
    assert golden.compare(NODE, transcript("a")).found == Found.SAME
    changed = golden.compare(NODE, transcript("b"))
    assert changed.found == Found.CHANGED and changed.file == file_name(NODE)
    assert Golden(tmp_path, update=True).compare(NODE, transcript("b")).found == Found.WRITTEN
    assert golden.compare(NODE, transcript("b")).found == Found.SAME


def test_a_long_message_is_clipped_to_where_it_changed() -> None:
    old, new = transcript("one", "two", "three"), transcript("one", "2", "three")
    lines = diff(old, new, "f.jsonl").splitlines()
    changed = [line for line in lines if line[:1] in "+-" and not line.startswith(("---", "+++"))]
    assert len(changed) == 2 and all(len(line) <= SHOWN + 3 for line in changed), changed
    assert '"text": "two"' in changed[0] and '"text": "2"' in changed[1]
    assert all(json.loads(line) for line in new.splitlines())  # one whole message a line


def test_unused_is_only_what_no_case_keeps_and_remove_tidies(tmp_path: Path) -> None:
    golden = Golden(tmp_path, update=True)
    golden.compare(NODE, transcript("a"))
    gone = "conformance/cases/test_gone.py::test_renamed[2026-07-28]"
    golden.compare(gone, transcript("a"))
    assert golden.unused([NODE]) == [file_name(gone)]
    golden.remove(golden.unused([NODE]))
    assert [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.jsonl")] == [file_name(NODE)]
    assert not (tmp_path / "test_gone").exists()
    assert Golden(tmp_path / "nowhere").unused([NODE]) == []
