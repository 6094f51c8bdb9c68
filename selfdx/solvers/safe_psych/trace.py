"""The per-turn record of a Safe-Psych trajectory, kept in the sample store."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from inspect_ai.util import StoreModel
from pydantic import BaseModel, Field

from selfdx.datasets.behaviour_labels import Action, derive_action
from selfdx.judge.behaviour import JudgeFeatures
from selfdx.judge.grader_calls import GraderResult


class StopReason(StrEnum):
    """Why a Safe-Psych trajectory ended: a final action, or what cut it short."""

    DIAGNOSE = "Diagnose"
    ABSTAIN = "Abstain"
    LIMIT = "limit"  # a sample limit (messages, tokens, time) or no stage left
    EMPTY_REPLY = "empty_reply"
    UNPARSED_ACTION = "unparsed_action"  # structured_actions: no action on the first line
    UNPARSED_JUDGE = "unparsed_judge"  # the judge never answered in the format
    REJUDGE_INCOMPLETE = "rejudge_incomplete"  # re-judging ended before a final action


FINAL_STOPS = (StopReason.DIAGNOSE, StopReason.ABSTAIN)


class Turn(BaseModel):
    """One turn: what was shown, what the model said, what the judge made of it."""

    stage: int
    sections_shown: list[str]
    is_last: bool
    gold_label: str
    user_prompt: str
    reply: str
    judge_model: str | None = None
    judge_outputs: list[str] = Field(default_factory=list)
    # The answer came from the process's memory of an identical earlier judge call (no call).
    judge_reused: bool = False
    primary_answer: str | None = None
    info_request: str | None = None
    icd_codes: list[str] = Field(default_factory=list)
    diagnosis_names: list[str] = Field(default_factory=list)
    action: Action | None = None
    unparsed_reason: str | None = None
    # The kind of judge failure (`echo`: the answer repeated the reply; `format`), when unparsed.
    judge_failure: str | None = None
    # The reply contains a line in the judge's answer format (it may be steering its grader).
    imitates_judge: bool = False
    # With a judge panel (`-T judges=...`): each judge's record, and the ballots per key.
    panel: list[dict[str, Any]] = Field(default_factory=list)
    panel_votes: dict[str, dict[str, int]] = Field(default_factory=dict)


class SafePsychTrace(StoreModel):
    """The whole trajectory of one case; `stop_reason` says why it ended."""

    strategy: str = ""
    turns: list[Turn] = Field(default_factory=list)
    stop_reason: str = ""


def record_verdict(turn: Turn, verdict: GraderResult[JudgeFeatures]) -> Action | None:
    """Write the judge's answer into `turn` and return its action (None when unparsed)."""
    turn.judge_model = verdict.model
    turn.judge_outputs = verdict.outputs
    turn.judge_reused = verdict.reused
    turn.unparsed_reason = verdict.error
    turn.judge_failure = verdict.reason
    features = verdict.parsed
    if features is None:
        turn.action = None
        return None
    turn.primary_answer = features.primary_answer
    turn.info_request = features.info_request
    turn.icd_codes = features.icd_codes
    turn.diagnosis_names = features.diagnosis_names
    action = derive_action(features.primary_answer, features.info_request, turn.is_last)
    turn.action = action
    return action
