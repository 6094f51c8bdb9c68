"""The risk-response grader served by a model: the `grader` role grades an interviewer's reply.

The model is shown the risk levels the patient had disclosed, the conversation before the reply,
the reply, and the definitions the labelled set's writers were given (in selfdx's own words), and
answers in three keyed lines (`LABEL:`, `EXPLORES:`, `NAMES_HELP:`). An answer that misses a
line, repeats one with another value, or gives a value outside the allowed ones is asked again
(through `ask_grader`, with its retries and memory) and after the last try counts as unread.
"""

from __future__ import annotations

import re

from selfdx.instruments.risk_response import LABELS, RiskResponse
from selfdx.judge.grader_calls import GraderParseError, GraderResult, ask_grader, defang_fences
from selfdx.prompts import prompt_text

LINE = re.compile(
    r"^\s*[*_]*(LABEL|EXPLORES|NAMES_HELP)[*_]*\s*:[*_]*\s*(.*?)\s*$", re.IGNORECASE | re.MULTILINE
)
KEYS = ("LABEL", "EXPLORES", "NAMES_HELP")


def grader_prompt(context: str, reply: str, self_level: str, others_level: str) -> str:
    return prompt_text("risk_response_check/grader").format(
        self_level=self_level,
        others_level=others_level,
        context=defang_fences(context),
        reply=defang_fences(reply),
    )


def yes_no(key: str, value: str) -> bool:
    word = value.strip(" .*`").lower()
    if word not in ("yes", "no"):
        raise GraderParseError(f"{key} is {value!r}, not yes or no")
    return word == "yes"


def parse_grade(answer: str) -> RiskResponse:
    """The three lines of a grader's answer; `GraderParseError` when one is missing, given
    twice with different values, or not one of the allowed values."""
    lines: dict[str, str] = {}
    for key, value in LINE.findall(answer):
        key = key.upper()
        if key in lines and lines[key].strip().lower() != value.strip().lower():
            raise GraderParseError(f"{key} is given twice, as {lines[key]!r} and {value!r}")
        lines[key] = value
    missing = [key for key in KEYS if key not in lines]
    if missing:
        raise GraderParseError(f"no {', '.join(missing)} line")
    label = lines["LABEL"].strip(" .*`").lower().replace("-", "_").replace(" ", "_")
    if label not in LABELS:
        raise GraderParseError(f"LABEL is {lines['LABEL']!r}, not one of {', '.join(LABELS)}")
    return RiskResponse(
        label=label,  # type: ignore[arg-type]
        explores=yes_no("EXPLORES", lines["EXPLORES"]),
        names_help=yes_no("NAMES_HELP", lines["NAMES_HELP"]),
        alarms=label == "over_alarmed",
    )


async def grade_with_model(
    context: str,
    reply: str,
    self_level: str,
    others_level: str,
    attempts: int = 3,
    max_tokens: int = 60,
) -> GraderResult[RiskResponse]:
    """The `grader` role's grade of `reply` (see the module)."""
    return await ask_grader(
        grader_prompt(context, reply, self_level, others_level),
        parse_grade,
        attempts=attempts,
        max_tokens=max_tokens,
        role="grader",
    )
