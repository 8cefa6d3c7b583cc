"""The TypeScript peer (fixtures/peers/typescript): building it, serving it, and
its verdict table in docs/typescript-sdk.md; and installing the TypeScript SDK client's
adapter (fixtures/clients/typescript).

    python -m tests.typescript          # run the suite against it, rewrite the table
                                        # and its golden transcripts

The peer is installed with `npm ci` from its lockfile into a folder of its own,
so the repository never holds `node_modules`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from elicit_conformance.dev import implementations
from tests.suite import QUICK, ROOT, SuiteRun, finish, golden_all_same, golden_said, start

PEER = ROOT / "fixtures" / "peers" / "typescript"
CLIENT = ROOT / "fixtures" / "clients" / "typescript"
DOC = ROOT / "docs" / "typescript-sdk.md"
#: Its golden transcripts, one set for both transports (the protocol is the same on each):
#: written by `python -m tests.typescript`, compared by every run of the test.
GOLDEN = ROOT / "fixtures" / "peers" / "golden" / "typescript"
REVISIONS = ("2026-07-28", "2025-11-25")
TRANSPORTS = ("HTTP", "stdio")
#: npm ci and tsc on a cold cache; the registry is the only thing off this machine.
INSTALL_TIMEOUT = 600
#: How long the HTTP server may take to say where it listens.
LISTEN_TIMEOUT = 30
NO_NODE = (
    "`node` and `npm` (Node 20 or later) must be on PATH to build the TypeScript peer "
    "(fixtures/peers/typescript) and the TypeScript client (fixtures/clients/typescript); "
    "install Node.js, or run the tests on a machine that has it"
)


def build(directory: Path) -> Path:
    """Install the peer into `directory` with `npm ci` and compile it; its `dist`."""
    _install(PEER, ("package.json", "package-lock.json", "tsconfig.json", "src"), directory)
    # The generated tools are registered from the declaration space's JSON (src/space.ts).
    shutil.copy(ROOT / "fixtures" / "space.json", directory / "space.json")
    _npm(directory, "run", "build")
    return directory / "dist"


def install_client(directory: Path) -> str:
    """Install the TypeScript SDK client's adapter (fixtures/clients/typescript) into
    `directory` with `npm ci`: the command that runs it as a client under test."""
    _install(CLIENT, ("package.json", "package-lock.json", "client.mjs"), directory)
    return f"node {directory / 'client.mjs'}"


def _install(source: Path, names: tuple[str, ...], directory: Path) -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise RuntimeError(NO_NODE)
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        (shutil.copytree if (source / name).is_dir() else shutil.copy)(source / name, directory / name)
    _npm(directory, "ci", "--no-audit", "--no-fund")


def _npm(directory: Path, *arguments: str) -> None:
    done = subprocess.run(["npm", *arguments], cwd=directory, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    if done.returncode != 0:
        raise RuntimeError(f"`npm {' '.join(arguments)}` failed in {directory}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")


def http_log(dist: Path) -> Path:
    """Where `http_server` keeps what the peer's HTTP server writes to stderr."""
    return dist.parent / "http.log"


@contextmanager
def http_server(dist: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The peer's HTTP server on a free loopback port: its URL and its process. What it
    writes to stderr (the SDK's `onerror` reports) is kept in `http_log(dist)`."""
    log = http_log(dist)
    with log.open("w") as errors:
        process = subprocess.Popen(["node", str(dist / "http.js"), "0"], stdout=subprocess.PIPE, stderr=errors, text=True)
    try:
        assert process.stdout is not None
        timer = threading.Timer(LISTEN_TIMEOUT, process.kill)  # a server that never listens ends the wait
        timer.start()
        try:
            url = process.stdout.readline().strip()
        finally:
            timer.cancel()
        if not url.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the TypeScript peer did not start: {url!r} {log.read_text()[-2000:]}")
        yield url, process
    finally:
        process.terminate()
        process.wait(timeout=10)


def run_both(dist: Path, directory: Path, *, write: bool = False) -> dict[str, SuiteRun]:
    """The whole suite against the peer over HTTP and over stdio at once, each comparing
    its transcripts with GOLDEN; with `write` the HTTP run writes them, and stdio runs after.
    The generated attacks run their `ci` examples over stdio and the `quick` ones over HTTP:
    the two carry the same messages, and ci's 450 calls once are the peer's verdict."""
    golden = f"--conformance-snapshots={GOLDEN}"
    with http_server(dist) as (url, process):
        http = start(directory / "http", f"--server={url}", golden, *(["--snapshot-update"] if write else []),
                     env=QUICK)
        written = finish(http, directory / "http") if write else None  # what stdio compares with
        stdio = start(directory / "stdio", f"--server-command=node {dist / 'stdio.js'}", golden)
        runs = {"HTTP": written or finish(http, directory / "http"), "stdio": finish(stdio, directory / "stdio")}
        if process.poll() is not None:
            raise RuntimeError(f"the HTTP server exited during the run: {http_log(dist).read_text()[-2000:]}")
    return runs


def _row(test_id: str) -> str:
    """A test id without its revision: `test_scenario[OPT-3-2025-11-25]` -> `test_scenario[OPT-3]`,
    `test_era_5_...[2025-11-25-none]` -> `test_era_5_...[none]`."""
    revision = "|".join(REVISIONS)
    plain = re.sub(rf"\[(?:{revision})\]", "", test_id)
    return re.sub(rf"(?<=\[)(?:{revision})-|-(?:{revision})(?=[\]-])", "", plain)


def _status(case: Mapping[str, Any]) -> str:
    return "should not met" if case["status"] == "pass" and case["should_not_met"] else str(case["status"])


def wire_cases(runs: Mapping[str, SuiteRun]) -> dict[tuple[str, str], dict[str, str]]:
    """(case ID, row) -> {"<transport> <revision>": status}, for the cases on the wire."""
    table: dict[tuple[str, str], dict[str, str]] = {}
    for transport, result in runs.items():
        for case in result.index["cases"]:
            if case["revision"] in REVISIONS:
                cells = table.setdefault((case["case"], _row(case["test_id"])), {})
                cells[f"{transport} {case['revision']}"] = _status(case)
    return table


def verdict_table(runs: Mapping[str, SuiteRun]) -> str:
    columns = [f"{t} {r}" for t in TRANSPORTS for r in REVISIONS]
    lines = [f"| Case | Test | {' | '.join(columns)} |", "|---|---|" + "---|" * len(columns)]
    for (case, row), cells in wire_cases(runs).items():
        lines.append(f"| {case} | `{row}` | " + " | ".join(cells.get(c, "") for c in columns) + " |")
    return "\n".join(lines) + "\n"


START, END = "<!-- verdicts:start -->\n", "<!-- verdicts:end -->"


def committed_table(doc: str) -> str:
    return doc.split(START, 1)[1].split(END, 1)[0]


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        dist = build(Path(scratch) / "peer")
        runs = run_both(dist, Path(scratch) / "runs", write=True)
        if not golden_all_same(runs["stdio"].output):
            sys.exit(f"over stdio the transcripts differ from those HTTP wrote to {GOLDEN}:\n"
                     f"{golden_said(runs['stdio'].output)}")
        table = verdict_table(runs)
        implementations.main([f"typescript-{transport.lower()}={run.directory / 'report'}"
                              for transport, run in runs.items()])
    head, rest = DOC.read_text().split(START, 1)
    DOC.write_text(head + START + table + END + rest.split(END, 1)[1])
    sys.stdout.write(table)


if __name__ == "__main__":
    main()
