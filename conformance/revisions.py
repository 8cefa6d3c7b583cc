"""The protocol revisions the suite speaks, kept free of imports so that the
pytest entry point can name them without loading the MCP stack."""

#: Sessionless: questions travel as batched `InputRequiredResult` rounds.
MODERN = "2026-07-28"
#: Handshake era: each question is an in-process `elicitation/create`.
HANDSHAKE = "2025-11-25"
ERAS = (MODERN, HANDSHAKE)
#: What `--conformance-revision` takes for every revision in ERAS (the default).
ALL = "all"
