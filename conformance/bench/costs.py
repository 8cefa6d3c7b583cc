"""The per-file cost of a test run, as JSON: written by the repository's test run
(tests/cost.py, when `ELICIT_TEST_COST` names a file), read by `bench --ci-run`,
which states each file in suite units."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

#: The environment variable naming the file a test run writes its costs to.
ENV_VAR = "ELICIT_TEST_COST"


def write(path: str | Path, files: Mapping[str, tuple[float, float]]) -> None:
    """Each file's (CPU seconds, wall seconds)."""
    Path(path).write_text(json.dumps({name: {"cpu": cpu, "wall": wall} for name, (cpu, wall) in files.items()},
                                     indent=1, sort_keys=True))


def read(path: str | Path) -> dict[str, tuple[float, float]]:
    """What `write` wrote; {} when the run wrote nothing (it failed before its summary)."""
    file = Path(path)
    if not file.exists():
        return {}
    return {name: (cost["cpu"], cost["wall"]) for name, cost in json.loads(file.read_text()).items()}


def units_table(files: Mapping[str, tuple[float, float]], suite_cpu: float) -> list[str]:
    """Markdown rows: each file's CPU seconds, wall seconds and suite units (its CPU over
    one in-process run of the cases against the reference), costliest first."""
    rows = sorted(files.items(), key=lambda kv: -kv[1][0])
    total_cpu, total_wall = sum(c for c, _ in files.values()), sum(w for _, w in files.values())
    return ["| file | CPU s | wall s | suite units |", "|---|---|---|---|",
            *(f"| {name} | {cpu:.1f} | {wall:.1f} | {cpu / suite_cpu:.2f} |" for name, (cpu, wall) in rows),
            f"| all files | {total_cpu:.1f} | {total_wall:.1f} | {total_cpu / suite_cpu:.1f} |"]
