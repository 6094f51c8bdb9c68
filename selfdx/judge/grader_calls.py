"""Asking the `grader` model something and reading its answer strictly, with retries.

Shared by the behaviour judge and the rubric scorers: a reply that cannot be parsed is asked
again (the first attempt may come from Inspect's cache, retries bypass it, or a cached bad
answer would return every time), and after the last attempt the failure is returned with its
reason, never guessed.

With the cache on, an answer that parsed is also kept in this process's memory, per grader model
(`remembered_answers`): the same prompt with the same settings is then answered from there,
without a call, without Inspect's cache lookup and without a model event. Such a result says so
(`GraderResult.reused`), and every caller records that next to the answer in the log; the tokens
the first call took are added to the sample's store (`SERVED_KEY`, by role), so that the report
counts what a run without the memory would have used.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar
from weakref import WeakKeyDictionary

from inspect_ai.model import CachePolicy, GenerateConfig, Model, ModelUsage, get_model
from inspect_ai.util import store

Parsed = TypeVar("Parsed")
GRADER_SEED = 123
# Answers kept per grader model (an LRU of at most this many; a key is 16 bytes and an answer
# a few hundred).
REMEMBERED = 50_000
Remembered = OrderedDict[tuple[bytes, int], tuple[str, ModelUsage | None]]
_ANSWERS: WeakKeyDictionary[Model, Remembered] = WeakKeyDictionary()
# In a sample's store: {role: {"model": name, "input_tokens": n, "output_tokens": n, "calls": n}}
# of the grader
# calls answered from memory (what those calls took when they were first made).
SERVED_KEY = "selfdx:served_from_memory"
# How many of a fence's angle brackets each look-alike shows: "<" and ">" in ASCII, full-width,
# small or as HTML entities, single and double guillemets, angle brackets of other blocks.
_ANGLES = {
    **dict.fromkeys("<>\uff1c\uff1e\ufe64\ufe65\u2039\u203a\u2329\u232a\u3008\u3009", 1),
    **dict.fromkeys("\u27e8\u27e9\u276e\u276f\u276c\u276d\u1438\u1433", 1),
    **dict.fromkeys("\u00ab\u00bb\u226a\u226b\u300a\u300b\u27ea\u27eb", 2),
    **dict.fromkeys("\u22d8\u22d9", 3),
}
_LESS = "<\uff1c\ufe64\u2039\u2329\u3008\u27e8\u276e\u276c\u1438\u00ab\u226a\u300a\u27ea\u22d8"
_MORE = ">\uff1e\ufe65\u203a\u232a\u3009\u27e9\u276f\u276d\u1433\u00bb\u226b\u300b\u27eb\u22d9"
_HIDDEN = "[\u200b-\u200f\u2060-\u2064\ufeff\u00ad\u0300-\u036f]"  # shows nothing
_ENTITY = {"<": r"&lt;|&#0*60;|&#x0*3c;", ">": r"&gt;|&#0*62;|&#x0*3e;"}
# A fence marker or a look-alike of one: three angle brackets or more against a letter of any
# script (`<<<TAG`, `TAG>>>`, `REPLY›››`, `REPLY»>`, `ＲＥＰＬＹ＞＞＞`, `REPLY&gt;&gt;&gt;`,
# with zero-width marks anywhere in it), or `===`.
_FENCE_MARKER = re.compile(
    rf"(?P<open>(?:(?:{_ENTITY['<']}|[{_LESS}]){_HIDDEN}*)+)(?=[^\W\d_])"
    rf"|(?<=[^\W\d_])(?P<close>{_HIDDEN}*(?:(?:{_ENTITY['>']}|[{_MORE}]){_HIDDEN}*)+)"
    r"|={3,}",
    re.IGNORECASE,
)


def _brackets(marker: str) -> int:
    """How many angle brackets `marker` shows."""
    return len(re.findall(r"&[^;]*;", marker)) + sum(_ANGLES.get(c, 0) for c in marker)


def defang_fences(text: str) -> str:
    """`text` with every fence marker and look-alike of one split from its tag (`<<< TAG`,
    `TAG >>>`, `REPLY ›››`, `= = =`), so that text quoted inside a grading prompt can neither
    close its own fence early nor open another one. Fewer than three brackets (`REPLY>>`) are
    no marker and stay as written."""

    def split(match: re.Match[str]) -> str:
        marker = match.group()
        if match.group("open") is not None:
            return marker + " " if _brackets(marker) >= 3 else marker
        if match.group("close") is not None:
            return " " + marker if _brackets(marker) >= 3 else marker
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
    # True when the answer came from this process's memory of an identical earlier call.
    reused: bool = False

    def logged(self) -> dict[str, object]:
        """What a scorer records of the grader's answers: the raw outputs, and whether they
        were reused from an identical earlier call."""
        return {"grader_outputs": self.outputs, "grader_reused": self.reused}


def remembered_answers(grader: Model) -> Remembered:
    """The answers `grader` gave that parsed, with the tokens they took, by (md5 of the
    prompt, max tokens)."""
    answers = _ANSWERS.get(grader)
    if answers is None:
        answers = _ANSWERS[grader] = OrderedDict()
    return answers


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
    memory = remembered_answers(grader) if use_cache else None
    key = (hashlib.md5(prompt.encode()).digest(), max_tokens)
    if memory is not None and key in memory:
        answer, usage = memory[key]
        try:
            result.parsed = parse(answer)
        except ValueError:
            pass  # another caller's parser: ask the model
        else:
            memory.move_to_end(key)
            result.outputs.append(answer)
            result.reused = True
            count_served(role, result.model, usage)
            return result
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
        if memory is not None:
            memory[key] = (output.completion, output.usage)
            memory.move_to_end(key)
            if len(memory) > REMEMBERED:
                memory.popitem(last=False)
        return result
    result.error = f"unparsed after {attempts} attempts: {error}"
    result.reason = reason
    return result


def count_served(role: str, model: str, usage: ModelUsage | None) -> None:
    """Add a call answered from memory to the sample's tally (`SERVED_KEY`), by role; a role
    played by another model later (a re-judging by `inspect score`) is counted apart, as
    `<role> (<model>)`, so that the run's own judge is not charged for it."""
    tally = dict(store().get(SERVED_KEY, {}))
    if role in tally and tally[role].get("model") not in (model, "", None):
        role = f"{role} ({model})"
    empty = {"model": model, "input_tokens": 0, "output_tokens": 0, "calls": 0}
    seen = dict(tally.get(role, empty))
    seen["input_tokens"] += usage.input_tokens if usage else 0
    seen["output_tokens"] += usage.output_tokens if usage else 0
    seen["calls"] += 1
    tally[role] = seen
    store().set(SERVED_KEY, tally)
