"""Task and command arguments checked against their declared types, with one-line errors.

`inspect eval -T name=value` reads values as YAML, so `judge_attempts=abc` arrives as the string
"abc" and `judge_cache=maybe` as "maybe"; Python callers can pass anything. `checked` validates
a value against a type (pydantic, strict: no silent coercion of "3" or 1.0 or true to an int)
and raises `ArgumentError` naming the argument, what it takes and what it got.
"""

from __future__ import annotations

import contextvars
import difflib
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Any, get_args

from inspect_ai.model import model_roles
from pydantic import Field, TypeAdapter, ValidationError

from selfdx.errors import ArgumentError, ScorerArgumentError

PositiveInt = Annotated[int, Field(ge=1)]
NonNegativeInt = Annotated[int, Field(ge=0)]
Text = Annotated[str, Field(min_length=1)]


ArgList = int | str | Sequence[int | str] | None


def listed(argument: str, value: ArgList) -> list[str] | None:
    """A task argument given as a list, a comma-separated string or one value, as a list of
    stripped strings (None for None): `-T types=1,2` reaches a task as a list, `-T types=3` as
    an int and `types="1,2"` as a string. An empty list is an ArgumentError naming `argument`."""
    if value is None:
        return None
    raw: Iterable[int | str]
    if isinstance(value, str):
        raw = value.split(",")
    elif isinstance(value, int) and not isinstance(value, bool):
        raw = [value]
    elif isinstance(value, Sequence):
        raw = value
    else:
        raise ArgumentError(f"{argument}: expected a value or a list, got {value!r}")
    parts: list[str] = []
    for part in raw:
        if isinstance(part, bool) or not isinstance(part, int | str):
            raise ArgumentError(f"{argument}: {part!r} is neither a number nor a name")
        text = str(part).strip()
        parts.extend(piece.strip() for piece in text.split(",") if piece.strip())
    if not parts:
        raise ArgumentError(f"{argument}: the list is empty")
    return parts


def checked(name: str, value: Any, kind: Any, takes: str | None = None) -> Any:
    """`value` if it is of type `kind`, else `ArgumentError` ("name: takes ..., got ...").

    `takes` describes the accepted values in words; without it, pydantic's reason is used.
    """
    try:
        return TypeAdapter(kind).validate_python(value, strict=True)
    except ValidationError as error:
        reason = takes or error.errors()[0]["msg"].replace("Input should", "should")
        raise ArgumentError(f"{name}: {reason}, got {value!r}") from None


def choice(name: str, value: Any, kind: Any) -> Any:
    """`value` if it is one of the values of the `Literal` type `kind`, else `ArgumentError`
    listing them."""
    return checked(name, value, kind, f"expected one of {', '.join(map(str, get_args(kind)))}")


def positive_int(name: str, value: Any) -> int:
    return checked(name, value, PositiveInt, "expected a whole number >= 1")


def flag(name: str, value: Any) -> bool:
    return checked(name, value, bool, "expected true or false")


def text(name: str, value: Any, what: str = "a non-empty string") -> str:
    if isinstance(value, str) and not value.strip():
        value = value.strip()
    return checked(name, value, Text, f"expected {what}")


def roles_of_this_eval() -> dict[str, Any] | None:
    """The model roles of the evaluation being set up, or None outside one.

    Inspect binds `--model-role` before it builds the tasks of `inspect eval` / `eval()` /
    `eval_set()` by name, so a task can check its roles before any sample runs. A task built
    by hand (`eval(safe_psych(), model_roles=...)`) is built before the roles exist: None.
    """
    unset = contextvars.Context().run(model_roles)
    current = model_roles()
    return None if current is unset else current


def require_role(role: str, needed_by: str, offline: str, instead: str | None = None) -> None:
    """Stop before any sample runs when the evaluation has no model for `role`: name the
    offline model for it (`offline`), or what to give instead of the role (`instead`, such as
    a task argument), where no offline model plays it."""
    roles = roles_of_this_eval()
    if roles is not None and role not in roles:
        hint = instead if instead is not None else f"--model-role {role}={offline}"
        raise ArgumentError(
            f"{needed_by} needs a model for the '{role}' role: add --model-role "
            f"{role}=<provider/model> (offline: {hint})"
        )


def reject_unknown(
    task: str,
    unknown: dict[str, Any],
    known: Callable[..., Any],
    error: Callable[[str], Exception] = ArgumentError,
) -> None:
    """Stop a task built with an argument it does not have (`-T stratgy=...`), naming the
    nearest one: Inspect would only warn and run the default experiment. `model`, which
    Inspect passes to every task, is not an argument of selfdx's."""
    names = [n for n in inspect.signature(known).parameters if n != "unknown"]
    for name in unknown:
        if name == "model":
            continue
        near = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
        hint = f" (did you mean {near[0]}?)" if near else ""
        raise error(f"{task}: no argument {name!r}{hint}; its arguments are {', '.join(names)}")


def reject_unknown_scorer_args(
    scorer: str, unknown: dict[str, Any], known: Callable[..., Any]
) -> None:
    """`reject_unknown` for a scorer's arguments (`-S name=value`), in one line."""
    reject_unknown(scorer, unknown, known, ScorerArgumentError)


def normalise_parts(part: str | Sequence[str], parts: Sequence[str]) -> list[str]:
    """A check's `part` argument as a list of the `parts` of its labelled set (dev, heldout), or
    all of them for `all`."""
    names = [p.strip() for p in (part.split(",") if isinstance(part, str) else part)]
    names = [n for n in names if n]
    if names == ["all"]:
        return list(parts)
    bad = [n for n in names if n not in parts]
    if bad or not names:
        raise ArgumentError(f"part: {', '.join(bad) or 'nothing'} is not {', '.join(parts)} or all")
    return list(dict.fromkeys(names))
