"""Which side of the protocol a run judges: a server (the server cases, the server table)
or a client (the client cases, the client table), as its target says."""

from __future__ import annotations

from pathlib import Path

from elicit_conformance.connection.target import Target
from elicit_conformance.exceptions import UsageProblem

#: Each side's case modules: a run is "the whole suite" when it collected all of them.
CASES = Path(__file__).parent.parent / "cases"
CLIENT_CASES = Path(__file__).parent.parent / "clients"
#: The client side's requirement table (the server side's is the packaged default).
CLIENT_TABLE = CLIENT_CASES / "requirements.toml"


def cases_of(target: Target) -> Path:
    return CLIENT_CASES if target.is_client else CASES


def table_of(target: Target) -> Path | None:
    """The requirement table a target is judged on; None: the packaged server table."""
    return CLIENT_TABLE if target.is_client else None


def check_one_side(target: Target, paths: list[Path]) -> None:
    """The cases collected (their paths) judge the kind of target named.

    Raises:
        UsageProblem: Client cases without a client, or server cases with one.
    """
    client_cases = [path for path in paths if CLIENT_CASES in path.parents]
    if client_cases and not target.is_client:
        raise UsageProblem("the client cases (elicit_conformance.clients) judge a client: name it with "
                           "--client-command=\"<the command that runs it>\" (or, a Python client in-process, "
                           "--client=module:function)")
    if target.is_client and len(client_cases) < len(paths):
        raise UsageProblem(f"{target.source}={target.spec!r} names a client, and the server cases judge "
                           "a server: run the client cases alone (pytest --pyargs elicit_conformance.clients)")
