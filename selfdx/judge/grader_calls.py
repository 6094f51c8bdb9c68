"""Asking the `grader` model something and reading its answer strictly, with retries.

Shared by the behaviour judge and the rubric scorers: a reply that cannot be parsed is asked
again (the first attempt may come from Inspect's cache, retries bypass it, or a cached bad
answer would return every time), and after the last attempt the failure is returned with its
reason, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from inspect_ai.model import CachePolicy, GenerateConfig, get_model

Parsed = TypeVar("Parsed")
GRADER_SEED = 123
_FENCE_MARKER = re.compile(r"<<<(?=[A-Za-z])|(?<=[A-Za-z])>>>|={3,}")


def defang_fences(text: str) -> str:
    """`text` with every fence marker split (`<<< TAG`, `TAG >>>`, `= = =`), so that text quoted
    inside a grading prompt can neither close its own fence early nor open another one."""

    def split(match: re.Match[str]) -> str:
        marker = match.group()
        if marker == "<<<":
            return "<<< "
        if marker == ">>>":
            return " >>>"
        return " ".join(marker)

    return _FENCE_MARKER.sub(split, text)


class GraderParseError(ValueError):
    """A grader answer that does not follow the requested format; the message says why.

    `reason` names the kind of failure in counts: `format` by default; the behaviour judge's
    `echo` marks an answer that repeats what it was asked to describe.
    """

    reason = "format"


@dataclass
class GraderResult(Generic[Parsed]):
    """Every raw answer, and the parsed value or why there is none."""

    outputs: list[str] = field(default_factory=list)
    parsed: Parsed | None = None
    error: str | None = None
    model: str = ""
    # The kind of the last attempt's failure (`format`, `echo`); None when parsed.
    reason: str | None = None


async def ask_grader(
    prompt: str,
    parse: Callable[[str], Parsed],
    attempts: int = 3,
    max_tokens: int = 128,
    use_cache: bool = True,
    role: str = "grader",
) -> GraderResult[Parsed]:
    """Send `prompt` to the `role` model (`grader` by default) at temperature 0 and parse
    the answer.

    `parse` raises `ValueError` (or a subclass) on a malformed answer; the call is repeated up
    to `attempts` times in all.
    """
    grader = get_model(role=role, required=True)
    config = GenerateConfig(temperature=0.0, max_tokens=max_tokens, seed=GRADER_SEED)
    result: GraderResult[Parsed] = GraderResult(model=str(grader))
    error, reason = "", "format"
    for attempt in range(1, attempts + 1):
        first = use_cache and attempt == 1
        cache: bool | CachePolicy = CachePolicy(expiry=None) if first else False
        output = await grader.generate(prompt, config=config, cache=cache)
        result.outputs.append(output.completion)
        try:
            result.parsed = parse(output.completion)
        except ValueError as parse_error:
            error = str(parse_error)
            reason = getattr(parse_error, "reason", "format")
            continue
        return result
    result.error = f"unparsed after {attempts} attempts: {error}"
    result.reason = reason
    return result
