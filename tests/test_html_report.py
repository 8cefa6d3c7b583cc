"""The HTML report in a real browser: a failing mutant's run, with the reference's
golden transcripts, opened in headless Chromium (tests/browser.py). The page loads
from its file alone without a console error; its rendered text holds the failing
row's sentence, that case's transcript as a conversation and its golden diff; the
checkbox hides what passed; a screenshot goes to the report directory. (The client
cases' page, a failing mutant client's, is opened from the built wheel: tests/test_wheel.py.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.browser import chromium
from tests.suite import ROOT, SuiteRun, run

pytestmark = pytest.mark.slow

MUTANT = "elicit_conformance.fixtures.mutants.one_per_round:app"


@pytest.fixture(scope="module")
def failing(tmp_path_factory: pytest.TempPathFactory) -> SuiteRun:
    return run(tmp_path_factory.mktemp("html") / "run", f"--server={MUTANT}", "-k", "test_scenario and 2026-07-28",
               f"--conformance-snapshots={ROOT / 'snapshots'}")


def test_the_report_page_in_headless_chromium(failing: SuiteRun, tmp_path: Path) -> None:
    report = failing.directory / "report"
    page_file = report / "index.html"
    html = page_file.read_text()
    # Self-contained: nothing fetched at view time (links to the specification are only links).
    assert not re.search(r"<(link|img|iframe)\b|<script[^>]+src=", html), "the page loads something"
    case = next(c for c in failing.index["cases"] if c["test_id"] == "test_scenario[BAT-3-2026-07-28]")
    assert case["status"] == "fail" and case["golden_found"] == "changed", case["status"]

    with chromium(tmp_path) as page:
        page.open(page_file.as_uri())
        text = page.text()
        page.screenshot(report / "screenshot.png")  # the top: the verdict table
        assert page.errors == [], page.errors
        assert case["message"] in text
        # Its transcript, drawn: the call, then each round the mutant asked alone.
        section = page.evaluate(f"document.getElementById({json.dumps(case['test_id'])}).innerText")
        assert "calls book_trip with" in section
        assert "asks 1 question(s): " in section and "Where would you like to fly?" in section
        assert "answers " in section and "result: " in section
        assert "Rounds: the catalog's [destination, date, cabin]; the server's [destination] then [date] then [cabin]" \
            in section
        assert "Its transcript against its golden file" in section
        page.evaluate(f"document.getElementById({json.dumps(case['test_id'])}).scrollIntoView()")
        page.screenshot(report / "screenshot-case.png")
        # The verdict table: the row, its level, what was proved.
        assert re.search(r"BAT-3\tMUST\tfail\b", text), text[:3000]
        shown = "document.querySelectorAll('section.case:not([hidden])').length"
        everything = page.evaluate(shown)
        page.evaluate("document.getElementById('only-failing').click()")
        failed = sum(c["status"] != "pass" for c in failing.index["cases"])
        assert page.evaluate(shown) == failed < everything
        assert page.errors == [], page.errors
    badge = json.loads((report / "badge-2026-07-28.json").read_text())
    assert badge["color"] == "red" and badge["label"] == "elicit-conformance 2026-07-28", badge
    for shot in ("screenshot.png", "screenshot-case.png"):
        assert (report / shot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", shot


def test_a_page_that_raises_is_seen_to(tmp_path: Path) -> None:
    """The console check above can fail: an uncaught error and a console.error are both caught."""
    broken = tmp_path / "broken.html"
    broken.write_text("<!doctype html><body>x<script>console.error('said'); null.property;</script></body>")
    with chromium(tmp_path / "profile") as page:
        page.open(broken.as_uri())
        assert len(page.errors) == 2 and "said" in page.errors[0] and "TypeError" in page.errors[1], page.errors

