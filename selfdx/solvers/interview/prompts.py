"""Prompts of `selfdx/interview` (files in `selfdx/prompts/interview/`) and the reply parser."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.interview.facts import Fact
from selfdx.instruments.topics import fact_line
from selfdx.prompts import prompt_text

Mode = Literal["interview", "full", "initial"]
MODES: tuple[str, ...] = get_args(Mode)
FullText = Literal["profile", "narrative"]
# Letters of the answer options shown (the published cases have four; up to eight are read).
OPTION_LETTERS = "ABCDEFGH"
KEYWORD = re.compile(
    r"^\s*[*_#]*\s*(QUESTION|DIAGNOSIS|DECLINE|CRITERIA\s+MET)\s*[*_]*\s*:\s*[*_]*\s*", re.I | re.M
)
CLAIM = re.compile(
    r"^[\s*_]*(yes|no|true|false|met|not\s+met|(?:i\s+)?(?:cannot|can'?t|can\s+not|could\s+not"
    r"|couldn'?t)\s+(?:tell|say|be\s+sure|determine|be\s+determined)|not\s+sure|unsure"
    r"|uncertain|unclear|not\s+clear|unknown|undetermined|indeterminate|(?:i\s+)?(?:don'?t|do\s+not)"
    r"\s+know|hard\s+to\s+(?:say|tell)|insufficient(?:\s+information)?)\b",
    re.IGNORECASE,
)
CLAIMS = {"yes": "yes", "true": "yes", "met": "yes", "no": "no", "false": "no", "not met": "no"}
Claim = Literal["yes", "no", "cannot tell"]


def template(name: str) -> str:
    """The prompt `name` (file `selfdx/prompts/interview/<name>.txt`)."""
    return prompt_text(f"interview/{name}")


def options_block(case: InterviewCase, answer_format: str) -> str:
    if answer_format == "free_text":
        return ""
    lines = [f"{OPTION_LETTERS[i]}. {name}" for i, name in enumerate(case.option_names)]
    return "\nThe diagnosis is one of these options:\n" + "\n".join(lines) + "\n"


def answer_hint(answer_format: str, several: bool = False) -> str:
    """What `DIAGNOSIS:` should hold; `several` for a Type 3 case (every option that
    applies, as MentalBench asks of it)."""
    if several:
        if answer_format == "free_text":
            return "the name of every diagnosis that applies (one or more), joined by 'and'"
        return "the letter and name of every option that applies (one or more), joined by 'and'"
    if answer_format == "free_text":
        return "the name of the one diagnosis you give"
    return "the letter and name of one option"


def system_prompt(case: InterviewCase, mode: str, answer_format: str, max_questions: int) -> str:
    return template(f"interviewer_{mode}").format(
        max_questions=max_questions,
        answer_hint=answer_hint(answer_format, bool(case.answers)),
        options_block=options_block(case, answer_format),
    )


def opening_prompt(case: InterviewCase) -> str:
    return template("opening").format(
        demographics=case.demographics, complaint=case.fact(case.complaint).statement
    )


def full_prompt(case: InterviewCase, full_text: str) -> str:
    if full_text == "narrative" and case.narrative:
        return template("full_narrative").format(narrative=case.narrative)
    statements = "\n".join(f'- "{fact.statement}"' for fact in case.facts)
    return template("full_profile").format(demographics=case.demographics, statements=statements)


def patient_prompt(case: InterviewCase) -> str:
    """The patient's instructions: the complaint it came with, its facts, what it denies, and
    what it cannot say or may say without it being a fact, one `fact_line` each, and how it
    talks about itself (its style, with the symptoms it claims when it over-reports)."""

    def lines(facts: list[Fact]) -> str:
        return "\n".join(map(fact_line, facts)) or "- (none listed)"

    style = case.patient_style
    manner = template(f"styles/{style}").replace(
        "{claimed}", lines([f for f in case.absent if f.truth == "claimed"])
    )
    return template("patient_system").format(
        demographics=case.demographics,
        complaint=case.complaint,
        facts=lines(case.facts),
        absent=lines([f for f in case.absent if f.truth == "no"]),
        other=lines([f for f in case.absent if f.truth in ("unsure", "implied")]),
        style=style,
        manner=manner,
    )


def reminder(mode: str) -> str:
    if mode == "interview":
        allowed = (
            "Reply with one QUESTION: line, or DIAGNOSIS: and CRITERIA MET: lines, or DECLINE:."
        )
    else:
        allowed = "No questions here: reply with DIAGNOSIS: and CRITERIA MET: lines, or DECLINE:."
    return template("reminder").format(allowed=allowed)


@dataclass(frozen=True)
class ParsedReply:
    """An interviewer reply read as a question, an answer, a decline, or nothing usable."""

    action: str  # question, answer, decline, unparsed
    question: str | None = None
    diagnosis: str | None = None
    criteria: Claim | None = None  # the CRITERIA MET statement; None if absent or unreadable


def field_text(reply: str, start: int) -> str:
    following = KEYWORD.search(reply, start)
    end = following.start() if following else len(reply)
    return " ".join(reply[start:end].split())


def parse_reply(reply: str) -> ParsedReply:
    """Read the first keyword line (QUESTION, DIAGNOSIS or DECLINE) of a reply.

    A reply with no keyword but a question mark counts as a question (models often drop the
    prefix); anything else is unparsed."""
    found = [m for m in KEYWORD.finditer(reply) if not m.group(1).upper().startswith("CRITERIA")]
    if not found:
        text = " ".join(reply.split())
        if text.endswith("?") or ("?" in text and len(text) < 400):
            return ParsedReply("question", question=text)
        return ParsedReply("unparsed")
    first = found[0]
    kind = first.group(1).upper()
    text = field_text(reply, first.end())
    if kind == "QUESTION":
        return ParsedReply("question", question=text) if text else ParsedReply("unparsed")
    if kind == "DECLINE":
        return ParsedReply("decline", diagnosis=None)
    criteria: Claim | None = None
    for match in KEYWORD.finditer(reply):
        if match.group(1).upper().startswith("CRITERIA"):
            said = CLAIM.match(reply[match.end() :])
            if said:
                word = " ".join(said.group(1).lower().split())
                criteria = CLAIMS.get(word, "cannot tell")  # type: ignore[assignment]
            break
    if not text:
        return ParsedReply("unparsed")
    return ParsedReply("answer", diagnosis=text, criteria=criteria)
