"""Reading a tool's signature into the questions it declares, once, at registration.

Every wiring mistake the signature can reveal is raised here as a
`RegistrationError`, so it fails at import instead of on the first call in
production (REG-1..REG-9).
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import UnionType
from typing import Annotated, Any, get_args, get_origin

import mcp_types
from uncalled_for import Dependency, get_dependency_parameters

from elicit_conformance.reference.answers import shape_for, split_annotated
from elicit_conformance.reference.markers import Elicit


class RegistrationError(TypeError):
    """A tool's declared questions cannot work as written."""


@dataclass(frozen=True)
class Question:
    """One elicited parameter, as its signature declares it."""

    name: str
    marker: Elicit[Any]
    #: The type the answer must have, `Field(...)` metadata included; `None`
    #: arms of an optional parameter are dropped (a decline leaves the default).
    answer_type: Any
    #: Position in the tool's signature: the order questions of one round go out.
    position: int
    has_default: bool
    default: Any
    #: Names the resolver takes by name: tool arguments and other answers.
    needs: tuple[str, ...]

    @property
    def resolver(self) -> Callable[..., Any] | None:
        message = self.marker.message
        return None if isinstance(message, str) else message


def read_questions(fn: Callable[..., Any]) -> tuple[Question, ...]:
    """The questions `fn` declares, in an order where each follows what it needs.

    Raises:
        RegistrationError: For any wiring that cannot work.
    """
    name = name_of(fn)
    signature = inspect.signature(fn)
    hints = annotations_of(fn)
    injected = _injected_names(fn, signature, hints)

    found: dict[str, Question] = {}
    for position, (param_name, parameter) in enumerate(signature.parameters.items()):
        annotation = _unalias(hints.get(param_name, parameter.annotation))
        marker, answer_type = _marker_of(annotation)
        if marker is None:
            if _buries_marker(annotation):
                raise RegistrationError(
                    f"Parameter {param_name!r} of {name!r} has Elicit(...) buried "
                    "inside another type, where it cannot fill the parameter. "
                    "Annotate the parameter itself: Annotated[T, Elicit(...)]."
                )
            continue
        if isinstance(parameter.default, Dependency):
            raise RegistrationError(
                f"Parameter {param_name!r} of {name!r} is both elicited and filled "
                "by Depends(...); the answer would be overwritten. Pick one."
            )
        has_default = parameter.default is not inspect.Parameter.empty
        found[param_name] = Question(
            name=param_name,
            marker=marker,
            answer_type=answer_type,
            position=position,
            has_default=has_default,
            default=parameter.default if has_default else None,
            needs=_resolver_needs(marker, param_name, name),
        )
    if not found:
        return ()

    if _returns_input_required(hints.get("return")):
        raise RegistrationError(
            f"Tool {name!r} declares Elicit(...) parameters and also returns an "
            "InputRequiredResult. A call has one channel for gathering input: "
            "declare every question, or drive the rounds from the body, not both."
        )
    for question in found.values():
        _check_wiring(question, found, signature, injected, name)
        _check_types(question, name)
    return _dependency_order(found, name)


def unpartial(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The function behind any `functools.partial` layers."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return fn


def name_of(fn: Callable[..., Any]) -> str:
    target = unpartial(fn)
    return getattr(target, "__name__", None) or type(target).__name__


def annotations_of(fn: Callable[..., Any]) -> dict[str, Any]:
    """Resolved annotations, `Annotated` metadata kept.

    A partial has none of its own: the wrapped function's are read, and its
    signature says which parameters are still open (REG-9).
    """
    target = unpartial(fn)
    try:
        return typing.get_type_hints(target, include_extras=True)
    except (NameError, TypeError) as error:
        raw = dict(getattr(target, "__annotations__", {}))
        marked = [name for name, a in raw.items() if isinstance(a, str) and "Elicit" in a]
        if marked:
            raise RegistrationError(
                f"The annotations of {name_of(fn)!r} cannot be resolved ({error}), so the "
                f"Elicit markers of {', '.join(map(repr, marked))} would be silently lost. "
                "Import the names they use at module level."
            ) from error
        return raw


def _unalias(annotation: Any) -> Any:
    """See through `type X = ...` aliases, which hide their `Annotated` (REG-9)."""
    while hasattr(annotation, "__value__") and get_origin(annotation) is None:
        annotation = annotation.__value__
    return annotation


def _marker_of(annotation: Any) -> tuple[Elicit[Any] | None, Any]:
    """The parameter's marker and the type its answer must have (`annotation`
    already seen through any alias).

    Both optional spellings are accepted: `Annotated[T | None, Elicit()]` and
    `Annotated[T, Elicit()] | None`.
    """
    if get_origin(annotation) in (typing.Union, UnionType):
        arms = [_unalias(arm) for arm in get_args(annotation) if arm is not type(None)]
        if len(arms) != 1 or get_origin(arms[0]) is not Annotated:
            return None, None
        annotation = arms[0]
    base, metadata = split_annotated(annotation)
    markers = [m for m in metadata if isinstance(m, Elicit)]
    if not markers:
        return None, None
    rest = tuple(m for m in metadata if not isinstance(m, Elicit))
    base = _without_none(_unalias(base))
    answer_type = Annotated[(base, *rest)] if rest else base  # type: ignore[valid-type]
    return markers[0], answer_type


def _without_none(tp: Any) -> Any:
    if get_origin(tp) not in (typing.Union, UnionType):
        return tp
    arms = [arm for arm in get_args(tp) if arm is not type(None)]
    return arms[0] if len(arms) == 1 else typing.Union[tuple(arms)]  # noqa: UP007


def _buries_marker(annotation: Any) -> bool:
    annotation = _unalias(annotation)
    if get_origin(annotation) is Annotated:
        base, metadata = split_annotated(annotation)
        return any(isinstance(m, Elicit) for m in metadata) or _buries_marker(base)
    return any(_buries_marker(arg) for arg in get_args(annotation))


def _injected_names(
    fn: Callable[..., Any], signature: inspect.Signature, hints: Mapping[str, Any]
) -> set[str]:
    """Parameters filled by the framework (Context, Depends), not by the model."""
    from fastmcp.server.context import Context

    names = set(get_dependency_parameters(fn))
    for param_name in signature.parameters:
        hint = hints.get(param_name)
        base, _ = split_annotated(hint)
        if isinstance(base, type) and issubclass(base, Context):
            names.add(param_name)
    return names


def _resolver_needs(marker: Elicit[Any], param_name: str, fn_name: str) -> tuple[str, ...]:
    resolver = marker.message
    if isinstance(resolver, str):
        return ()
    if not callable(resolver):
        raise RegistrationError(
            f"The question for {param_name!r} of {fn_name!r} must be a string or "
            f"a resolver function, not {type(resolver).__name__}."
        )
    try:
        parameters = inspect.signature(resolver).parameters
    except (TypeError, ValueError) as error:
        raise RegistrationError(
            f"The resolver for {param_name!r} of {fn_name!r} has no readable signature."
        ) from error
    # A resolver's own Depends(...) and what a functools.partial already bound
    # are filled without the tool.
    own = set(get_dependency_parameters(resolver)) | _bound_keywords(resolver)
    return tuple(p for p in parameters if p not in own)


def _bound_keywords(resolver: Any) -> set[str]:
    bound: set[str] = set()
    while isinstance(resolver, functools.partial):
        bound |= set(resolver.keywords)
        resolver = resolver.func
    return bound


def _check_wiring(
    question: Question,
    found: Mapping[str, Question],
    signature: inspect.Signature,
    injected: set[str],
    fn_name: str,
) -> None:
    for need in question.needs:
        if need == question.name:
            raise RegistrationError(
                f"The resolver for {question.name!r} of {fn_name!r} asks for its "
                "own answer."
            )
        if need in injected:
            raise RegistrationError(
                f"The resolver for {question.name!r} of {fn_name!r} takes {need!r}, "
                "which the framework injects only after elicitation. Declare the "
                f"dependency on the resolver itself: {need}=Depends(...)."
            )
        if need not in signature.parameters:
            raise RegistrationError(
                f"The resolver for {question.name!r} of {fn_name!r} takes {need!r}, "
                "which is not a parameter of the tool. A resolver can only use the "
                "tool's arguments and other elicited parameters."
            )


def _check_types(question: Question, fn_name: str) -> None:
    fixed = question.marker.response_type
    if fixed is not None and not _holds(question.answer_type, fixed):
        raise RegistrationError(
            f"Parameter {question.name!r} of {fn_name!r} is annotated "
            f"{question.answer_type!r} but its Elicit asks for {fixed!r}, which the "
            "parameter cannot hold."
        )
    if question.resolver is None:
        _check_askable(question, fixed if fixed is not None else question.answer_type, fn_name)
    declared = _declared_answer_type(question.resolver)
    if declared is not None and not _same_type(declared, question.answer_type):
        raise RegistrationError(
            f"The resolver for {question.name!r} of {fn_name!r} declares it elicits "
            f"{declared!r}, but the parameter is annotated {question.answer_type!r}. "
            "Make the two agree."
        )


def _check_askable(question: Question, asked: Any, fn_name: str) -> None:
    """A fixed question's schema is known now: build it, so a type form elicitation
    cannot ask (a union of scalars, say) fails here and not on the first call (REG-11)."""
    try:
        shape_for(asked, title=question.marker.title, description=question.marker.description)
    except (TypeError, ValueError) as error:
        raise RegistrationError(
            f"Parameter {question.name!r} of {fn_name!r} cannot be asked as {asked!r}: "
            f"{error} Ask for one scalar, a choice, a list of choices, or a flat model."
        ) from error


def _declared_answer_type(resolver: Callable[..., Any] | None) -> Any | None:
    """The `T` of a resolver's `-> ... | Elicit[T]` return annotation, if any."""
    if resolver is None:
        return None
    try:
        returns = typing.get_type_hints(resolver, include_extras=True).get("return")
    except (NameError, TypeError):
        return None
    arms = get_args(returns) if get_origin(returns) in (typing.Union, UnionType) else (returns,)
    for arm in arms:
        if get_origin(arm) is Elicit and get_args(arm):
            return get_args(arm)[0]
    return None


def _same_type(a: Any, b: Any) -> bool:
    return split_annotated(a)[0] == split_annotated(b)[0]


def _holds(annotation: Any, asked: Any) -> bool:
    """Whether every answer of type `asked` is a valid `annotation`."""
    target, _ = split_annotated(annotation)
    asked, _ = split_annotated(_shorthand_answer(asked))
    # `_without_none` has rebuilt any union of the parameter as a typing.Union.
    targets = get_args(target) if get_origin(target) is typing.Union else (target,)
    if target is Any or asked in targets:
        return True
    return any(
        isinstance(asked, type) and isinstance(t, type) and issubclass(asked, t)
        for t in targets
    )


def _shorthand_answer(asked: Any) -> Any:
    """The answer type of fastmcp's choice shorthands: `{"a": {"title": ..}}` and
    `["a", "b"]` answer a string, `[["a", "b"]]` a list of strings."""
    if isinstance(asked, dict):
        return str
    if isinstance(asked, list):
        return list[str] if asked and isinstance(asked[0], (list, dict)) else str
    return asked


def _returns_input_required(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, mcp_types.InputRequiredResult):
        return True
    return any(_returns_input_required(arg) for arg in get_args(annotation))


def _dependency_order(found: dict[str, Question], fn_name: str) -> tuple[Question, ...]:
    """Order questions so each follows those it needs (REG-2 on a cycle)."""
    ordered: dict[str, Question] = {}
    visiting: list[str] = []

    def visit(name: str) -> None:
        if name in ordered:
            return
        if name in visiting:
            cycle = " -> ".join([*visiting[visiting.index(name):], name])
            raise RegistrationError(
                f"The elicited parameters of {fn_name!r} wait on each other in a "
                f"cycle: {cycle}. Break it by building one question without the other."
            )
        visiting.append(name)
        for need in found[name].needs:
            if need in found:
                visit(need)
        visiting.pop()
        ordered[name] = found[name]

    for name in found:
        visit(name)
    return tuple(ordered.values())
