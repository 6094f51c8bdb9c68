"""The grader's review of a generated MentalBench case: its prompt and a strict parser.

The grader answers two yes/no questions (is the case clinically coherent; does it discriminate
as the type intends) and gives a reason, in exactly three keyed lines. Anything else (an extra
line, a repeated or missing key, a value other than YES or NO) is a parse failure with its
reason, which the scorer records as not graded and counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from selfdx.datasets.mentalbench.schema import LETTERS
from selfdx.datasets.mentalkg.profile_schema import CaseProfile
from selfdx.judge.grader_calls import GraderParseError, defang_fences
from selfdx.prompts import prompt_text
from selfdx.solvers.mentalbench.generate_prompts import render_profile

KEYS = ("COHERENT", "DISCRIMINATES", "REASON")
LINE = re.compile(r"^([A-Z]+):[ \t]*(.*?)[ \t]*$")
VERDICT = re.compile(r"^(yes|no)\.?$", re.IGNORECASE)


@dataclass(frozen=True)
class CaseVerdict:
    coherent: bool
    discriminates: bool
    reason: str


def parse_verdict(text: str) -> CaseVerdict:
    """Read the three keyed lines; raise `GraderParseError` saying what is wrong."""
    fields: dict[str, str] = {}
    for line in (line.strip() for line in text.strip().splitlines()):
        if not line:
            continue
        match = LINE.match(line)
        if not match or match.group(1) not in KEYS:
            raise GraderParseError(f"unexpected line {line[:80]!r}")
        key, value = match.groups()
        if key in fields:
            raise GraderParseError(f"{key} is given twice")
        fields[key] = value
    missing = [key for key in KEYS if key not in fields]
    if missing:
        raise GraderParseError(f"{missing[0]} is missing")
    flags = {}
    for key in KEYS[:2]:
        if not VERDICT.match(fields[key]):
            raise GraderParseError(f"{key} is {fields[key][:40]!r}, not YES or NO")
        flags[key] = fields[key].rstrip(".").upper() == "YES"
    if not fields["REASON"]:
        raise GraderParseError("REASON is empty")
    return CaseVerdict(flags["COHERENT"], flags["DISCRIMINATES"], fields["REASON"])


@cache
def intents() -> dict[str, str]:
    """The intended design per type, from `mentalbench_case_intents.txt` (`[1]` ... `[4]`)."""
    text = prompt_text("rubrics/mentalbench_case_intents")
    sections = re.split(r"^\[(\d)\]\s*$", text, flags=re.MULTILINE)
    return {key: body.strip() for key, body in zip(sections[1::2], sections[2::2], strict=True)}


def intent_for(profile: CaseProfile) -> str:
    names = {option.code: option.name for option in profile.options}
    values = {"target": names[profile.target[0]]}
    if profile.pair is not None:
        pair = profile.pair
        values |= {"main": names[pair.main], "sub": names[pair.sub]}
        if profile.variant in ("4a", "4b"):
            main_is_target = profile.variant == "4a"
            other = pair.sub if main_is_target else pair.main
            values |= {
                "other": names[other],
                "target_rule": pair.rule_main if main_is_target else pair.rule_sub,
                "other_rule": pair.rule_sub if main_is_target else pair.rule_main,
            }
    return intents()[profile.variant[0]].format(**values)


def grader_prompt(profile: CaseProfile, case: str, style: str) -> str:
    options = "\n".join(
        f"{letter}. {option.name}" for letter, option in zip(LETTERS, profile.options, strict=True)
    )
    return prompt_text("rubrics/mentalbench_case_grader").format(
        style=style,
        options=options,
        intent=intent_for(profile),
        profile=render_profile(profile),
        case=defang_fences(case.strip()),
    )
