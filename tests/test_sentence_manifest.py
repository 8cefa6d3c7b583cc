"""The sentence manifest (fixtures/spec/sentences.toml, conformance/dev/sentences.py): every
keyword sentence of the vendored pages is listed once and filled in, and the pages that
show it are current; a sentence added to a page is named at once."""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from elicit_conformance.dev import sentences
from elicit_conformance.fixtures import spec

MRTR = "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr"
ADDED = "Clients MUST NOT answer a question the user never saw."


def test_every_keyword_sentence_is_listed_and_accounted_for() -> None:
    problems = sentences.problems(sentences.load())
    assert not problems, ("fixtures/spec/sentences.toml does not account for every sentence: run `python -m "
                          "elicit_conformance.dev.sentences` and fill in what it adds\n" + "\n".join(problems[:40]))


def test_the_pages_that_show_the_manifest_are_current() -> None:
    items = sentences.judged(sentences.load())
    stale = [path.name for path, text in ((sentences.BEHAVIOUR, sentences.with_coverage(
        sentences.BEHAVIOUR.read_text(encoding="utf-8"), items)), (sentences.LISTING, sentences.listing(items)))
             if path.read_text(encoding="utf-8") != text]
    assert not stale, f"{stale} stale: run `python -m elicit_conformance.dev.sentences`"


def test_a_sentence_added_to_a_vendored_page_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new publication of a page (copied in, its digest updated, as SOURCE.md says) with one
    sentence more: the manifest's check names that sentence, and nothing else."""
    name, _ = spec.PAGES[MRTR]
    shutil.copytree(spec.HERE, tmp_path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    page = tmp_path / name
    page.write_text(page.read_text(encoding="utf-8") + f"\n{ADDED.replace('MUST NOT', '**MUST NOT**')}\n",
                    encoding="utf-8")
    monkeypatch.setattr(spec, "HERE", tmp_path)
    monkeypatch.setitem(spec.PAGES, MRTR, (name, hashlib.sha256(page.read_bytes()).hexdigest()))
    problems = sentences.problems(sentences.load())
    assert len(problems) == 1 and "not in the manifest" in problems[0] and ADDED in problems[0], problems


def test_an_entry_filled_in_wrong_is_named(tmp_path: Path) -> None:
    """Each way an entry can be wrong is said: a side that is none, an exclusion that is none
    or has no why, a row or a variant that does not exist, an exclusion of a sentence a row quotes."""
    entries = sentences.load()
    judged = sentences.judged(entries)
    quoted = next(item.entry for item in judged if item.rows and not item.entry.partly)
    # Entries nothing covers or excludes yet: each change below is their only fault.
    plain = [item.entry for item in judged if item.status == "open"][:5]
    broken = dict(zip(plain, ({"binds": "the moon"}, {"excluded": "boring", "why": "x"}, {"excluded": "outside", "why": ""},
                              {"partly": ("NOPE-1",)}, {"variants": ("no_such_variant",)})))
    broken[quoted] = {"excluded": "outside", "why": "x"}
    wrong = [replace(entry, **broken[entry]) if entry in broken else entry for entry in entries]
    problems = sentences.problems(wrong)
    for said in ("binds 'the moon'", "excluded 'boring'", "excluded without a why", "NOPE-1, which is no row",
                 "no_such_variant is no legal variant", "excluded, yet rows cover it"):
        assert any(said in problem for problem in problems), (said, problems)
    assert len(problems) == 6, problems
