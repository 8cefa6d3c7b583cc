"""What shape an answer takes: the schema a question asks for, and checking a reply.

The schemas are the ones `ctx.elicit()` would send for the same type, so a
declared parameter and an imperative ask look identical on the wire. The one
addition is `Annotated[T, Field(...)]` on a scalar: its constraints stay on the
wrapped `value` field, where they are both advertised and enforced (TYP-3).
"""

from __future__ import annotations

import functools
import json
import typing
from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin

from fastmcp.server.elicitation import (
    ElicitConfig,
    ScalarElicitationType,
    get_elicitation_schema,
    handle_elicit_accept,
    parse_elicit_response_type,
)
from fastmcp.utilities.types import get_cached_typeadapter
from pydantic import ValidationError


class AnswerRejected(ValueError):
    """Accepted content that does not fit the schema it was asked against."""


@dataclass(frozen=True)
class AnswerShape:
    """The schema sent for one question and the validator for its reply."""

    schema: dict[str, Any]
    config: ElicitConfig

    def read(self, content: Any) -> Any:
        """The parameter value carried by accepted `content`.

        Raises:
            AnswerRejected: `content` does not match the schema.
        """
        try:
            if self.config.is_raw or self.config.response_type is None:
                return handle_elicit_accept(self.config, content).data
            # What handle_elicit_accept does for a typed shape, without building
            # an AcceptedElicitation per answer (a measurable share of a leg).
            # Strict, and as JSON: the answer must fit the schema that was sent,
            # so "5" is not an integer here (TYP-4), while an enum's value is.
            value = get_cached_typeadapter(self.config.response_type).validate_json(
                json.dumps(content), strict=True
            )
            return value.value if isinstance(value, ScalarElicitationType) else value
        except (ValidationError, ValueError, TypeError) as error:
            raise AnswerRejected(str(error)) from error


def shape_for(
    answer_type: Any, *, title: str | None = None, description: str | None = None
) -> AnswerShape:
    """The shape for `answer_type`, as `ctx.elicit()` would build it.

    Building one generates a pydantic schema, which dominated the cost of a
    leg (see docs/benchmarks.md), so shapes are built once per distinct type
    and wording. A shape is never mutated after it is built.
    """
    try:
        return _cached_shape(answer_type, title, description)
    except TypeError:  # an unhashable annotation (some Field metadata) is built every time
        return _build_shape(answer_type, title, description)


@functools.lru_cache(maxsize=1024)
def _cached_shape(answer_type: Any, title: str | None, description: str | None) -> AnswerShape:
    return _build_shape(answer_type, title, description)


def _build_shape(answer_type: Any, title: str | None, description: str | None) -> AnswerShape:
    base, metadata = split_annotated(answer_type)
    if metadata and (_is_scalar(base) or get_origin(base) is list):
        # fastmcp only wraps bare scalars and lists of choices; an Annotated one
        # would otherwise be sent as a non-object schema (and refused). Wrapping
        # the Annotated keeps its Field constraints on the `value` field.
        wrapped = ScalarElicitationType[answer_type]  # type: ignore[valid-type]
        schema = get_elicitation_schema(wrapped)
        if title is not None or description is not None:
            value = schema["properties"]["value"]
            if title is not None:
                value["title"] = title
            if description is not None:
                value["description"] = description
        return AnswerShape(schema, ElicitConfig(schema, wrapped, is_raw=False))
    config = parse_elicit_response_type(
        answer_type, response_title=title, response_description=description
    )
    return AnswerShape(_typed_items(config.schema), config)


def _typed_items(schema: dict[str, Any]) -> dict[str, Any]:
    """fastmcp's untitled multiple-choice shorthand (`response_type=[["a", "b"]]`) sends
    `items: {"enum": [...]}`; the specification's UntitledMultiSelectEnumSchema
    requires `items.type: "string"` beside it (TYP-9). Anything else is left as built."""
    value = schema.get("properties", {}).get("value")
    items = value.get("items") if isinstance(value, dict) else None
    if not isinstance(items, dict) or "type" in items or not isinstance(items.get("enum"), list):
        return schema
    return {**schema, "properties": {**schema["properties"], "value": {**value, "items": {"type": "string", **items}}}}


def offering_default(schema: dict[str, Any], default: Any) -> dict[str, Any]:
    """`schema` with the parameter's default as its `value`'s `default` (SEP-1034), so
    a client can pre-fill the form (OPT-6). Only a scalar default a form field can
    hold is offered; `None` (no answer at all) and anything else leave it as it was.
    A new dict: a shape's schema is shared and never changed."""
    value = schema.get("properties", {}).get("value")
    if not isinstance(default, (str, int, float, bool)) or not isinstance(value, dict):
        return schema
    return {**schema, "properties": {**schema["properties"], "value": {**value, "default": default}}}


def split_annotated(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """`Annotated[T, *meta]` -> `(T, meta)`; anything else -> `(annotation, ())`."""
    if get_origin(annotation) is Annotated:
        base, *metadata = get_args(annotation)
        return base, tuple(metadata)
    return annotation, ()


def fits(value: Any, annotation: Any) -> bool:
    """Whether `value` is acceptable for a parameter annotated `annotation`."""
    try:
        get_cached_typeadapter(annotation).validate_python(value, strict=True)
    except (ValidationError, TypeError):
        return False
    return True


def _is_scalar(tp: Any) -> bool:
    from enum import Enum

    return (
        tp in (str, int, float, bool)
        or get_origin(tp) is typing.Literal
        or (isinstance(tp, type) and issubclass(tp, Enum))
    )
