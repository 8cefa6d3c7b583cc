"""Regenerate what a behaviour change makes stale: `python -m elicit_conformance.regenerate`.

Run in a source checkout after editing the catalog (fixtures/scenarios.json or
fixtures/space.json) and the reference. In order: the declaration space's
generated tools, the contract page and its data, and the reference's golden
transcripts (the cases, with --snapshot-update). `--peers` also re-runs the
MCP SDK and TypeScript peers and rewrites their verdict tables (minutes; the
TypeScript peer needs node and npm). Each step is a command you can run alone;
this prints each before it runs it, and stops at the first that fails.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def steps(peers: bool, scratch: Path) -> list[list[str]]:
    found = [
        [PYTHON, "-m", "elicit_conformance.space"],
        [PYTHON, "-m", "elicit_conformance.contract", "docs/contract.md"],
        [PYTHON, "-m", "elicit_conformance.contract", "docs/contract.json"],
        [PYTHON, "-m", "pytest", "conformance/cases", "-q", "-p", "no:cacheprovider", "--snapshot-update"],
    ]
    if peers:
        report = scratch / "mcp-sdk"
        found += [
            [PYTHON, "-m", "pytest", "conformance/cases", "-q", "-p", "no:cacheprovider",
             "--server=elicit_conformance.fixtures.peers.mcp_sdk:app", f"--conformance-report={report}"],
            [PYTHON, "-m", "elicit_conformance.regenerate", "--paste-mcp-sdk", str(report / "verdicts.md")],
            [PYTHON, "-m", "tests.typescript"],
        ]
    return found


def paste_mcp_sdk(verdicts: Path) -> None:
    """The MCP SDK peer's fresh verdict table into docs/mcp-sdk.md (its explanations
    are prose: read the diff, and explain any new failure there)."""
    doc = ROOT / "docs" / "mcp-sdk.md"
    text = doc.read_text()
    start, end = "<!-- verdicts:start -->\n", "<!-- verdicts:end -->"
    head, rest = text.split(start, 1)
    doc.write_text(head + start + verdicts.read_text() + end + rest.split(end, 1)[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m elicit_conformance.regenerate",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--peers", action="store_true", help="also re-run both peers and rewrite their tables")
    parser.add_argument("--paste-mcp-sdk", type=Path, metavar="VERDICTS_MD", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.paste_mcp_sdk is not None:
        paste_mcp_sdk(args.paste_mcp_sdk)
        return 0
    if not (ROOT / "fixtures" / "scenarios.json").exists():
        parser.error(f"{ROOT} is not a source checkout of elicit-conformance: regenerate runs in one")
    with tempfile.TemporaryDirectory() as scratch:
        for step in steps(args.peers, Path(scratch)):
            print("$", " ".join(["python", *step[1:]] if step[0] == PYTHON else step), flush=True)
            # The peer runs fail where the peers do: their tables say so, that is not a stop.
            peer_run = any(a.startswith("--server=elicit_conformance.fixtures.peers") for a in step)
            done = subprocess.run(step, cwd=ROOT)
            if done.returncode != 0 and not peer_run:
                print(f"stopped: that step exited {done.returncode}", file=sys.stderr)
                return done.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
