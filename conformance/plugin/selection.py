"""Whether a pytest run is a conformance run: an elicit-conformance option was given, or
the paths (or `--pyargs` modules) to test reach into the cases (the server cases or the
client cases)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from .options import CONFORMANCE

CASE_FOLDERS = tuple(Path(__file__).resolve().parent.parent / name for name in ("cases", "clients"))


def wanted(config: pytest.Config) -> bool:
    """Whether this run is a conformance run (see the module docstring)."""
    if any(config.getoption(name) is not None for name in CONFORMANCE):
        return True
    return any(_reaches(path, cases) for path in _arg_paths(config) for cases in CASE_FOLDERS)


def _arg_paths(config: pytest.Config) -> list[Path]:
    paths = []
    for arg in config.args:
        name = str(arg).split("::", 1)[0]
        if config.option.pyargs and (origin := _module_path(name)) is not None:
            paths.append(origin)
        else:
            paths.append((config.invocation_params.dir / name).resolve())
    return paths


def _module_path(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))).resolve()
    return Path(spec.origin).resolve() if spec.origin else None


def _reaches(path: Path, cases: Path) -> bool:
    """The path is in `cases`, or is a folder whose collection walks into them.

    pytest never walks into a virtual environment, so a project folder holding
    the venv this package is installed in does not count.
    """
    if path == cases or cases in path.parents:
        return True
    if path not in cases.parents:
        return False
    between = [p for p in cases.parents if path in p.parents]
    return not any((p / "pyvenv.cfg").exists() or p.name == "site-packages" for p in between)
