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
- a body that raised releases its claim: the retry runs it;
- a claim whose request never finished (its process was killed mid-round) is never
  taken over: whether that body ran is unknown, and running it again could book
  twice. After `RUNNING_LEASE` the error says so, so the client can look before it
  starts a new call. At most once, then, not exactly once: no server can promise
  more about work a crash interrupted.

The record lives in a `Completions` store: this process's memory by default; a
deployment of several processes passes one they share (`reference.app.records`).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from elicit_conformance.reference.rounds import ElicitationFailed

T = TypeVar("T")

#: How long a claim is kept: `RequestStateSecurity`'s default seal lifetime, after
#: which no client can present the state again.
LIFETIME = 600.0
#: Longer than any last round of the reference takes: a claim still unfinished after
#: this was left by a request that will not finish it.
RUNNING_LEASE = 30.0


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


async def once(
    completions: Completions, tool: str, arguments: Mapping[str, Any], state: str, responses: Any,
    work: Callable[[], Awaitable[T]],
    keep: Callable[[T], Any] = lambda result: result, restore: Callable[[Any], T] = lambda kept: kept,
) -> T:
    """`work()` for the last round of the call of `tool` with `arguments` carrying
    `state` and `responses`, unless that round already ran: then what it returned
    (`keep` makes it storable, `restore` gives it back).

    Raises:
        ElicitationFailed: The round is running elsewhere, or completed with other answers.
    """
    key = key_of(tool, arguments, state)
    claimed = completions.claim(key, answers_of(responses), LIFETIME)
    if claimed.refused is not None:
        raise ElicitationFailed(claimed.refused)
    if claimed.done:
        return restore(claimed.result)
    try:
        result = await work()
    except BaseException:
        completions.release(key)  # nothing finished: a retry runs it
        raise
    completions.finish(key, keep(result))
    return result


def key_of(tool: str, arguments: Mapping[str, Any], state: str) -> str:
    """The round's key: the arguments too, since state names its call only where it
    carries the call's id (an injected argument counts by its type)."""
    called = json.dumps(dict(arguments), sort_keys=True, default=lambda value: type(value).__name__)
    return hashlib.sha256(f"{tool}\0{called}\0{state}".encode()).hexdigest()


def answers_of(responses: Any) -> str:
    return hashlib.sha256(json.dumps(responses, sort_keys=True, default=str).encode()).hexdigest()


def verdict(answers: str, found: tuple[str, bool, Any, float], now: float) -> Claimed:
    """What an existing claim (its answers, whether it finished, its result, when it was
    made) means at `now` for a request with `answers`."""
    claimed_answers, finished, result, started = found
    if not finished and now - started < RUNNING_LEASE:
        return Claimed(refused="this call's last round is already running; send it again in a moment for its result")
    if not finished:
        return Claimed(refused=f"this call's last round was taken {now - started:.0f} s ago by a request that never "
                               "finished (its server may have stopped), so whether it ran is unknown: check before "
                               "starting a new call")
    if claimed_answers != answers:
        return Claimed(refused="this call already completed with other answers; start a new call to change them")
    return Claimed(done=True, result=result)


class InMemory:
    """One process's record: enough for one process, wrong for several."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: key -> (expires, answers, finished, result, started)
        self._claims: dict[str, tuple[float, str, bool, Any, float]] = {}

    def claim(self, key: str, answers: str, lifetime: float) -> Claimed:
        now = time.monotonic()
        with self._lock:
            self._claims = {k: v for k, v in self._claims.items() if v[0] > now}
            if key in self._claims:
                return verdict(answers, self._claims[key][1:], now)
            self._claims[key] = (now + lifetime, answers, False, None, now)
        return Claimed()

    def finish(self, key: str, result: Any) -> None:
        with self._lock:
            expires, answers, _, _, started = self._claims[key]
            self._claims[key] = (expires, answers, True, result, started)

    def release(self, key: str) -> None:
        with self._lock:
            self._claims.pop(key, None)
