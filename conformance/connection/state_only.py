"""A state-only `InputRequiredResult` (only `requestState`, no `inputRequests`): the
server sheds load or wants a moment, and the client retries at once, as the
specification lets it ("If the InputRequiredResult does not contain the
inputRequests field, the client MAY retry the original request immediately",
2026-07-28 basic/patterns/mrtr)."""

from __future__ import annotations

from typing import Any

#: The requests a 2026-07-28 server may answer with an `InputRequiredResult`.
ASKING = ("tools/call", "prompts/get", "resources/read")
#: How many state-only answers in a row are retried before the case sees one.
MAX_STATE_ONLY = 8


def state_only(result: Any) -> str | None:
    """The `requestState` of an `InputRequiredResult` that asks nothing (its
    `inputRequests` absent or empty), else None."""
    if not isinstance(result, dict) or result.get("resultType") != "input_required" or result.get("inputRequests"):
        return None
    state = result.get("requestState")
    return state if isinstance(state, str) else None


def retry_of(params: dict[str, Any], state: str) -> dict[str, Any]:
    """The retry of a state-only `InputRequiredResult`: the original request with that
    state and no `inputResponses`. The result asked nothing, so there is nothing to
    answer, and answers of an earlier round would be keyed by requests of another
    result (mrtr: the keys of `inputResponses` "correspond to the keys in the
    InputRequests map"), which a server may refuse."""
    return {**{k: v for k, v in params.items() if k != "inputResponses"}, "requestState": state}
