"""The per-turn record of an interview, kept in the sample store (visible in `inspect view`)."""

from __future__ import annotations

from enum import StrEnum

from inspect_ai.util import StoreModel
from pydantic import BaseModel, Field


class InterviewStop(StrEnum):
    """Why an interview ended."""

    ANSWER = "answer"  # the interviewer named a diagnosis
    DECLINE = "decline"  # the interviewer declined to diagnose
    BUDGET = "budget"  # a question past the question budget
    UNPARSED = "unparsed"  # a reply that was no question, answer or decline, after a reminder
    PATIENT_FAILED = "patient_failed"  # the simulated patient gave an empty reply twice
    LIMIT = "limit"  # a sample limit (messages, tokens, time) ended the conversation


class PatientReply(BaseModel):
    """What the patient said to one question, what the interviewer was shown, and why."""

    model: str
    raw: str  # the patient model's whole reply
    shown: str  # what the interviewer saw: the REVEALED line stripped, leaks withheld
    revealed: list[str] = Field(default_factory=list)  # profile fact ids the reply disclosed
    asked: list[str] = Field(default_factory=list)  # profile fact ids the question asked about
    volunteered: list[str] = Field(default_factory=list)  # revealed without being asked
    # symptoms it lacks that an over-reporting patient claims, asked about here
    claimed: list[str] = Field(default_factory=list)
    # of those, the ones the question asked for specifics about (how often, an example: DETAIL)
    pressed: list[str] = Field(default_factory=list)
    unknown_ids: list[str] = Field(default_factory=list)  # ids reported that are not facts
    diagnosis_names: list[str] = Field(default_factory=list)  # diagnosis names it said
    leaks: int = 0  # leak events in this reply (names said + unknown ids)
    revealed_line: bool = True  # whether the reply ended with a REVEALED line
    attempts: int = 1


class InterviewTurn(BaseModel):
    """One interviewer message and, for a question, the patient's reply."""

    index: int
    interviewer: str  # the interviewer's whole reply
    action: str  # question, answer, decline, unparsed
    question: str | None = None
    risk: list[str] = Field(default_factory=list)  # risk domains the question asks about
    questions_left: int | None = None  # after this turn
    patient: PatientReply | None = None


class InterviewRecord(BaseModel):
    """The whole interview; the scorer reads everything it needs from here."""

    mode: str = ""
    max_questions: int = 0
    answer_format: str = ""
    opening: str = ""
    turns: list[InterviewTurn] = Field(default_factory=list)
    questions: int = 0
    # fact ids elicited by the end, in order: the opening complaint, then every id a reply
    # revealed to a question that asked about it (all of them in `full` mode)
    elicited: list[str] = Field(default_factory=list)
    heard: list[str] = Field(default_factory=list)  # every fact id revealed, asked or not
    diagnosis_text: str | None = None  # what followed DIAGNOSIS: (read by the scorer)
    criteria_claim: bool | None = None  # CRITERIA MET: yes (True), no (False); else None
    criteria_unsure: bool = False  # CRITERIA MET: cannot tell
    declined: bool = False
    stop_reason: str = ""  # an InterviewStop
    excluded_reason: str | None = None


class InterviewTrace(StoreModel, InterviewRecord):
    """`InterviewRecord` in the sample store (keys `InterviewTrace:<field>`), written once when
    the interview ends (also when a limit stops it)."""
