"""`python -m elicit_conformance.contract [--since OLD.json] [DESTINATION]`: write the contract a
target implements, or what changed in it since an earlier version's contract.json."""

import argparse
import sys
from pathlib import Path

from elicit_conformance.exceptions import DeclarationError

from .page import write_contract

parser = argparse.ArgumentParser(prog="python -m elicit_conformance.contract",
                                 description="Write the contract a target implements.")
parser.add_argument("destination", nargs="?", default="-",
                    help="a .md file, a .json file for the same as data, or - for standard output (default)")
parser.add_argument("--since", type=Path, metavar="OLD.json",
                    help="write what changed since this earlier contract.json instead")
arguments = parser.parse_args()
try:
    write_contract(arguments.destination, arguments.since)
except DeclarationError as error:
    sys.exit(f"error: {error}")
