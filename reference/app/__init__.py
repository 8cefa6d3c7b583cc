"""The scenario server: every catalog tool (`tools`) on the reference engine, the
official conformance suite's fixtures for asking (`official`), the REG adapter's probes
(`registration_probes`) and what the server remembers across processes (`records`).
The generated declaration space it also serves stays at `reference/space.py`: its
classes' paths are on the wire (a refusal quotes the parameter's type), so moving it
would change golden transcripts.

`elicit_conformance.reference.app:app` is the server, `...:registration` its REG
adapter. May import the engine (`elicit_conformance.reference`); the engine never
imports this.
"""

from __future__ import annotations

from typing import Any

__all__ = ["app", "registration"]


def __getattr__(name: str) -> Any:
    # Built on first use, so importing `records` or `official` alone builds no server.
    if name in __all__:
        from . import tools

        return getattr(tools, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
