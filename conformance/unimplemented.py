"""Tools a target declares it deliberately does not implement.

A partial implementation (a framework that cannot express some declarations,
a server that ships a subset) lists them in a file of its own repository, one
per line, `TOOL: reason`; `#` starts a comment:

    # book_reworded needs copy deployed mid-call, which we do not support
    book_reworded: no way to reword a question while a call is open

`--conformance-not-implemented=FILE` (or the `elicit_not_implemented` ini key)
reads it. A case that needs only declared tools ends "not implemented": it
passes the run, and a written baseline leaves it out, so the baseline holds
only real failures. A declared tool the target does list is a stale line,
and fails the run, as a stale baseline entry does.
"""

from __future__ import annotations

import re
from pathlib import Path
from elicit_conformance.exceptions import DeclarationError

_LINE = re.compile(r"^(?P<tool>[\w.-]+)\s*:\s*(?P<reason>.+)$")



def read(path: Path, known: set[str]) -> dict[str, str]:
    """Tool name -> reason, each a tool of the contract (`known`)."""
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise DeclarationError(f"--conformance-not-implemented={path}: cannot read it ({error.strerror})") from None
    declared: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = _LINE.match(line)
        if match is None:
            raise DeclarationError(f"{path}, line {number}: {line!r} is not 'TOOL: reason'")
        tool = match["tool"]
        if tool not in known:
            raise DeclarationError(
                f"{path}, line {number}: {tool!r} is not a tool of the contract (docs/contract.md)"
            )
        declared[tool] = match["reason"].strip()
    return declared
