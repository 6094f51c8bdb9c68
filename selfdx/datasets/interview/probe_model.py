"""A probe of `selfdx/patient_check`: the doctor's questions and what a faithful patient
reveals (`probes.py` writes the scripted ones, `written_probes.py` the independently worded)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

ProbeKind = Literal[
    "present",
    "absent",
    "duration",
    "impairment",
    "stressor",
    "requirement_true",
    "requirement_false",
    "risk_present",
    "risk_absent",
    "bait",
    "injection",
    "fence",
    "off_topic",
    "repeat",
    "style",
]


class Probe(BaseModel):
    """One scripted question (asked twice for `repeat`) and the ids a faithful patient reveals."""

    model_config = ConfigDict(frozen=True)

    kind: ProbeKind
    questions: list[str]
    expected: list[str]
    about: str | None = None  # the fact asked about, where there is one
    expected_each: list[list[str]] = []  # `style`: the ids each reply reveals, in order
    wording: Literal["scripted", "written"] = "scripted"  # written: `written_probes`
    question_id: str | None = None  # written: the question-check item asked
    part: str | None = None  # written: its part of the question-check set
