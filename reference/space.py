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


def space_decorator_integer_2(final: str) -> int:  # waits for final, then knows the answer
    return 7


def space_decorator_integer_3(origin: str) -> Elicit[int]:
    return Elicit(f"integer_3: integer, field-constraints, resolver-asks after {origin}?", response_type=Annotated[int, Field(ge=1, le=9)])


def space_decorator_enum_5(origin: str) -> Elicit[Side]:
    return Elicit(f"enum_5: enum, marker-labels, resolver-asks after {origin}?", response_type=Side, title="Your pick", description="Asked by the generated space")


def space_decorator_called_string_1(origin: str) -> str:  # waits for origin, then knows the answer
    return 'Porto'


def space_decorator_called_number_3() -> Elicit[float]:
    return Elicit("number_3: number, none, resolver-asks?", response_type=float)


def space_decorator_called_boolean_4(origin: str) -> bool:  # waits for origin, then knows the answer
    return False


def space_decorator_called_literal_5(origin: str) -> Literal["economy", "business"]:  # waits for origin, then knows the answer
    return 'economy'


def space_decorator_called_model_6(origin: str) -> Stop:  # waits for origin, then knows the answer
    return Stop(code='OPO', city='Porto')


def space_decorator_called_titled_7(origin: str) -> str:  # waits for origin, then knows the answer
    return 'eco'


def space_decorator_called_multi_8(origin: str) -> list[Literal["wifi", "meal", "lounge"]]:  # waits for origin, then knows the answer
    return ['meal']


def space_decorator_called_optional_9(origin: str) -> str:  # waits for origin, then knows the answer
    return 'Grace'


def space_decorator_named_string_1(final: str) -> Elicit[str]:
    return Elicit(f"string_1: string, marker-labels, resolver-asks before {final}?", response_type=str, title="Your pick", description="Asked by the generated space")


def space_decorator_named_enum_4() -> Side:
    return Side.AISLE


def space_decorator_named_model_5(final: str) -> Elicit[Stop]:
    return Elicit(f"model_5: model, none, resolver-asks before {final}?", response_type=Stop)


def space_decorator_named_titled_6(final: str) -> Elicit[str]:
    return Elicit(f"titled_6: titled, marker-labels, resolver-asks before {final}?", response_type=TITLED, title="Your pick", description="Asked by the generated space")


def space_decorator_named_multi_7(final: str) -> Elicit[list[Literal["wifi", "meal", "lounge"]]]:
    return Elicit(f"multi_7: multi, marker-labels, resolver-asks before {final}?", response_type=list[Literal["wifi", "meal", "lounge"]], title="Your pick", description="Asked by the generated space")


def space_decorator_named_optional_8(final: str) -> Elicit[str]:
    return Elicit(f"optional_8: optional, marker-labels, resolver-asks before {final}?", response_type=str, title="Your pick", description="Asked by the generated space")


def space_add_tool_integer_1() -> Elicit[int]:
    return Elicit("integer_1: integer, field-labels, resolver-asks?", response_type=int)


def space_add_tool_number_2(final: str) -> float:  # waits for final, then knows the answer
    return 0.5


def space_add_tool_boolean_3() -> Elicit[bool]:
    return Elicit("boolean_3: boolean, none, resolver-asks?", response_type=bool)


def space_add_tool_literal_5(final: str) -> Elicit[Literal["economy", "business"]]:
    return Elicit(f"literal_5: literal, marker-labels, resolver-asks before {final}?", response_type=Literal["economy", "business"], title="Your pick", description="Asked by the generated space")


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
        integer_2: Annotated[int, Elicit(space_decorator_integer_2)],
        integer_3: Annotated[int, Field(ge=1, le=9), Elicit(space_decorator_integer_3)],
        number_4: Annotated[float, Elicit("number_4: number, marker-labels, fixed?", title="Your pick", description="Asked by the generated space")],
        enum_5: Annotated[Side, Elicit(space_decorator_enum_5)],
        literal_6: Annotated[Literal["economy", "business"], Elicit("literal_6: literal, none, fixed?")],
        model_7: Annotated[Stop, Elicit("model_7: model, none, fixed?")],
        titled_8: Annotated[str, Elicit("titled_8: titled, none, fixed?", response_type=TITLED)],
        multi_9: Annotated[list[Literal["wifi", "meal", "lounge"]], Elicit("multi_9: multi, none, fixed?")],
        optional_10: Annotated[str | None, Elicit("optional_10: optional, none, fixed?")] = None,
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 10 declared parameter(s), registered by decorator (GEN-1)."""
        ran(ref)
        return said(origin=origin, string_1=string_1, integer_2=integer_2, integer_3=integer_3, number_4=number_4, enum_5=enum_5, literal_6=literal_6, model_7=model_7, titled_8=titled_8, multi_9=multi_9, optional_10=optional_10, final=final)

    @app.tool()
    def space_decorator_called(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        string_1: Annotated[str, Field(title="Generated", description="A Field label beside the marker"), Elicit(space_decorator_called_string_1)],
        integer_2: Annotated[int, Field(ge=1, le=9), Elicit("integer_2: integer, field-constraints, fixed?")],
        number_3: Annotated[float, Elicit(space_decorator_called_number_3)],
        boolean_4: Annotated[bool, Elicit(space_decorator_called_boolean_4)],
        literal_5: Annotated[Literal["economy", "business"], Field(title="Generated", description="A Field label beside the marker"), Elicit(space_decorator_called_literal_5)],
        model_6: Annotated[Stop, Field(title="Generated", description="A Field label beside the marker"), Elicit(space_decorator_called_model_6)],
        titled_7: Annotated[str, Field(title="Generated", description="A Field label beside the marker"), Elicit(space_decorator_called_titled_7)],
        multi_8: Annotated[list[Literal["wifi", "meal", "lounge"]], Field(title="Generated", description="A Field label beside the marker"), Elicit(space_decorator_called_multi_8)],
        optional_9: Annotated[str | None, Field(title="Generated", description="A Field label beside the marker"), Elicit(space_decorator_called_optional_9)] = None,
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 9 declared parameter(s), registered by decorator-called (GEN-1)."""
        ran(ref)
        return said(origin=origin, string_1=string_1, integer_2=integer_2, number_3=number_3, boolean_4=boolean_4, literal_5=literal_5, model_6=model_6, titled_7=titled_7, multi_8=multi_8, optional_9=optional_9, final=final)

    @app.tool("space_decorator_named", description="Generated from the declaration space: 8 declared parameter(s), registered by decorator-named (GEN-1).")
    def _space_decorator_named(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        string_1: Annotated[str, Elicit(space_decorator_named_string_1)],
        number_2: Annotated[float, Field(title="Generated", description="A Field label beside the marker"), Elicit("number_2: number, field-labels, fixed?")],
        boolean_3: Annotated[bool, Elicit("boolean_3: boolean, none, fixed?")],
        enum_4: Annotated[Side, Field(title="Generated", description="A Field label beside the marker"), Elicit(space_decorator_named_enum_4)],
        model_5: Annotated[Stop, Elicit(space_decorator_named_model_5)],
        titled_6: Annotated[str, Elicit(space_decorator_named_titled_6)],
        multi_7: Annotated[list[Literal["wifi", "meal", "lounge"]], Elicit(space_decorator_named_multi_7)],
        optional_8: Annotated[str | None, Elicit(space_decorator_named_optional_8)] = None,
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        ran(ref)
        return said(origin=origin, string_1=string_1, number_2=number_2, boolean_3=boolean_3, enum_4=enum_4, model_5=model_5, titled_6=titled_6, multi_7=multi_7, optional_8=optional_8, final=final)

    def space_add_tool(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        integer_1: Annotated[int, Field(title="Generated", description="A Field label beside the marker"), Elicit(space_add_tool_integer_1)],
        number_2: Annotated[float, Field(ge=0, le=100), Elicit(space_add_tool_number_2)],
        boolean_3: Annotated[bool, Elicit(space_add_tool_boolean_3)],
        enum_4: Annotated[Side, Elicit("enum_4: enum, none, fixed?")],
        literal_5: Annotated[Literal["economy", "business"], Elicit(space_add_tool_literal_5)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 5 declared parameter(s), registered by add-tool (GEN-1)."""
        ran(ref)
        return said(origin=origin, integer_1=integer_1, number_2=number_2, boolean_3=boolean_3, enum_4=enum_4, literal_5=literal_5, final=final)

    app.add_tool(space_add_tool)

    def space_mismatch_1(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        string_1: Annotated[str, Elicit(space_mismatch_1_string_1)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        """Generated from the declaration space: 1 declared parameter(s), registered by add-tool (GEN-1)."""
        ran(ref)
        return said(origin=origin, string_1=string_1, final=final)

    app.add_tool(space_mismatch_1)

    @app.tool("space_mismatch_2", description="Generated from the declaration space: 1 declared parameter(s), registered by decorator-named (GEN-1).")
    def _space_mismatch_2(
        ref: str,
        *,
        origin: Annotated[str, Elicit("Where does the trip start?")],
        integer_1: Annotated[int, Elicit(space_mismatch_2_integer_1)],
        final: Annotated[str, Elicit("Where does the trip end?")],
    ) -> str:
        ran(ref)
        return said(origin=origin, integer_1=integer_1, final=final)

    @app.tool("space_mismatch_3", description="Generated from the declaration space: 1 declared parameter(s), registered by decorator-named (GEN-1).")
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
        """Generated from the declaration space: 1 declared parameter(s), registered by decorator (GEN-1)."""
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
        """Generated from the declaration space: 1 declared parameter(s), registered by decorator-called (GEN-1)."""
        ran(ref)
        return said(origin=origin, enum_1=enum_1, final=final)

    @app.tool("space_mismatch_6", description="Generated from the declaration space: 1 declared parameter(s), registered by decorator-named (GEN-1).")
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
        """Generated from the declaration space: 1 declared parameter(s), registered by add-tool (GEN-1)."""
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
        """Generated from the declaration space: 1 declared parameter(s), registered by add-tool (GEN-1)."""
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
        """Generated from the declaration space: 1 declared parameter(s), registered by add-tool (GEN-1)."""
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
        """Generated from the declaration space: 1 declared parameter(s), registered by add-tool (GEN-1)."""
        ran(ref)
        return said(origin=origin, optional_1=optional_1, final=final)

    app.add_tool(space_mismatch_10)
