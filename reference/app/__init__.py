"""The scenario server: every catalog tool (`tools`) on the reference engine, the
official conformance suite's fixtures for asking (`official`), the generated
declaration space (`space`), the REG adapter's probes (`registration_probes`) and what
the server remembers across processes (`records`).

`elicit_conformance.reference.app:app` is the server, `...:registration` its REG
adapter. May import the engine (`elicit_conformance.reference`); the engine never
imports this.
"""

from .tools import app, registration

__all__ = ["app", "registration"]
