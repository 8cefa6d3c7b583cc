"""What a target must implement: each case's needs as it declares them (`needs`), and the
contract page rendered from them, the catalog and the requirement table (`page`;
`python -m elicit_conformance.contract`, or `pytest --conformance-contract`).

May import: the vocabulary, and the case modules by name (to read their declarations);
never the run, the plugin or pytest's hooks.
"""
