"""`python -m elicit_conformance.contract [DESTINATION]`: write the contract a target implements."""

import argparse

from .page import write_contract

parser = argparse.ArgumentParser(prog="python -m elicit_conformance.contract",
                                 description="Write the contract a target implements.")
parser.add_argument("destination", nargs="?", default="-",
                    help="a .md file, a .json file for the same as data, or - for standard output (default)")
write_contract(parser.parse_args().destination)
