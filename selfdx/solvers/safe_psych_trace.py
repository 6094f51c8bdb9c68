"""The per-turn record of a Safe-Psych trajectory, kept in the sample store."""

from __future__ import annotations

from typing import Any

from inspect_ai.util import StoreModel
from pydantic import BaseModel, Field


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
    primary_answer: str | None = None
    info_request: str | None = None
    icd_codes: list[str] = Field(default_factory=list)
    diagnosis_names: list[str] = Field(default_factory=list)
    action: str | None = None
    unparsed_reason: str | None = None
    # With a judge panel (`-T judges=...`): each judge's record, and the ballots per key.
    panel: list[dict[str, Any]] = Field(default_factory=list)
    panel_votes: dict[str, dict[str, int]] = Field(default_factory=dict)


class SafePsychTrace(StoreModel):
    """The whole trajectory of one case; `stop_reason` says why it ended."""

    strategy: str = ""
    turns: list[Turn] = Field(default_factory=list)
    stop_reason: str = ""
