"""`python -m elicit_conformance.bench`: the benchmark table."""

from .table import main

main()
