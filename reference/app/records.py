"""What one deployment of the scenario app shares: its records and its seal key.

Records: body runs, question copy, profiles, and the last rounds that ran
(`reference.once`: a retried last round must not run its body on another process).

A client observes BAT-2 and SEC-* by asking how often a body ran, and changes
the world between rounds (DIG-1, RES-3) through tools. One process, over any
transport, keeps them in memory (the suite's observations ride the process
that served the call). A deployment of several processes behind a balancer
(SEC-4) lands consecutive rounds on different ones, so there the records
cannot live in one process's memory: with
`ELICIT_REFERENCE_RECORDS=/path/to/file.sqlite` every process sharing the path
shares them, as a real server's database would.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from typing import Any

from mcp.server.request_state import RequestStateSecurity
from pydantic_core import to_jsonable_python

from elicit_conformance.reference.once import Claimed, verdict

ENV_VAR = "ELICIT_REFERENCE_RECORDS"
#: Comma-separated seal secrets: the first seals, every one unseals (rotation).
SEAL_VAR = "ELICIT_SEAL_KEYS"


class Records:
    """A small string-to-string table, safe across threads and processes."""

    def __init__(self, path: str = ":memory:") -> None:
        # Sync resolvers and bodies run in worker threads; one lock serialises them.
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, value TEXT)")
        self._db.execute("CREATE TABLE IF NOT EXISTS completions "
                         "(key TEXT PRIMARY KEY, expires REAL, answers TEXT, finished INTEGER, result TEXT, started REAL)")

    def get(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM records WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def put(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO records VALUES (?, ?)", (key, value))

    def count(self, key: str) -> int:
        """Add one to the counter `key`, atomically even across processes."""
        with self._lock:
            self._db.execute(
                "INSERT INTO records VALUES (?, '1') "
                "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
                (key,),
            )
            row = self._db.execute("SELECT value FROM records WHERE key = ?", (key,)).fetchone()
        return int(row[0])

    # -- `reference.once.Completions`: one claim per last round, across processes --------

    def claim(self, key: str, answers: str, lifetime: float) -> Claimed:
        now = time.time()
        with self._lock:
            # IMMEDIATE: the look and the insert are one step for every process on the file.
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM completions WHERE expires < ?", (now,))
                row = self._db.execute("SELECT answers, finished, result, started FROM completions WHERE key = ?",
                                       (key,)).fetchone()
                if row is None:
                    self._db.execute("INSERT INTO completions VALUES (?, ?, ?, 0, NULL, ?)",
                                     (key, now + lifetime, answers, now))
            finally:
                self._db.execute("COMMIT")
        if row is None:
            return Claimed()
        return verdict(answers, (row[0], bool(row[1]), json.loads(row[2]) if row[2] is not None else None, row[3]), now)

    def finish(self, key: str, result: Any) -> None:
        with self._lock:
            self._db.execute("UPDATE completions SET finished = 1, result = ? WHERE key = ?",
                             (json.dumps(to_jsonable_python(result, fallback=str)), key))

    def release(self, key: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM completions WHERE key = ?", (key,))


def from_environment() -> Records:
    return Records(os.environ.get(ENV_VAR) or ":memory:")


def seal_from_environment() -> RequestStateSecurity | None:
    """The shared seal for `request_state`, or None for a key of this process only.

    Every process that may receive a round of a call must unseal what another
    sealed (SEC-4), so a multi-process deployment sets the same keys on each.
    """
    keys = [key for key in os.environ.get(SEAL_VAR, "").split(",") if key]
    return RequestStateSecurity(keys=keys) if keys else None
