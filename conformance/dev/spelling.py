"""The declaration space's tools written in two Python frameworks' own spelling.

`python -m elicit_conformance.dev.space` calls these to write the reference's module
(`reference/space.py`, the proposal's `Annotated[T, Elicit(...)]`) and the MCP
SDK peer's (`fixtures/peers/mcp_sdk_space.py`, the SDK's `Resolve(...)`). Each is
plain source a reviewer reads, with no reflection: what a server author would
have written for the same declarations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .space import Declaration, Generated

#: What every generated module starts with: the answer types the space uses, and
#: the body's rendering (`name=JSON` in signature order, joined by '; ').
_SHARED = '''
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
'''

_TYPES = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "enum": "Side",
    "literal": 'Literal["economy", "business"]',
    "model": "Stop",
    "titled": 'Literal["eco", "biz"]',
    "multi": 'list[Literal["wifi", "meal", "lounge"]]',
    "optional": "str",
}
_CONSTRAINTS = {"integer": "ge=1, le=9", "number": "ge=0, le=100"}
_FIELD_LABELS = 'title="Generated", description="A Field label beside the marker"'
_MARKER_LABELS = 'title="Your pick", description="Asked by the generated space"'
_OTHER = {"integer": "int", "string": "str"}


def _value(kind: str, value: Any) -> str:
    """A resolved value as Python source."""
    if kind == "enum":
        return f"Side.{value.upper()}"
    if kind == "model":
        return "Stop(" + ", ".join(f"{k}={v!r}" for k, v in value.items()) + ")"
    return repr(value)


def _quoted(row: Declaration, param: str, quote: str) -> str:
    """The message as a Python string: an f-string quoting `quote` (the anchor's
    value expression) when the resolver waits for one."""
    text = row.message(param)
    if row.waits_for is None:
        return f'"{text}"'
    return 'f"' + text.replace("{" + row.waits_for + "}", "{" + quote + "}") + '"'


def _header(docstring: str, imports: str) -> str:
    return f'"""{docstring}"""\n\n{imports}\n{_SHARED}'


def _tool_source(tool: Generated, decorator: str | None, params: list[str], body: list[str]) -> list[str]:
    """One generated tool inside `register`: decorated (or added, with no decorator),
    taking `ref` and `params`, its docstring its description unless the decorator
    gives it one."""
    fn = f"_{tool.name}" if tool.spelling == "decorator-named" else tool.name
    define = "async def" if tool.body == "async" else "def"
    lines = ["", *([f"    {decorator}"] if decorator else []), f"    {define} {fn}(", "        ref: str,",
             *(f"        {p}," for p in params), "    ) -> str:"]
    if tool.spelling != "decorator-named":
        lines.append(f'        """{tool.description}"""')
    lines += [f"        {line}" for line in body]
    if decorator is None:
        lines += ["", f"    app.add_tool({fn})"]
    return lines


def _resolver(tool: str, param: str) -> str:
    """The name of the resolver behind a generated parameter: unique across tools."""
    return f"{tool}_{param}"


# -- the reference: Annotated[T, Elicit(...)] ----------------------------------------------


def reference_profile(tools: list[Generated], space: Mapping[str, Any]) -> str:
    """reference/space.py: the resolvers, then `register(app, ran)` adding each tool
    with its spelling."""
    docstring = (
        "The declaration space (GEN-1) in the reference's Python spelling.\n\n"
        "Written by `python -m elicit_conformance.dev.space` from fixtures/space.json: do not\n"
        "edit; change the axes and regenerate. Each tool is what a server author would\n"
        "write for the declarations the catalog lists under its name.\n"
    )
    imports = (
        "import enum\nimport json\nfrom collections.abc import Callable\n"
        "from typing import Annotated, Any, Literal\n\nfrom pydantic import BaseModel, Field\n\n"
        "from elicit_conformance.reference import DeclarativeFastMCP, Elicit\n\n"
        'TITLED = {"eco": {"title": "Economy"}, "biz": {"title": "Business class"}}\n'
    )
    resolvers = [_reference_resolver(t.name, p, r, space) for t in tools for p, r in t.declarations if r.form != "fixed"]
    lines = [_header(docstring, imports), *("\n" + r for r in resolvers), "",
             "def register(app: DeclarativeFastMCP, ran: Callable[[str], None]) -> None:",
             '    """Add every generated tool to `app`; `ran(ref)` counts a body run."""']
    anchors = space["anchors"]
    for tool in tools:
        decorator = {
            "decorator": "@app.tool",
            "decorator-called": "@app.tool()",
            "decorator-named": f'@app.tool("{tool.name}", description="{tool.description}")',
        }.get(tool.spelling)
        # Keyword-only: an optional question may come before required ones.
        params = ["*", f'origin: Annotated[str, Elicit("{anchors["origin"]["message"]}")]',
                  *(_reference_parameter(tool.name, p, r) for p, r in tool.declarations),
                  f'final: Annotated[str, Elicit("{anchors["final"]["message"]}")]']
        names = ["origin", *(p for p, _ in tool.declarations), "final"]
        lines += _tool_source(tool, decorator, params, ["ran(ref)", "return said(" + ", ".join(f"{n}={n}" for n in names) + ")"])
    return "\n".join(lines) + "\n"


def _reference_type(row: Declaration) -> str:
    """The type a resolver asks for: the parameter's, with its Field constraints."""
    if row.type == "titled":
        return "TITLED"
    if row.metadata == "field-constraints":
        return f"Annotated[{_TYPES[row.type]}, Field({_CONSTRAINTS[row.type]})]"
    return _TYPES[row.type]


def _reference_base(row: Declaration) -> str:
    """The parameter's type: a titled choice is a `str` whose options the marker gives."""
    return "str" if row.type == "titled" else _TYPES[row.type]


def _reference_labels(row: Declaration) -> str:
    return f", {_MARKER_LABELS}" if row.metadata == "marker-labels" else ""


def _reference_resolver(tool: str, param: str, row: Declaration, space: Mapping[str, Any]) -> str:
    name = _resolver(tool, param)
    args = f"{row.waits_for}: str" if row.waits_for else ""
    text = _quoted(row, param, row.waits_for or "")
    base = _reference_base(row)
    if row.form == "resolver-value":
        comment = f"  # waits for {row.waits_for}, then knows the answer" if row.waits_for else ""
        return (f"def {name}({args}) -> {base}:{comment}\n"
                f"    return {_value(row.type, space['types'][row.type]['resolved'])}\n")
    if row.fails:
        other = _OTHER[space["types"][row.type]["other"]["type"]]
        return (f"def {name}({args}):  # type: ignore[no-untyped-def]  # undeclared: only a call shows the type\n"
                f"    return Elicit({text}, response_type={other}{_reference_labels(row)})\n")
    return (f"def {name}({args}) -> Elicit[{base}]:\n"
            f"    return Elicit({text}, response_type={_reference_type(row)}{_reference_labels(row)})\n")


def _reference_parameter(tool: str, param: str, row: Declaration) -> str:
    base = _reference_base(row) + (" | None" if row.type == "optional" else "")
    metadata = {"field-constraints": f"Field({_CONSTRAINTS.get(row.type)})",
                "field-labels": f"Field({_FIELD_LABELS})"}.get(row.metadata)
    if row.form == "fixed":
        choices = ", response_type=TITLED" if row.type == "titled" else ""
        marker = f'Elicit("{row.message(param)}"{choices}{_reference_labels(row)})'
    else:
        marker = f"Elicit({_resolver(tool, param)})"
    inside = ", ".join(x for x in (base, metadata, marker) if x)
    return f"{param}: Annotated[{inside}]" + (" = None" if row.type == "optional" else "")


# -- the MCP SDK: Annotated[Model, Resolve(resolver)] ---------------------------------------


def mcp_sdk_profile(tools: list[Generated], space: Mapping[str, Any]) -> str:
    """fixtures/peers/mcp_sdk_space.py: per question an answer model and a resolver,
    then `register(app, runs)` adding each tool with the SDK's nearest spelling."""
    docstring = (
        "The declaration space (GEN-1) in the MCP SDK's spelling, for the SDK peer.\n\n"
        "Written by `python -m elicit_conformance.dev.space` from fixtures/space.json: do not\n"
        "edit. The SDK asks through resolvers: `Annotated[Model, Resolve(fn)]`, where `fn`\n"
        "returns `Elicit(message, Model)` to ask, or a `Model` when it knows the answer.\n"
        "So a fixed question is a resolver with no inputs; its answer is a model whose\n"
        "`value` field carries the type, the constraints and the question's labels (the\n"
        "SDK's place for them); `Field` labels sit beside `Resolve` on the parameter; a\n"
        "resolver waits for another answer by taking it as a resolved dependency; an\n"
        "optional question that is asked is an `ElicitationResult[Model]`. The SDK\n"
        "documents no bare `@app.tool`, so both decorator spellings are `@app.tool()`.\n"
    )
    imports = (
        "import enum\nimport json\nfrom collections import Counter\n"
        "from typing import Annotated, Any, Literal\n\n"
        "from mcp.server.mcpserver import AcceptedElicitation, Elicit, ElicitationResult, MCPServer, Resolve\n"
        "from pydantic import BaseModel, Field\n"
    )
    anchors = space["anchors"]
    blocks = [
        "class Text(BaseModel):\n    value: str\n",
        "class Number(BaseModel):\n    value: int\n",
        *(f'def space_{a}() -> Elicit[Text]:\n    return Elicit("{anchors[a]["message"]}", Text)\n' for a in anchors),
    ]
    for tool in tools:
        for param, row in tool.declarations:
            blocks += _sdk_question(tool.name, param, row, space)
    lines = [_header(docstring, imports), *("\n" + b for b in blocks), "",
             "def register(app: MCPServer, runs: Counter[str]) -> None:",
             '    """Add every generated tool to `app`; `runs[ref]` counts a body run."""']
    for tool in tools:
        decorator = {
            "decorator": "@app.tool()",
            "decorator-called": "@app.tool()",
            "decorator-named": f'@app.tool(name="{tool.name}", description="{tool.description}")',
        }.get(tool.spelling)
        params = ["origin: Annotated[Text, Resolve(space_origin)]",
                  *(_sdk_parameter(tool.name, p, r) for p, r in tool.declarations),
                  "final: Annotated[Text, Resolve(space_final)]"]
        values = ["origin=origin.value", *(f"{p}={_sdk_unwrap(p, r)}" for p, r in tool.declarations),
                  "final=final.value"]
        lines += _tool_source(tool, decorator, params, ["runs[ref] += 1", "return said(" + ", ".join(values) + ")"])
    return "\n".join(lines) + "\n"


def _camel(*parts: str) -> str:
    return "".join(word.capitalize() for part in parts for word in part.split("_"))


def _sdk_question(tool: str, param: str, row: Declaration, space: Mapping[str, Any]) -> list[str]:
    """The answer model (a model question answers with `Stop` itself) and the resolver."""
    model = "Stop" if row.type == "model" else _camel(tool, param)
    blocks = []
    if row.type != "model":
        field = []
        if row.metadata == "field-constraints":
            field.append(_CONSTRAINTS[row.type])
        if row.metadata == "marker-labels":
            field.append(_MARKER_LABELS)
        if row.type == "titled":
            field.append('json_schema_extra={"oneOf": [{"const": "eco", "title": "Economy"}, '
                         '{"const": "biz", "title": "Business class"}]}')
        spec = f" = Field({', '.join(field)})" if field else ""
        blocks.append(f"class {model}(BaseModel):\n    value: {_TYPES[row.type]}{spec}\n")
    name = _resolver(tool, param)
    args = f"{row.waits_for}: Annotated[Text, Resolve(space_{row.waits_for})]" if row.waits_for else ""
    text = _quoted(row, param, f"{row.waits_for}.value")
    if row.form == "resolver-value":
        resolved = _value(row.type, space["types"][row.type]["resolved"])
        value = resolved if row.type == "model" else f"{model}(value={resolved})"
        comment = f"  # waits for {row.waits_for}, then knows the answer" if row.waits_for else ""
        blocks.append(f"def {name}({args}) -> {model}:{comment}\n    return {value}\n")
    elif row.fails:
        other = {"integer": "Number", "string": "Text"}[space["types"][row.type]["other"]["type"]]
        blocks.append(f"def {name}({args}):  # type: ignore[no-untyped-def]  # undeclared: only a call shows the type\n"
                      f"    return Elicit({text}, {other})\n")
    else:
        blocks.append(f"def {name}({args}) -> Elicit[{model}]:\n    return Elicit({text}, {model})\n")
    return blocks


def _sdk_parameter(tool: str, param: str, row: Declaration) -> str:
    model = "Stop" if row.type == "model" else _camel(tool, param)
    if row.type == "optional" and row.asked:
        model = f"ElicitationResult[{model}]"
    labels = f"Field({_FIELD_LABELS}), " if row.metadata == "field-labels" else ""
    return f"{param}: Annotated[{model}, {labels}Resolve({_resolver(tool, param)})]"


def _sdk_unwrap(param: str, row: Declaration) -> str:
    """The plain value the body renders."""
    if row.type == "model":
        return param
    if row.type == "optional" and row.asked:
        return f"{param}.data.value if isinstance({param}, AcceptedElicitation) else None"
    return f"{param}.value"
