"""elicit-conformance: the conformance suite for declarative elicitation in MCP servers.

Its vocabulary is in the top modules (version, revisions, limits, status, exceptions, quoting,
verdict, requirements, catalog, unimplemented), beside `registration` (the REG adapter's
contract), `compare` (two reports compared) and `matrix` (many reports in one table); everything else is in rooms by role, one
subpackage each. The layering (which room may import which) is
written once, in tests/test_layout.py, and drawn in docs/development.md, "Layout".
"""
