"""Judging what a server did: a scenario's rounds, schemas and outcome against the
catalog (`checks`), and every message against the revision's own schema
(`wire_schema`). Each check names its requirement row (`elicit_conformance.verdict`).

May import: the vocabulary, `connection` and `harness`; never pytest, the run or the cases.
"""
