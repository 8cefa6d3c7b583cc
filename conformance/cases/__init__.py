"""The conformance cases: what `pytest --pyargs elicit_conformance.cases` runs against a
target, one module per kind of case (`behaviours/` holds `test_behaviours.py`'s by family).

May import: the vocabulary, `connection`, `harness`, `grading`, and the plugin (its
conftest opens the run's session); nothing imports the cases but pytest and, by name,
`contract.needs`.
"""
