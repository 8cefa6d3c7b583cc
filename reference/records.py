"""What the scenario app remembers between calls: body runs, question copy, profiles.

A client observes BAT-2 and SEC-* by asking how often a body ran, and changes
the world between rounds (DIG-1, RES-3) through tools. Over stdio every
connection is a new process, and for stateless continuation (SEC-4) rounds land
on different processes, so these records cannot live in one process's memory:
with `ELICIT_REFERENCE_RECORDS=/path/to/file.sqlite` every process sharing the
path shares them. Without it they live in memory, which is all one process needs.
"""

from __future__ import annotations

import os
import sqlite3
import threading

ENV_VAR = "ELICIT_REFERENCE_RECORDS"


class Records:
    """A small string-to-string table, safe across threads and processes."""

    def __init__(self, path: str = ":memory:") -> None:
        # Sync resolvers and bodies run in worker threads; one lock serialises them.
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, value TEXT)")

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


def from_environment() -> Records:
    return Records(os.environ.get(ENV_VAR) or ":memory:")
