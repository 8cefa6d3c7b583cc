"""The declaration space (GEN-1) in the reference's Python spelling.

Written by `python -m elicit_conformance.dev.space` from fixtures/space.json: do not
edit; change the axes and regenerate. Each tool is what a server author would
write for the declarations the catalog lists under its name.
"""

import enum
import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from elicit_conformance.reference import DeclarativeFastMCP, Elicit

TITLED = {"eco": {"title": "Economy"}, "biz": {"title": "Business class"}}


class Side(enum.Enum):
    AISLE = "aisle"
    WINDOW = "window"


class Stop(BaseModel):
    code: str
    city: str


def said(**values: Any) -> str:
    """The parameters as `name=JSON` in signature order, joined by '; '."""
    plain = {k: v.value if isinstance(v, enum.Enum) else v.model_dump() if isinstance(v, BaseModel) else v
             for k, v in values.items()}
    return "; ".join(f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in plain.items())


def space_decorator_enum_3(origin: str) -> Elicit[Side]:
    return Elicit(f"enum_3: enum, marker-labels, resolver-asks after {origin}?", response_type=Side, title="Your pick", description="Asked by the generated space")


def space_decorator_async_integer_1(final: str) -> int:  # waits for final, then knows the answer
    return 7


def space_decorator_async_integer_2(origin: str) -> Elicit[int]:
    return Elicit(f"integer_2: integer, field-constraints, resolver-asks after {origin}?", response_type=Annotated[int, Field(ge=1, le=9)])


def space_decorator_called_number_2() -> Elicit[float]:
    return Elicit("number_2: number, none, resolver-asks?", response_type=float)


def space_decorator_called_async_string_1(origin: str) -> str:  # waits for origin, then knows the answer
    return 'Porto'


def space_decorator_called_async_boolean_2(origin: str) -> bool:  # waits for origin, then knows the answer
    return False


def space_decorator_called_async_literal_3(origin: str) -> Literal["economy", "business"]:  # waits for origin, then knows the answer
    return 'economy'


def space_decorator_called_async_model_4(origin: str) -> Stop:  # waits for origin, then knows the answer
    return Stop(code='OPO', city='Porto')


def space_decorator_called_async_titled_5(origin: str) -> str:  # waits for origin, then knows the answer
    return 'eco'


def space_decorator_called_async_multi_6(origin: str) -> list[Literal["wifi", "meal", "lounge"]]:  # waits for origin, then knows the answer
    return ['meal']


def space_decorator_called_async_optional_7(origin: str) -> str:  # waits for origin, then knows the answer
    return 'Grace'


def space_decorator_named_string_1(final: str) -> Elicit[str]:
    return Elicit(f"string_1: string, marker-labels, resolver-asks before {final}?", response_type=str, title="Your pick", description="Asked by the generated space")


def space_decorator_named_model_3(final: str) -> Elicit[Stop]:
    return Elicit(f"model_3: model, none, resolver-asks before {final}?", response_type=Stop)


def space_decorator_named_titled_4(final: str) -> Elicit[str]:
    return Elicit(f"titled_4: titled, marker-labels, resolver-asks before {final}?", response_type=TITLED, title="Your pick", description="Asked by the generated space")


def space_decorator_named_multi_5(final: str) -> Elicit[list[Literal["wifi", "meal", "lounge"]]]:
    return Elicit(f"multi_5: multi, marker-labels, resolver-asks before {final}?", response_type=list[Literal["wifi", "meal", "lounge"]], title="Your pick", description="Asked by the generated space")


def space_decorator_named_optional_6(final: str) -> Elicit[str]:
    return Elicit(f"optional_6: optional, marker-labels, resolver-asks before {final}?", response_type=str, title="Your pick", description="Asked by the generated space")


def space_decorator_named_async_enum_2() -> Side:
    return Side.AISLE


def space_add_tool_number_1(final: str) -> float:  # waits for final, then knows the answer
    return 0.5


def space_add_tool_boolean_2() -> Elicit[bool]:
    return Elicit("boolean_2: boolean, none, resolver-asks?", response_type=bool)


def space_add_tool_literal_4(final: str) -> Elicit[Literal["economy", "business"]]:
    return Elicit(f"literal_4: literal, marker-labels, resolver-asks before {final}?", response_type=Literal["economy", "business"], title="Your pick", description="Asked by the generated space")


def space_add_tool_async_integer_1() -> Elicit[int]:
    return Elicit("integer_1: integer, field-labels, resolver-asks?", response_type=int)


def space_mismatch_1_string_1(origin: str):  # type: ignore[no-untyped-def]  # undeclared: only a call shows the type
    return Elicit(f"string_1: string, none, resolver-other-type after {origin}?", response_type=int)


def space_mismatch_2_integer_1():  # type: ignore[no-untyped-def]  # undeclared: only a call shows the type
    return Elicit("integer_1: integer, marker-labels, resolver-other-type?", response_type=str, title="Your pick", description="Asked by the generated space")


def space_mismatch_3_number_1(origin: str):  # type: ignore[no-untyped-def]  # undeclared: only a call shows the type
    return Elicit(f"number_1: number, field-constraints, resolver-other-type after {origin}?", response_type=str)


def space_mismatch_4_boolean_1(final: str):  # type: ignore[no-untyped-def]  # undeclared: only a call shows the type
    return Elicit(f"boolean_1: boolean, field-labels, resolver-other-type before {final}?", response_type=str)


def space_mismatch_5_enum_1(final: str):  # type: ignore[no-untyped-def]  # undeclared: only a call shows the type
    return Elicit(f"enum_1: enum, none, resolver-other-type before {final}?", response_type=int)


def space_mismatch_6_literal_1():  # type: ignore[no-untyped-def]  # undeclared: only a call shows the type
    return Elicit("literal_1: literal, none, resolver-other-type?", response_type=int)


def space_mismatch_7_model_1():  # type: ignore[no-untyped-def]  # undeclared: only a call shows the type
    return Elicit("model_1: model, none, resolver-other-type?", response_type=str)


def space_mismatch_8_titled_1():  # type: ignore[no-untyped-def]  # undeclared: only a call shows the type
    return Elicit("titled_1: titled, none, resolver-other-type?", response_type=int)


def space_mismatch_9_multi_1():  # type: ignore[no-untyped-def]  # undeclared: only a call shows the type
    return Elicit("multi_1: multi, none, resolver-other-type?", response_type=str)


def space_mismatch_10_optional_1():  # type: ignore[no-untyped-def]  # undeclared: only a call shows the type
    return Elicit("optional_1: optional, none, resolver-other-type?", response_type=int)


def register(app: DeclarativeFastMCP, ran: Callable[[str], None]) -> None:
    """Add every generated tool to `app`; `ran(ref)` counts a body run."""

    @app.tool
    def space_decorator(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        string_1: Annotated[str, Elicit("string_1: string, none, fixed?")],
        number_2: Annotated[float, Elicit("number_2: number, marker-labels, fixed?", title="Your pick", description="Asked by the generated space")],
        enum_3: Annotated[Side, Elicit(space_decorator_enum_3)],
        literal_4: Annotated[Literal["economy", "business"], Elicit("literal_4: literal, none, fixed?")],
        model_5: Annotated[Stop, Elicit("model_5: model, none, fixed?")],
        titled_6: Annotated[str, Elicit("titled_6: titled, none, fixed?", response_type=TITLED)],
        multi_7: Annotated[list[Literal["wifi", "meal", "lounge"]], Elicit("multi_7: multi, none, fixed?")],
        optional_8: Annotated[str | None, Elicit("optional_8: optional, none, fixed?")] = None,
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 8 declared parameter(s), registered by decorator, with a sync body (GEN-1)."""
        ran(ref)
        return said(origin=origin, string_1=string_1, number_2=number_2, enum_3=enum_3, literal_4=literal_4, model_5=model_5, titled_6=titled_6, multi_7=multi_7, optional_8=optional_8, final=final)

    @app.tool
    async def space_decorator_async(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        integer_1: Annotated[int, Elicit(space_decorator_async_integer_1)],
        integer_2: Annotated[int, Field(ge=1, le=9), Elicit(space_decorator_async_integer_2)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 2 declared parameter(s), registered by decorator, with an async body (GEN-1)."""
        ran(ref)
        return said(origin=origin, integer_1=integer_1, integer_2=integer_2, final=final)

    @app.tool()
    def space_decorator_called(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        integer_1: Annotated[int, Field(ge=1, le=9), Elicit("integer_1: integer, field-constraints, fixed?")],
        number_2: Annotated[float, Elicit(space_decorator_called_number_2)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 2 declared parameter(s), registered by decorator-called, with a sync body (GEN-1)."""
        ran(ref)
        return said(origin=origin, integer_1=integer_1, number_2=number_2, final=final)

    @app.tool()
    async def space_decorator_called_async(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        string_1: Annotated[str, Field(title="Generated", description="A Field label beside the marker"), Elicit(space_decorator_called_async_string_1)],
        boolean_2: Annotated[bool, Elicit(space_decorator_called_async_boolean_2)],
        literal_3: Annotated[Literal["economy", "business"], Field(title="Generated", description="A Field label beside the marker"), Elicit(space_decorator_called_async_literal_3)],
        model_4: Annotated[Stop, Field(title="Generated", description="A Field label beside the marker"), Elicit(space_decorator_called_async_model_4)],
        titled_5: Annotated[str, Field(title="Generated", description="A Field label beside the marker"), Elicit(space_decorator_called_async_titled_5)],
        multi_6: Annotated[list[Literal["wifi", "meal", "lounge"]], Field(title="Generated", description="A Field label beside the marker"), Elicit(space_decorator_called_async_multi_6)],
        optional_7: Annotated[str | None, Field(title="Generated", description="A Field label beside the marker"), Elicit(space_decorator_called_async_optional_7)] = None,
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 7 declared parameter(s), registered by decorator-called, with an async body (GEN-1)."""
        ran(ref)
        return said(origin=origin, string_1=string_1, boolean_2=boolean_2, literal_3=literal_3, model_4=model_4, titled_5=titled_5, multi_6=multi_6, optional_7=optional_7, final=final)

    @app.tool("space_decorator_named", description="Generated from the declaration space: 6 declared parameter(s), registered by decorator-named, with a sync body (GEN-1).")
    def _space_decorator_named(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        string_1: Annotated[str, Elicit(space_decorator_named_string_1)],
        boolean_2: Annotated[bool, Elicit("boolean_2: boolean, none, fixed?")],
        model_3: Annotated[Stop, Elicit(space_decorator_named_model_3)],
        titled_4: Annotated[str, Elicit(space_decorator_named_titled_4)],
        multi_5: Annotated[list[Literal["wifi", "meal", "lounge"]], Elicit(space_decorator_named_multi_5)],
        optional_6: Annotated[str | None, Elicit(space_decorator_named_optional_6)] = None,
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        ran(ref)
        return said(origin=origin, string_1=string_1, boolean_2=boolean_2, model_3=model_3, titled_4=titled_4, multi_5=multi_5, optional_6=optional_6, final=final)

    @app.tool("space_decorator_named_async", description="Generated from the declaration space: 2 declared parameter(s), registered by decorator-named, with an async body (GEN-1).")
    async def _space_decorator_named_async(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        number_1: Annotated[float, Field(title="Generated", description="A Field label beside the marker"), Elicit("number_1: number, field-labels, fixed?")],
        enum_2: Annotated[Side, Field(title="Generated", description="A Field label beside the marker"), Elicit(space_decorator_named_async_enum_2)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        ran(ref)
        return said(origin=origin, number_1=number_1, enum_2=enum_2, final=final)

    def space_add_tool(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        number_1: Annotated[float, Field(ge=0, le=100), Elicit(space_add_tool_number_1)],
        boolean_2: Annotated[bool, Elicit(space_add_tool_boolean_2)],
        enum_3: Annotated[Side, Elicit("enum_3: enum, none, fixed?")],
        literal_4: Annotated[Literal["economy", "business"], Elicit(space_add_tool_literal_4)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 4 declared parameter(s), registered by add-tool, with a sync body (GEN-1)."""
        ran(ref)
        return said(origin=origin, number_1=number_1, boolean_2=boolean_2, enum_3=enum_3, literal_4=literal_4, final=final)

    app.add_tool(space_add_tool)

    async def space_add_tool_async(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        integer_1: Annotated[int, Field(title="Generated", description="A Field label beside the marker"), Elicit(space_add_tool_async_integer_1)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 1 declared parameter(s), registered by add-tool, with an async body (GEN-1)."""
        ran(ref)
        return said(origin=origin, integer_1=integer_1, final=final)

    app.add_tool(space_add_tool_async)

    def space_mismatch_1(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        string_1: Annotated[str, Elicit(space_mismatch_1_string_1)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 1 declared parameter(s), registered by add-tool, with a sync body (GEN-1)."""
        ran(ref)
        return said(origin=origin, string_1=string_1, final=final)

    app.add_tool(space_mismatch_1)

    @app.tool("space_mismatch_2", description="Generated from the declaration space: 1 declared parameter(s), registered by decorator-named, with an async body (GEN-1).")
    async def _space_mismatch_2(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        integer_1: Annotated[int, Elicit(space_mismatch_2_integer_1)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        ran(ref)
        return said(origin=origin, integer_1=integer_1, final=final)

    @app.tool("space_mismatch_3", description="Generated from the declaration space: 1 declared parameter(s), registered by decorator-named, with a sync body (GEN-1).")
    def _space_mismatch_3(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        number_1: Annotated[float, Field(ge=0, le=100), Elicit(space_mismatch_3_number_1)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        ran(ref)
        return said(origin=origin, number_1=number_1, final=final)

    @app.tool
    def space_mismatch_4(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        boolean_1: Annotated[bool, Field(title="Generated", description="A Field label beside the marker"), Elicit(space_mismatch_4_boolean_1)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 1 declared parameter(s), registered by decorator, with a sync body (GEN-1)."""
        ran(ref)
        return said(origin=origin, boolean_1=boolean_1, final=final)

    @app.tool()
    def space_mismatch_5(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        enum_1: Annotated[Side, Elicit(space_mismatch_5_enum_1)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 1 declared parameter(s), registered by decorator-called, with a sync body (GEN-1)."""
        ran(ref)
        return said(origin=origin, enum_1=enum_1, final=final)

    @app.tool("space_mismatch_6", description="Generated from the declaration space: 1 declared parameter(s), registered by decorator-named, with a sync body (GEN-1).")
    def _space_mismatch_6(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        literal_1: Annotated[Literal["economy", "business"], Elicit(space_mismatch_6_literal_1)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        ran(ref)
        return said(origin=origin, literal_1=literal_1, final=final)

    def space_mismatch_7(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        model_1: Annotated[Stop, Elicit(space_mismatch_7_model_1)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 1 declared parameter(s), registered by add-tool, with a sync body (GEN-1)."""
        ran(ref)
        return said(origin=origin, model_1=model_1, final=final)

    app.add_tool(space_mismatch_7)

    def space_mismatch_8(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        titled_1: Annotated[str, Elicit(space_mismatch_8_titled_1)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 1 declared parameter(s), registered by add-tool, with a sync body (GEN-1)."""
        ran(ref)
        return said(origin=origin, titled_1=titled_1, final=final)

    app.add_tool(space_mismatch_8)

    def space_mismatch_9(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        multi_1: Annotated[list[Literal["wifi", "meal", "lounge"]], Elicit(space_mismatch_9_multi_1)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 1 declared parameter(s), registered by add-tool, with a sync body (GEN-1)."""
        ran(ref)
        return said(origin=origin, multi_1=multi_1, final=final)

    app.add_tool(space_mismatch_9)

    def space_mismatch_10(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        optional_1: Annotated[str | None, Elicit(space_mismatch_10_optional_1)] = None,
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 1 declared parameter(s), registered by add-tool, with a sync body (GEN-1)."""
        ran(ref)
        return said(origin=origin, optional_1=optional_1, final=final)

    app.add_tool(space_mismatch_10)
