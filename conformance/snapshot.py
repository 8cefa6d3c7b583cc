"""One readable JSON file per case and era under the top-level `snapshots/`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

#: Set by the plugin at configure time: `<rootdir>/snapshots`.
SNAPSHOT_ROOT = Path("snapshots")


class TranscriptSnapshot(SingleFileSnapshotExtension):
    """Stores a rendered transcript as text: `snapshots/<test file>/<test>[<era>].json`."""

    file_extension = "json"
    _write_mode = WriteMode.TEXT

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOT_ROOT / test_location.basename)

    def serialize(self, data: Any, **kwargs: Any) -> str:
        return str(data)
