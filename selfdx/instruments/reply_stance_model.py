"""The reply reader served by a model: the `reader` role says what a patient's reply answers.

The model is shown the doctor's question, the thing it asks about where one is known, and the
reply, and answers in one keyed line (`STANCE: affirms|denies|unsure|evades`): what the words
tell about that thing, or, where none is named, what they say to the question as asked (the
meaning of `reply_stance.stance`; the patient check's probes ask whether a fact applies, so the
two agree there). An answer
without that line is asked again (through `ask_grader`, with its retries and memory) and after
the last try counts as unread. How well a model reads is measured on the labelled replies:

    python -m selfdx.scorers.patient_check.reader_agreement --reader-model openai/gpt-5.4-mini
"""

from __future__ import annotations

import re

from selfdx.instruments.reply_stance import STANCES, Stance
from selfdx.judge.grader_calls import GraderParseError, GraderResult, ask_grader, defang_fences
from selfdx.prompts import prompt_text

LINE = re.compile(r"^\W*STANCE\W*:\W*(\w+)\W*$", re.IGNORECASE | re.MULTILINE)


def reader_prompt(question: str, reply: str, about: str | None = None) -> str:
    """The prompt that asks the `reader` role for `reply`'s stance."""
    named = f"\nThe question asks about: {defang_fences(about)}\n" if about else ""
    return prompt_text("patient_check/reader").format(
        question=defang_fences(question), about=named, reply=defang_fences(reply)
    )


def parse_stance(answer: str) -> Stance:
    """The stance of a reader's answer; `GraderParseError` without exactly one STANCE line of
    an allowed value."""
    found = {value.lower() for value in LINE.findall(answer)}
    if len(found) != 1:
        raise GraderParseError("no STANCE line" if not found else "two STANCE lines disagree")
    value = found.pop()
    if value not in STANCES:
        raise GraderParseError(f"STANCE is {value!r}, not affirms, denies, unsure or evades")
    return value  # type: ignore[return-value]


async def read_reply_with_model(
    question: str, reply: str, about: str | None = None, attempts: int = 3
) -> GraderResult[Stance]:
    """The `reader` role's reading of `reply` (see the module)."""
    return await ask_grader(
        reader_prompt(question, reply, about),
        parse_stance,
        attempts=attempts,
        max_tokens=20,
        role="reader",
    )
