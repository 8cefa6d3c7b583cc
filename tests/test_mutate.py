"""The generated-mutant command: its sites are stable, its equivalent list is
current, and a small fixed sample runs end to end (the full run is
docs/mutation.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from elicit_conformance.dev import mutate, sites
from tests.suite import QUICK, ROOT, child_environment

#: A small fixed sample CI runs on every change: each must be killed.
SAMPLE = ("--sample", "4", "--seed", "3")
#: Equivalent by its entry in fixtures/mutants/equivalent.toml: the suite passes it.
EQUIVALENT = "questions._dependency_order.visit/drop#1"
#: Equivalent by its entry (wording only), but the wording is on the wire: every case
#: passes and two transcripts differ from their golden files.
WORDING = "rounds.Leg._record/string#2"
#: Leaves a name undefined, so the reference does not import at all.
INCOMPETENT = "answers._build_shape/delete#3"


def _mutate(*args: str) -> subprocess.CompletedProcess[str]:
    # The generated attacks on their quick profile: these runs check the command's workings,
    # not the score, which docs/mutation.md measures on the default profile.
    return subprocess.run(
        [sys.executable, "-m", "elicit_conformance.dev.mutate", "--jobs", "2", *args],
        cwd=ROOT, env=child_environment(QUICK), capture_output=True, text=True, timeout=900,
    )


def test_sites_have_unique_ids_and_every_equivalent_is_current() -> None:
    every = sites.all_sites()
    assert len({site.id for site in every}) == len(every) >= 150
    assert {site.module for site in every} == set(sites.ENGINE)
    known = mutate.equivalents()
    assert known and not mutate.stale_equivalents(known, every)
    assert all(entry.reason.strip() for entry in known.values())


def test_a_fixed_sample_is_killed() -> None:
    done = _mutate(*SAMPLE, "--fail-under", "100")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "killed" in done.stdout and "mutation score: " in done.stdout, done.stdout


def test_a_mutant_the_suite_passes_is_reported_as_a_survivor(tmp_path: Path) -> None:
    # Without its equivalence entry, a mutant no case can catch must count against the score.
    empty = tmp_path / "none.toml"
    empty.write_text("")
    survivors = tmp_path / "survivors.json"
    done = _mutate("--only", EQUIVALENT, "--equivalents", str(empty), "--fail-under", "100",
                   "--survivors", str(survivors))
    assert done.returncode == 1, done.stdout[-3000:]
    assert f"survived: {EQUIVALENT}" in done.stdout and "0/1 non-equivalent" in done.stdout
    assert EQUIVALENT in survivors.read_text()


def test_a_mutant_only_a_golden_transcript_catches_counts_against_the_score(tmp_path: Path) -> None:
    # The score speaks for other servers, for which a golden difference is no verdict.
    empty = tmp_path / "none.toml"
    empty.write_text("")
    record = tmp_path / "run.md"
    done = _mutate("--only", WORDING, "--equivalents", str(empty), "--fail-under", "100", "--write-run", str(record))
    assert done.returncode == 1, done.stdout[-3000:]
    assert f"golden only: {WORDING}" in done.stdout, done.stdout
    assert "0/1 non-equivalent mutants killed by a verdict" in done.stdout
    assert "1 of the rest only by a golden transcript" in done.stdout
    listed = record.read_text().split("Killed only by a golden transcript", 1)[1]
    assert f"`{WORDING}`" in listed.split("| mutant |", 1)[0], listed[:1000]


def test_a_mutant_whose_reference_does_not_import_is_incompetent_and_failed_by_the_target_check() -> None:
    done = _mutate("--only", INCOMPETENT, "--fail-under", "100")
    # Out of the score (0 judged is 100%), reported apart, and the suite's own run failed.
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    line = next(line for line in done.stdout.splitlines() if INCOMPETENT in line)
    assert "incompetent" in line and "does not import" in line and "the suite failed the run (exit 4)" in line, line
    assert "0/0 non-equivalent" in done.stdout and "1 incompetent" in done.stdout, done.stdout
