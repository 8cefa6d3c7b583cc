"""The `Elicit` marker: a value that comes from the user, not the model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Elicit(Generic[T]):
    """A question to put to the user.

    It means the same thing in the two places it appears:

    - As parameter metadata, ``Annotated[str, Elicit("Where to?")]``, it says
      the parameter is filled by asking. The message is either fixed text or a
      *resolver*: a callable whose parameters are filled by name from the
      tool's arguments and from other elicited answers.
    - Returned from a resolver, it is the question the resolver decided to ask.
      A resolver returns ``T | Elicit[T]``; a plain value means the answer was
      already known and nobody is asked.

    Args:
        message: The text shown to the user, or (in an annotation only) a
            resolver that decides.
        response_type: The type asked for. Omitted, the parameter's annotation
            is used; a resolver should state it, since the annotation is out
            of its view.
        title: Label of the wrapped ``value`` field for scalar answers.
        description: Description of the wrapped ``value`` field.
    """

    __slots__ = ("message", "response_type", "title", "description")

    def __init__(
        self,
        message: str | Callable[..., Any],
        *,
        response_type: Any = None,
        title: str | None = None,
        description: str | None = None,
    ) -> None:
        self.message = message
        self.response_type = response_type
        self.title = title
        self.description = description

    def __repr__(self) -> str:
        return f"Elicit({self.message!r})"
