"""The REG adapter contract: how a target shows its registration-time errors.

Registration cannot be observed over the wire, so a target that wants the REG
cases checked provides, beside its app, a zero-argument `registration()`
returning a mapping from probe id to a zero-argument callable. Each callable
registers one tool (written in the target's own framework, as the probe id's
case in docs/behaviour.md describes) on a fresh server and returns that tool's input schema.

- `REG-1`..`REG-8`, `REG-10` and `REG-11` (with `REG-4/union`, `REG-4/list`, `REG-4/list-alias`, `REG-4/list-described`: the list inside
  an `Annotated` of its own): the wiring is wrong, so
  the callable must raise the framework's registration error: a deliberate
  refusal, not a crash while reading the declaration (row REG/refusal, MUST of
  every probe). A refusal is any exception, whatever its class, whose message
  names what is at fault (one of `AT_FAULT` below: the marked parameter, its
  resolver, the tool `book`, or the name that cannot be resolved) and which is
  not one of `INTERNAL_ERRORS`. An `IndexError`, inspect's "no signature found
  for builtin" or "isinstance expected 2 arguments" name nothing of the
  declaration, so they are crashes; a `NameError` that names the missing name
  is the library saying what is wrong. The tool each probe registers is named
  `book`. The message should also name everything in `NAMED` (SHOULD, row
  REG/clear) (REG-1: a resolver `ask` for `airport` taking `nonexistent`; REG-2:
  `outbound` and `inbound` waiting on each other; REG-3: a tool `book`; REG-4:
  `destination` in a union arm, `destinations` a list (of the marked type, or of a type
  alias of it); REG-5, REG-6: `airport`;
  REG-7: a resolver taking the tool's `ctx`; REG-8: `seats`, asked with `response_type=str`
  for an `int`; REG-8/generic, /literal, /generic-arm: the same with a parameter type that
  is not a class, `list[str]`, `Literal["one", "two"]` and `list[str] | None`, each asked
  with `response_type=int`).
  REG-1/no-signature: `seat`'s resolver is a C builtin (`max`), whose signature cannot
  be read; REG-1/not-callable: `seat`'s question is neither text nor a callable (`42`);
  REG-7/depends: `airport`'s resolver takes `home`, a tool parameter filled by an injected
  dependency (`Depends(...)` in fastmcp), which is not resolved before questions are asked; REG-5/plain: as REG-5, the resolver declared `-> Elicit[int]` alone; REG-10/name,
  REG-10/type: `seat` annotated with a string that names something not imported, or
  that fails to evaluate, with `Elicit` written in it; REG-10/prebuilt: `book(ref, seat)` with
  `seat` marked, made into a tool object by the framework's plain tool builder (fastmcp's
  `Tool.from_function`) and added as one (`server.add_tool(tool)`): refused where that
  builder never reads markers (the marker would be silently lost), or, where it reads them,
  listed like any spelling (`ref` in the schema, `seat` not); REG-11: `seat` a fixed question of
  type `int | str | None`, which no form schema can ask.
- `REG-8/fits-arm`, `REG-8/fits-subclass`, `REG-8/fits-any`, `REG-8/fits-choices`, `REG-9/optional-inside`,
  `REG-9/optional-outside`, `REG-9/type-alias`, `REG-9/partial`: the wiring is right;
  the callable returns a schema without the elicited parameter `seat` (REG-5/literal-value:
  its resolver returns `Literal["window", "aisle"] | Elicit[str]` for a `str`; REG-8/fits-*:
  `seat` takes a `response_type` it can hold: `int` for `int | str`, a subclass of
  its model, `int` for `Any`, a multiple-choice shorthand for a `list[str]`, a
  single-choice shorthand for a `str`, and (REG-8/fits-generic) `list[Literal["wifi", "meal"]]`
  for the same `list[Literal["wifi", "meal"]]`; REG-9/optional-union: `Optional[str]` spelled with
  `typing.Optional` inside `Annotated`).
- `REG-11/resolver`: right too: `seat: int | str` is asked by a resolver with no declared
  return type, which asks for `int`; what a resolver asks shows only when it runs, so the
  union (which no fixed question could ask) registers.
- `RES-2/partial`, `RES-2/partial-keyword`: right too: `seat`'s resolver is a
  `functools.partial` binding the resolver's first argument (`kind`), positionally and by
  keyword (`partial(ask, kind="seat")`), the other (`ref`) a tool argument.
- `REG-9/spelling-bare`, `-called`, `-named`, `-keyword`, `-added`: one tool `book(ref,
  seat)` registered each way the framework documents (in fastmcp: `@server.tool`,
  `@server.tool()`, `@server.tool("book", description=...)`, `@server.tool(name="book")`,
  `server.add_tool(fn)`, and `server.add_tool(tool)` with a tool object the framework's
  documented way builds from the function); the callable returns the input schema the server *lists* for
  `book` (so a tool silently dropped is found), which has `ref` and not `seat`.
- `ERA-6`, `ERA-6/prompt-called`, `ERA-6/prompt-named`, `ERA-6/resource`: a prompt
  `greet` asking `name` (registered `@server.prompt`, `@server.prompt()`,
  `@server.prompt("greet", ...)`), and a resource template `weather` asking `units`:
  each either registers (works) or raises a deliberate registration error (REG/refusal).
- `ERA-6/plain`, `ERA-6/plain-called`, `ERA-6/plain-named`: an ordinary prompt `tips(city)`
  with no marker, registered `@server.prompt`, `@server.prompt()` and `@server.prompt("tips")`
  on a fresh server: the callable returns the prompts that server lists, as a mapping from
  name to argument names (`{"tips": ["city"]}`); `tips` must be among them.

See `reference/app/registration_probes.py` for the reference's adapter.
"""

from __future__ import annotations

MUST_RAISE = (
    "REG-1", "REG-1/no-signature", "REG-1/not-callable", "REG-2", "REG-3", "REG-4/union", "REG-4/list",
    "REG-4/list-alias", "REG-4/list-described", "REG-5", "REG-5/plain", "REG-6", "REG-7", "REG-7/depends", "REG-8", "REG-8/generic",
    "REG-8/literal", "REG-8/generic-arm", "REG-10/name", "REG-10/type", "REG-11",
)
#: How a framework builds a tool object decides what this registration means: where the
#: marker is foreign to its plain builder the marker would be lost, so it must be
#: refused; where the builder reads markers itself the tool works like any spelling
#: (REG-9/spelling-tool-object). Either is right; a tool listed with `seat` is not.
REFUSED_OR_HONOURED = ("REG-10/prebuilt",)
MUST_REGISTER = (
    "REG-5/literal-value", "REG-8/fits-arm", "REG-8/fits-subclass", "REG-8/fits-any",
    "REG-8/fits-choices", "REG-8/fits-choice", "REG-8/fits-generic",
    "REG-9/optional-inside", "REG-9/optional-union", "REG-9/optional-outside", "REG-9/type-alias", "REG-9/partial",
    "RES-2/partial", "RES-2/partial-keyword", "REG-11/resolver",
)
#: Each way the framework documents to register a tool: the tool is listed (its
#: argument `ref` in the schema) and `seat` is hidden, whichever is used.
SPELLINGS = (
    "REG-9/spelling-bare", "REG-9/spelling-called", "REG-9/spelling-named", "REG-9/spelling-keyword",
    "REG-9/spelling-added", "REG-9/spelling-tool-object",
)
MAY_RAISE = ("ERA-6", "ERA-6/prompt-called", "ERA-6/prompt-named", "ERA-6/resource")
#: An ordinary prompt, each way it can be registered: refusing markers on prompts must
#: leave prompts without one alone, so it registers and is listed.
PLAIN_PROMPTS = ("ERA-6/plain", "ERA-6/plain-called", "ERA-6/plain-named")
#: What a clear registration error names, per probe (SHOULD, row REG/clear).
NAMED = {
    "REG-1": ("nonexistent",), "REG-1/no-signature": ("seat",), "REG-1/not-callable": ("seat",),
    "REG-2": ("outbound", "inbound"),
    "REG-3": ("book",), "REG-4/union": ("destination",), "REG-4/list": ("destinations",),
    "REG-4/list-alias": ("destinations",), "REG-4/list-described": ("destinations",), "REG-5": ("airport",), "REG-5/plain": ("airport",),
    "REG-6": ("airport",), "REG-7": ("ctx",), "REG-7/depends": ("home",), "REG-8": ("seats",),
    "REG-8/generic": ("seats",), "REG-8/literal": ("seats",), "REG-8/generic-arm": ("seats",), "REG-10/name": ("seat",),
    "REG-10/type": ("seat",), "REG-10/prebuilt": ("seat",), "REG-11": ("seat",),
}
#: Besides `NAMED` and the tool `book`: the resolvers and missing names a refusal may name instead.
_ALSO_AT_FAULT = {
    "REG-1": ("airport", "ask"), "REG-2": ("after_inbound", "after_outbound"),
    "REG-5": ("ask",), "REG-5/plain": ("ask",), "REG-7": ("destination", "ask"),
    "REG-7/depends": ("airport", "ask"), "REG-10/name": ("NotImported",),
}
#: What a deliberate refusal names, at least one of, per probe (MUST, row REG/refusal).
AT_FAULT = {
    probe: tuple(dict.fromkeys((*names, "book", *_ALSO_AT_FAULT.get(probe, ())))) for probe, names in NAMED.items()
} | {probe: ("greet", "name") for probe in MAY_RAISE} | {"ERA-6/resource": ("weather", "units")}
#: Each probe's declaration as a Python author writes it, for the verdict to name (the
#: tool is `book`; `Elicit(ask)` a resolver `ask`).
DECLARES = {
    "REG-1": "airport: Annotated[str, Elicit(ask)], ask(nonexistent: str)",
    "REG-1/no-signature": "seat: Annotated[str, Elicit(max)], a builtin resolver",
    "REG-1/not-callable": "seat: Annotated[str, Elicit(42)]",
    "REG-2": "outbound: Annotated[str, Elicit(after_inbound)], inbound: Annotated[str, Elicit(after_outbound)]",
    "REG-3": "destination: Annotated[str, Elicit('Where to?')], returning str | InputRequiredResult",
    "REG-4/union": "destination: Annotated[str, Elicit('Where to?')] | int",
    "REG-4/list": "destinations: list[Annotated[str, Elicit('Where to?')]]",
    "REG-4/list-alias": "destinations: list[Destination], Destination an alias of Annotated[str, Elicit(...)]",
    "REG-4/list-described": "destinations: Annotated[list[Annotated[str, Elicit('Where to?')]], Field(description=...)]",
    "REG-5": "airport: Annotated[str, Elicit(ask)], ask -> int | Elicit[int]",
    "REG-5/plain": "airport: Annotated[str, Elicit(ask)], ask -> Elicit[int]",
    "REG-5/literal-value": "seat: Annotated[str, Elicit(ask)], ask -> Literal['window', 'aisle'] | Elicit[str]",
    "REG-6": "airport: Annotated[str, Elicit('Which airport?')] = Depends(provider)",
    "REG-7": "destination: Annotated[str, Elicit(ask)], ask(ctx: Context), the tool taking ctx",
    "REG-7/depends": "airport: Annotated[str, Elicit(ask)], ask(home), home: str = Depends(home_airport)",
    "REG-8": "seats: Annotated[int, Elicit('How many seats?', response_type=str)]",
    "REG-8/generic": "seats: Annotated[list[str], Elicit('Which seats?', response_type=int)]",
    "REG-8/literal": "seats: Annotated[Literal['one', 'two'], Elicit('How many seats?', response_type=int)]",
    "REG-8/generic-arm": "seats: Annotated[list[str] | None, Elicit('Which seats?', response_type=int)] = None",
    "REG-8/fits-generic": "seat: Annotated[list[Literal['wifi', 'meal']], Elicit(..., response_type=list[Literal['wifi', 'meal']])]",
    "REG-8/fits-arm": "seat: Annotated[int | str, Elicit('Which seat?', response_type=int)]",
    "REG-8/fits-subclass": "seat: Annotated[Place, Elicit('Which seat?', response_type=Terminal)], Terminal(Place)",
    "REG-8/fits-any": "seat: Annotated[Any, Elicit('Which seat?', response_type=int)]",
    "REG-8/fits-choices": "seat: Annotated[list[str], Elicit('Which extras?', response_type=[['wifi', 'meal']])]",
    "REG-8/fits-choice": "seat: Annotated[str, Elicit('Window or aisle?', response_type=['window', 'aisle'])]",
    "REG-9/optional-inside": "seat: Annotated[str | None, Elicit('Window or aisle?')] = None",
    "REG-9/optional-union": "seat: Annotated[Optional[str], Elicit('Window or aisle?')] = None",
    "REG-9/optional-outside": "seat: Annotated[str, Elicit('Window or aisle?')] | None = None",
    "REG-9/type-alias": "seat: Seat = None, Seat an alias of Annotated[str | None, Elicit(...)]",
    "REG-9/partial": "book(cabin, seat: Annotated[str, Elicit(...)]) registered as partial(book, cabin='economy')",
    "REG-9/spelling-bare": "book(ref, seat: Annotated[str, Elicit(...)]) registered @server.tool",
    "REG-9/spelling-called": "book(ref, seat: Annotated[str, Elicit(...)]) registered @server.tool()",
    "REG-9/spelling-named": "book(ref, seat: Annotated[str, Elicit(...)]) registered @server.tool('book', description=...)",
    "REG-9/spelling-keyword": "book(ref, seat: Annotated[str, Elicit(...)]) registered @server.tool(name='book')",
    "REG-9/spelling-added": "book(ref, seat: Annotated[str, Elicit(...)]) registered server.add_tool(book)",
    "REG-9/spelling-tool-object": "book(ref, seat: Annotated[str, Elicit(...)]) added as a tool object built the documented way",
    "REG-10/name": "seat: 'Annotated[str, Elicit(...)] | NotImported', a name never imported",
    "REG-10/type": "seat: \"Annotated[str | 'Seat', Elicit(...)]\", an expression that fails to evaluate",
    "REG-10/prebuilt": "book(ref, seat: Annotated[str, Elicit(...)]) built by the plain tool builder and added",
    "REG-11": "seat: Annotated[int | str | None, Elicit('Which seat?')] = None",
    "REG-11/resolver": "seat: Annotated[int | str, Elicit(ask)], ask undeclared, asking for int",
    "RES-2/partial": "seat: Annotated[str, Elicit(partial(ask, 'seat'))], ask(kind, ref)",
    "RES-2/partial-keyword": "seat: Annotated[str, Elicit(partial(ask, kind='seat'))], ask(kind, ref)",
    "ERA-6": "a prompt greet(name: Annotated[str, Elicit(...)]) registered @server.prompt",
    "ERA-6/prompt-called": "a prompt greet(name: Annotated[str, Elicit(...)]) registered @server.prompt()",
    "ERA-6/prompt-named": "a prompt greet(name: Annotated[str, Elicit(...)]) registered @server.prompt('greet', ...)",
    "ERA-6/resource": "a resource template weather://{city} with units: Annotated[str, Elicit(...)] = 'celsius'",
    "ERA-6/plain": "an ordinary prompt tips(city: str) registered @server.prompt",
    "ERA-6/plain-called": "an ordinary prompt tips(city: str) registered @server.prompt()",
    "ERA-6/plain-named": "an ordinary prompt tips(city: str) registered @server.prompt('tips')",
}


def said(probe_id: str) -> str:
    """A probe as a verdict names it: the declaration it registers, and the probe's
    own name after the row's ("REG-10/prebuilt": "prebuilt"); the sentence already
    begins with the row's ID."""
    variant = probe_id.partition("/")[2]
    return DECLARES[probe_id] + (f" (probe {variant!r})" if variant else "")


#: Exceptions that mean a bug inside the framework, never a deliberate refusal,
#: whatever they name (a KeyError of the parameter's name is a failed lookup).
INTERNAL_ERRORS = (LookupError, AttributeError, AssertionError, RecursionError, ArithmeticError)


def is_refusal(error: BaseException, probe_id: str) -> bool:
    """Whether `error` is a deliberate registration error: not internal, and naming what is at fault."""
    from elicit_conformance.grading.checks import names

    message = str(error)
    return (
        isinstance(error, Exception) and not isinstance(error, INTERNAL_ERRORS)
        and any(names(message, name) for name in AT_FAULT[probe_id])
    )
