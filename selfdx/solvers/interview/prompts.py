"""Prompts of `selfdx/interview` (files in `selfdx/prompts/interview/`) and the reply parser."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.mentalkg.diagnosis_names import find_diagnosis_names
from selfdx.datasets.mentalkg.model import MentalKG
from selfdx.prompts import prompt_text

Mode = Literal["interview", "full", "initial"]
MODES: tuple[str, ...] = get_args(Mode)
FullText = Literal["profile", "narrative"]
# Letters of the answer options shown (the published cases have four; up to eight are read).
OPTION_LETTERS = "ABCDEFGH"
KEYWORD = re.compile(
    r"^\s*[*_#]*\s*(QUESTION|DIAGNOSIS|DECLINE|CRITERIA\s+MET)\s*[*_]*\s*:\s*[*_]*\s*", re.I | re.M
)
YES_NO = re.compile(r"^\s*\**\s*(yes|no|true|false|met|not\s+met)\b", re.IGNORECASE)
LETTER = re.compile(r"^\s*\(?([A-H])\)?(?:[.):]|\s|$)")


def template(name: str) -> str:
    """The prompt `name` (file `selfdx/prompts/interview/<name>.txt`)."""
    return prompt_text(f"interview/{name}")


def options_block(case: InterviewCase, answer_format: str) -> str:
    if answer_format == "free_text":
        return ""
    lines = [f"{OPTION_LETTERS[i]}. {name}" for i, name in enumerate(case.option_names)]
    return "\nThe diagnosis is one of these options:\n" + "\n".join(lines) + "\n"


def answer_hint(answer_format: str) -> str:
    if answer_format == "free_text":
        return "the name of the one diagnosis you give"
    return "the letter and name of one option"


def system_prompt(case: InterviewCase, mode: str, answer_format: str, max_questions: int) -> str:
    return template(f"interviewer_{mode}").format(
        max_questions=max_questions,
        answer_hint=answer_hint(answer_format),
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
    facts = "\n".join(f"- [{f.id}] about: {f.topic} | you say: {f.statement}" for f in case.facts)
    absent = "\n".join(f"- [{f.id}] about: {f.topic}" for f in case.absent) or "- (none listed)"
    return template("patient_system").format(
        demographics=case.demographics, facts=facts, absent=absent
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
    criteria: bool | None = None


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
    criteria = None
    for match in KEYWORD.finditer(reply):
        if match.group(1).upper().startswith("CRITERIA"):
            said = YES_NO.match(reply[match.end() :])
            if said:
                criteria = said.group(1).lower() in ("yes", "true", "met")
            break
    if not text:
        return ParsedReply("unparsed")
    return ParsedReply("answer", diagnosis=text, criteria=criteria)


def diagnosis_code(text: str, case: InterviewCase, kg: MentalKG, answer_format: str) -> str | None:
    """The KG code an answer names: a letter of the shown options, else the longest KG
    disorder name it contains (options first), else one unambiguous name or abbreviation."""
    if answer_format == "letters":
        letter = LETTER.match(text)
        if letter and OPTION_LETTERS.index(letter.group(1)) < len(case.option_codes):
            return case.option_codes[OPTION_LETTERS.index(letter.group(1))]
    low = text.lower()
    pools = [list(zip(case.option_codes, case.option_names, strict=True))]
    if answer_format == "free_text":
        pools.append([(code, d.name) for code, d in kg.disorders.items()])
    for pool in pools:
        hits = [(len(name), code) for code, name in pool if name.lower() in low]
        if hits:
            return max(hits)[1]
    codes = {code for mention in find_diagnosis_names(text) for code in mention.codes}
    allowed = set(case.option_codes) if answer_format == "letters" else set(kg.disorders)
    codes &= allowed
    return codes.pop() if len(codes) == 1 else None
