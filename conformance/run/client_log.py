"""The MCP client's own log lines, and the framework's, kept out of the verdicts.

When a server misbehaves, the MCP client logs what it met with a traceback (an
HTTP connection reset, a body it could not parse) before the case turns it into
a sentence; pytest would print those lines under every failing case. They are
evidence, not verdicts: they go to a log file in the report directory (or a
temporary one), each case's lines under its node id, for as long as the run lasts.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

#: The loggers of the MCP client, its HTTP library and the frameworks a target may run in-process.
LOGGERS = ("mcp", "httpx2", "httpcore2", "httpx", "httpcore", "fastmcp", "docket")


class ClientLog:
    def __init__(self, directory: Path | None) -> None:
        directory = directory if directory is not None else Path(tempfile.mkdtemp(prefix="elicit-client-"))
        directory.mkdir(parents=True, exist_ok=True)
        # One file per process: xdist workers never write into each other's.
        self.path = directory / f"client-{os.getpid()}.log"
        self.handler = _ByCase(self.path)
        # A framework's own handlers too (fastmcp prints to stderr, tracebacks and all):
        # its lines come here instead, and are put back as they were at the end.
        self._saved = {name: (logging.getLogger(name).propagate, list(logging.getLogger(name).handlers))
                       for name in LOGGERS}
        for name in LOGGERS:
            logger = logging.getLogger(name)
            logger.handlers = [self.handler]
            logger.propagate = False

    def case(self, nodeid: str) -> None:
        """The lines that follow belong to `nodeid`."""
        self.handler.case, self.handler.headed = nodeid, False

    def close(self) -> None:
        for name, (propagate, handlers) in self._saved.items():
            logger = logging.getLogger(name)
            logger.handlers = handlers
            logger.propagate = propagate
        self.handler.close()


class _ByCase(logging.FileHandler):
    """A log file whose lines are headed by the case that was running, once per case."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, delay=True)
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        self.case = "before any case"
        self.headed = False

    def emit(self, record: logging.LogRecord) -> None:
        if not self.headed:
            self.headed = True
            super().emit(logging.makeLogRecord({"msg": f"--- {self.case}", "levelname": "CASE", "name": "elicit-conformance"}))
        super().emit(record)
