"""A question reader served by a model: the `reader` role reads a doctor's turn.

The model is shown the profile's topics (id and what each is about), the turn before a
follow-up, and the doctor's turn, and answers in three keyed lines (`ASKS:`, `OPEN:`, `RISK:`).
An answer that names an id the profile does not have, or misses a line, is asked again (through
`ask_grader`, with its retries and memory) and after the last try counts as unread.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from selfdx.instruments.question_reader import Reading
from selfdx.instruments.topics import Topic
from selfdx.judge.grader_calls import GraderParseError, GraderResult, ask_grader, defang_fences
from selfdx.prompts import prompt_text

LINE = re.compile(
    r"^\s*[*_]*(ASKS|OPEN|RISK)[*_]*\s*:[*_]*\s*(.*?)\s*$", re.IGNORECASE | re.MULTILINE
)
NONE = frozenset({"", "none", "-", "n/a", "nothing"})


def topic_lines(topics: Sequence[Topic]) -> str:
    lines = []
    for topic in topics:
        about = f"{topic.name}: {topic.text}" if topic.name else topic.text
        lines.append(f"[{topic.id}] {about}")
    return "\n".join(lines)


def reader_prompt(question: str, topics: Sequence[Topic], previous: str | None) -> str:
    context = ""
    if previous:
        fenced = defang_fences(previous)
        context = f"The doctor's previous turn was: <<<PREVIOUS\n{fenced}\nPREVIOUS>>>\n\n"
    return prompt_text("question_check/reader").format(
        topics=topic_lines(topics), context=context, question=defang_fences(question)
    )


def parse_reading(answer: str, known: set[str]) -> Reading:
    """The three lines of a reader's answer; `GraderParseError` when one is missing, an id is
    not a topic, or a value is not one of the allowed."""
    lines = {key.upper(): value for key, value in LINE.findall(answer)}
    missing = [key for key in ("ASKS", "OPEN", "RISK") if key not in lines]
    if missing:
        raise GraderParseError(f"no {', '.join(missing)} line")
    ids = [i.strip(" .`[]") for i in lines["ASKS"].split(",")]
    ids = [i for i in ids if i.lower() not in NONE]
    by_lower = {i.lower(): i for i in known}
    unknown = [i for i in ids if i.lower() not in by_lower]
    if unknown:
        raise GraderParseError(f"ASKS names ids the profile does not have: {', '.join(unknown)}")
    opened = lines["OPEN"].strip(" .*").lower()
    if opened not in ("yes", "no"):
        raise GraderParseError(f"OPEN is {lines['OPEN']!r}, not yes or no")
    risk = {r.strip(" .*").lower() for r in re.split(r"[,/]| and ", lines["RISK"])} - NONE
    if "both" in risk:
        risk = (risk - {"both"}) | {"self", "others"}
    if not risk <= {"self", "others"}:
        raise GraderParseError(f"RISK is {lines['RISK']!r}")
    asks = list(dict.fromkeys(by_lower[i.lower()] for i in ids))
    return Reading(
        asks=asks, risk=[d for d in ("self", "others") if d in risk], open=opened == "yes"
    )


async def read_with_model(
    question: str,
    topics: Sequence[Topic],
    previous: str | None = None,
    attempts: int = 3,
    max_tokens: int = 200,
) -> GraderResult[Reading]:
    """The `reader` role's reading of `question` (see the module)."""
    known = {t.id for t in topics}
    return await ask_grader(
        reader_prompt(question, topics, previous),
        lambda answer: parse_reading(answer, known),
        attempts=attempts,
        max_tokens=max_tokens,
        role="reader",
    )
