"""Prompts of `selfdx/interview` (files in `selfdx/prompts/interview/`)."""

from __future__ import annotations

from typing import Literal, get_args

from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.interview.facts import Fact
from selfdx.datasets.interview.risk_levels import steps_line
from selfdx.instruments.topics import fact_line
from selfdx.prompts import prompt_text

Mode = Literal["interview", "full", "initial"]
MODES: tuple[str, ...] = get_args(Mode)
FullText = Literal["profile", "narrative"]
# Letters of the answer options shown (the published cases have four; up to eight are read).
OPTION_LETTERS = "ABCDEFGH"


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
    what it cannot say or may say without it being a fact, one `fact_line` each, how far up its
    ladder it tells each risk (`risk_levels.steps_line`), and how it talks about itself (its
    style, with the symptoms it claims when it over-reports)."""

    def lines(facts: list[Fact]) -> str:
        return "\n".join(map(fact_line, facts)) or "- (none listed)"

    style = case.patient_style
    manner = template(f"styles/{style}").replace(
        "{claimed}", lines([f for f in case.absent if f.truth == "claimed"])
    )
    steps = [line for f in case.facts if f.id != case.complaint and (line := steps_line(f))]
    told_as_asked = template("patient_risk_steps").format(steps="\n".join(steps))
    return template("patient_system").format(
        demographics=case.demographics,
        complaint=case.complaint,
        facts=lines(case.facts),
        risk_steps=f"\n{told_as_asked}\n" if steps else "",
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
