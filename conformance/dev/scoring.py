"""What a generated-mutant run found: each mutant's verdict, the score by verdict
(golden-only kills apart), and the Markdown record `--write-run` writes."""

from __future__ import annotations

import datetime
import os
import platform
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .sites import Site

#: What counts against the score: no verdict caught it.
SURVIVING = ("survived", "golden only", "error")


@dataclass(frozen=True)
class Verdict:
    site: Site
    #: "killed" (by a verdict), "golden only" (every case passed, a transcript
    #: differs), "survived", "equivalent", "incompetent" or "error" (the suite broke).
    status: str
    #: The case that failed, the reason an equivalent is one, or what broke.
    detail: str


@dataclass(frozen=True)
class Score:
    killed: int
    equivalent: int
    incompetent: int
    total: int
    #: Not killed by any verdict, only by a golden transcript: counted as not killed.
    golden_only: int = 0

    @property
    def judged(self) -> int:
        """Mutants that change behaviour and import: the denominator."""
        return self.total - self.equivalent - self.incompetent

    @property
    def percent(self) -> float:
        return 100.0 * self.killed / self.judged if self.judged else 100.0

    def line(self) -> str:
        return (
            f"mutation score: {self.killed}/{self.judged} non-equivalent mutants killed by a verdict "
            f"({self.percent:.1f}%); {self.golden_only} of the rest only by a golden transcript; "
            f"{self.equivalent} equivalent, {self.incompetent} incompetent (the app does not import), "
            f"{self.total} in all"
        )


def score(verdicts: Sequence[Verdict]) -> Score:
    count = {status: sum(v.status == status for v in verdicts)
             for status in ("killed", "equivalent", "incompetent", "golden only")}
    return Score(count["killed"], count["equivalent"], count["incompetent"], len(verdicts), count["golden only"])


def kind_of(site: Site) -> str:
    """The operator of a site: `cmp` of `rounds.Leg._settle/cmp#1`."""
    return site.id.rsplit("/", 1)[1].split("#", 1)[0]


def breakdown(verdicts: Sequence[Verdict], key: Callable[[Site], str]) -> list[str]:
    """A Markdown table of the score per group (operator or module)."""
    groups: dict[str, list[Verdict]] = {}
    for v in verdicts:
        groups.setdefault(key(v.site), []).append(v)
    rows = ["| | killed / judged | score | equivalent | incompetent | golden only | survived |",
            "|---|---|---|---|---|---|---|"]
    for name, group in sorted(groups.items()):
        result = score(group)
        survived = sum(v.status in ("survived", "error") for v in group)
        rows.append(f"| {name} | {result.killed}/{result.judged} | {result.percent:.0f}% | "
                    f"{result.equivalent} | {result.incompetent} | {result.golden_only} | {survived} |")
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
        "parsing, or an error's wording beyond the names the contract requires it to carry;",
        "or what differs is a freedom the specification grants (a server the suite must pass).",
        "*Golden only*: every case passed, but a transcript differs from the reference's",
        "golden file; that catches the reference changing, not a wrong server elsewhere, so it",
        "counts against the score and is listed apart below. *Survived*: a behaviour change",
        "no case catches, counted against the score.",
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
        "Killed only by a golden transcript (no verdict caught them):",
        "",
        *([f"- `{v.site.id}` (line {v.site.line}): {v.detail}" for v in verdicts if v.status == "golden only"]
          or ["- none"]),
        "",
        "| mutant | line | change | verdict | what caught it, or why it is equivalent |",
        "|---|---|---|---|---|",
    ]
    for v in verdicts:
        change = f"`{v.site.before}` → `{v.site.after}`".replace("|", "\\|")
        lines.append(f"| `{v.site.id}` | {v.site.line} | {change} | {v.status} | {v.detail.replace('|', '/')} |")
    return "\n".join(lines) + "\n"
