"""Every golden transcript belongs to a case that exists.

The syrupy extension keeps one file per case under `snapshots/`; a case that is
renamed or removed would leave its old file behind, unread, and a reviewer
would read a transcript nothing checks. Collection names the cases.
"""

from __future__ import annotations

import subprocess
import sys

from tests.suite import ROOT


def test_no_golden_transcript_is_orphaned() -> None:
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "conformance/cases", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    expected = set()
    for nodeid in collected:
        if "::" in nodeid:
            path, name = nodeid.split("::", 1)
            # syrupy drops "/" from a test name when it makes the file name.
            expected.add(f"{path.rsplit('/', 1)[-1].removesuffix('.py')}/{name.replace('/', '')}.json")
    files = {p.relative_to(ROOT / "snapshots").as_posix() for p in (ROOT / "snapshots").rglob("*.json")}
    assert files, "no golden transcripts found"
    assert not files - expected, f"golden transcripts with no case: {sorted(files - expected)}"
