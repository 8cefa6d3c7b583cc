"""Who the suite connects as: one value, `Client`, where the revision, the elicitation
modes and the tasks opt-in travelled as loose keywords through every function between a
case and the wire. A new client option is a field here."""

from __future__ import annotations

from dataclasses import dataclass, replace

#: Both elicitation modes: what a client that declares the capability with no narrowing offers.
BOTH = ("form", "url")


@dataclass(frozen=True)
class Client:
    #: The revision it speaks.
    era: str
    #: The elicitation modes it declares: both, one, or none.
    modes: tuple[str, ...] = BOTH
    #: It opts into the tasks extension on every request (on 2026-07-28 that is how).
    tasks: bool = False

    @classmethod
    def of(cls, era: str, elicitation: bool | tuple[str, ...] = True, tasks: bool = False) -> Client:
        """A client as cases say it: `elicitation` True declares both modes, False none,
        or the modes given."""
        return cls(era, BOTH if elicitation is True else tuple(elicitation or ()), tasks)

    @property
    def identity(self) -> Client:
        """What one stdio process serves: the revision and the declared modes (the tasks
        opt-in rides each request, so clients that differ only in it share a process)."""
        return replace(self, tasks=False)
