"""A call's last round runs its body once, however often it is sent.

On 2026-07-28 a call ends with a request carrying `requestState` and the last
answers. A client that lost the response to it (a connection cut, a process
killed behind a balancer) retries the same request, as it should: without a
record the body runs again, and a booking is made twice. The specification
leaves single use to the server ("Servers for which a given requestState must be
consumed at most once ... MUST enforce that invariant server-side", mrtr), since
the seal bounds replay in time but not in number.

So the reference claims each last round before its body runs, keyed by the state
it carries (which names the call: `State.call`), for as long as that state could
be presented (the seal's lifetime):

- the same state with the same answers again: the first run's result, no run;
- while the first is still running, or with other answers: a clear error;
- a body that raised releases its claim: the retry runs it.

The record lives in a `Completions` store: this process's memory by default; a
deployment of several processes passes one they share (`reference.app.records`).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol

#: How long a claim is kept: `RequestStateSecurity`'s default seal lifetime, after
#: which no client can present the state again.
LIFETIME = 600.0


@dataclass(frozen=True)
class Claimed:
    """What a claim found; neither done nor refused: the claim is this request's, run the body."""

    #: The first run's result, where it finished with the same answers.
    done: bool = False
    result: Any = None
    #: Another request holds the claim, or it finished with other answers.
    refused: str | None = None


class Completions(Protocol):
    """A shared record of the last rounds that ran (or are running)."""

    def claim(self, key: str, answers: str, lifetime: float) -> Claimed: ...

    def finish(self, key: str, result: Any) -> None: ...

    def release(self, key: str) -> None: ...


def key_of(tool: str, state: str) -> str:
    return hashlib.sha256(f"{tool}\0{state}".encode()).hexdigest()


def answers_of(responses: Any) -> str:
    return hashlib.sha256(json.dumps(responses, sort_keys=True, default=str).encode()).hexdigest()


def verdict(answers: str, found: tuple[str, bool, Any]) -> Claimed:
    """What an existing claim means for a request with `answers`."""
    claimed_answers, finished, result = found
    if not finished:
        return Claimed(refused="this call's last round is already running; retry in a moment for its result")
    if claimed_answers != answers:
        return Claimed(refused="this call already completed with other answers; start a new call to change them")
    return Claimed(done=True, result=result)


class InMemory:
    """One process's record: enough for one process, wrong for several."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._claims: dict[str, tuple[float, str, bool, Any]] = {}

    def claim(self, key: str, answers: str, lifetime: float) -> Claimed:
        now = time.monotonic()
        with self._lock:
            self._claims = {k: v for k, v in self._claims.items() if v[0] > now}
            if key in self._claims:
                return verdict(answers, self._claims[key][1:])
            self._claims[key] = (now + lifetime, answers, False, None)
        return Claimed()

    def finish(self, key: str, result: Any) -> None:
        with self._lock:
            expires, answers, _, _ = self._claims[key]
            self._claims[key] = (expires, answers, True, result)

    def release(self, key: str) -> None:
        with self._lock:
            self._claims.pop(key, None)
