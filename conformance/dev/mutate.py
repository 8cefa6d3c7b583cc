"""Generated mutants of the reference engine: `python -m elicit_conformance.dev.mutate`.

The hand-written mutants in `fixtures/mutants/` were written beside the cases
they must fail, so the score they give measures the suite against itself. The
mutants here are nobody's choice: every first-order change of the kinds below
to every engine module (`sites.ENGINE`: the marker, questions, answers, rounds,
the server and the tasks extension's part), sampled with a fixed seed, each run
against the whole suite in a process of its own. A mutant the suite passes is a
survivor: either a behaviour no case exercises, or an equivalent mutant (the
program means the same thing), which `fixtures/mutants/equivalent.toml` lists
with a one-line reason each. A mutant whose reference no longer imports is
*incompetent*: it is reported apart and left out of the score (the suite must
still fail its run, at the target check, and the run says so).

The score is the one that speaks for servers other than the reference: kills
*by verdict* (some case failed). Each child also compares the reference's golden
transcripts, and a mutant whose every case passes but whose transcript differs
is listed apart as *golden only*: for any other server a golden difference says
"you differ from the reference", not "you are wrong", so it counts as a survivor.

The kinds and the IDs are `sites`'s.

Usage::

    python -m elicit_conformance.dev.mutate                 # 300 mutants, seed 2026
    python -m elicit_conformance.dev.mutate --list          # every site, no runs
    python -m elicit_conformance.dev.mutate --only rounds.Leg._settle/cmp#1
    python -m elicit_conformance.dev.mutate --fail-under 95 --file-floor 90 --write-run docs/mutation.md
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elicit_conformance.quoting import brief

from .scoring import SURVIVING, Verdict, render_run, score
from .sites import ENGINE, PACKAGE, Site, all_sites, mutated_code, sample

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
    try:  # the server, built on first use, imports every engine module
        getattr(importlib.import_module(f"{PACKAGE}.app"), "app")
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
            "--server=elicit_conformance.dev.mutate:app", "--conformance-strict", "--golden-transcripts",
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
            return _failed_run(site, report, done.stdout)
        if done.returncode == 4 and "ERROR:" in done.stdout + done.stderr:
            return Verdict(site, "killed", "the server does not start (the suite's target check)")
        tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
        return Verdict(site, "error", f"exit {done.returncode}: {' | '.join(tail)}")


#: Case statuses that are a verdict against the server (not "not implemented", "skipped").
_FAILED = ("fail", "timed out", "stale baseline")


def _failed_run(site: Site, report: Path, output: str) -> Verdict:
    """A failed run's verdict: killed by the first failed case, or, when every case
    passed and a transcript differs from its golden file, golden only."""
    index = report / "index.json"
    cases = json.loads(index.read_text())["cases"] if index.exists() else []
    for case in cases:
        if case["status"] in _FAILED:
            checks = ", ".join(case.get("checks", ()))
            return Verdict(site, "killed", f"{case['nodeid'].split('::')[-1]} ({case['status']}; {checks})")
    changed = [case["nodeid"].split("::")[-1] for case in cases if case.get("golden_found") in ("changed", "missing")]
    if changed:
        more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
        return Verdict(site, "golden only", f"every case passed; the transcript of {changed[0]}{more} differs")
    failed = [line for line in output.splitlines() if line.startswith(("FAILED", "ERROR"))]
    return Verdict(site, "killed", failed[0] if failed else "the run failed (a run-level problem)")


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
    survivors = [v for v in verdicts if v.status in SURVIVING]
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
