"""How long the suite waits for a server, kept free of imports so that the pytest
entry point can state the defaults in its options' help without loading the MCP stack."""

#: Seconds a server may take to answer one request before its case fails.
DEFAULT_TIMEOUT = 30.0
#: Seconds a stdio server may take to start, before its first answer: a busy CI
#: runner or a server that loads a model at start needs more than a request does.
DEFAULT_STARTUP = 120.0
