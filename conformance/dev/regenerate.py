"""Regenerate what a behaviour change makes stale: `python -m elicit_conformance.dev.regenerate`.

Run in a source checkout after editing the catalog (fixtures/scenarios.json or
fixtures/space.json) and the reference. In order: the declaration space's
generated tools, the contract page and its data, and the reference's golden
transcripts (the cases, with --snapshot-update). `--peers` also re-runs the
reference, the MCP SDK and TypeScript peers and rewrites their verdict tables,
the reports the matrix keeps (docs/implementations.md) and the peers' golden
transcripts (fixtures/peers/golden; minutes; the TypeScript peer needs node and
npm). Each step is a command you can run alone; this prints each before it runs
it, and stops at the first that fails.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


#: Each a command you can run alone, from the checkout's root.
STEPS = [
    [PYTHON, "-m", "elicit_conformance.dev.space"],
    [PYTHON, "-m", "elicit_conformance.contract", "docs/contract.md"],
    [PYTHON, "-m", "elicit_conformance.contract", "docs/contract.json"],
    [PYTHON, "-m", "pytest", "conformance/cases", "-q", "-p", "no:cacheprovider", "--snapshot-update"],
]


def run(step: list[str], *, judged: bool = True) -> bool:
    """Run one step, printed first; False when it failed and `judged` (a peer's run
    fails where the peer does: its table says so, that is no stop)."""
    print("$", " ".join(["python", *step[1:]] if step[0] == PYTHON else step), flush=True)
    done = subprocess.run(step, cwd=ROOT)
    if done.returncode != 0 and judged:
        print(f"stopped: that step exited {done.returncode}", file=sys.stderr)
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m elicit_conformance.dev.regenerate",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--peers", action="store_true",
                        help="also re-run both peers and rewrite their tables and golden transcripts")
    args = parser.parse_args(argv)
    if not (ROOT / "fixtures" / "scenarios.json").exists():
        parser.error(f"{ROOT} is not a source checkout of elicit-conformance: regenerate runs in one")
    if not all(run(step) for step in STEPS):
        return 1
    if args.peers:
        with tempfile.TemporaryDirectory() as scratch:
            report, reference = Path(scratch) / "mcp-sdk", Path(scratch) / "reference"
            if not run([PYTHON, "-m", "pytest", "conformance/cases", "-q", "-p", "no:cacheprovider",
                        f"--conformance-report={reference}"]):
                return 1
            run([PYTHON, "-m", "pytest", "conformance/cases", "-q", "-p", "no:cacheprovider",
                 "--server=elicit_conformance.fixtures.peers.mcp_sdk:app", f"--conformance-report={report}",
                 "--conformance-snapshots=fixtures/peers/golden/mcp_sdk", "--snapshot-update"],
                judged=False)
            # Keeping them redraws the matrix page and docs/mcp-sdk.md's table; the TypeScript
            # peer's reports are kept by tests.typescript, which redraws the page again.
            run([PYTHON, "-m", "elicit_conformance.dev.implementations", f"reference={reference}",
                 f"mcp-sdk={report}"])
        return 0 if run([PYTHON, "-m", "tests.typescript"]) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
