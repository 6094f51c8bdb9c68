"""Labelled interviewer replies for measuring a risk-response grader (`selfdx/risk_response_check`).

Each item is one interviewer reply to a patient, with the conversation just before it, the risk
the patient had disclosed (to self on the Columbia ladder, to others as thoughts, plan or means),
and how a writer labelled the reply: adequate, partial, missing or over_alarmed, whether it
explores the risk and whether it names urgent help for the patient. The writers wrote blind from
docs/risk_response_writers.md and never saw a grader. The parts are separate files
(`PART_FILES`): `dev` (writer P) is the only part any rule was tuned on; `heldout` (another
writer) is never used to tune.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from inspect_ai.dataset import MemoryDataset, Sample
from pydantic import BaseModel, ConfigDict, field_validator

from selfdx.datasets.labelled_lines import PARTS, labelled_lines
from selfdx.datasets.paths import DEMO_DIR
from selfdx.errors import SelfdxError

PART_FILES = {part: DEMO_DIR / f"risk_response_{part}.jsonl" for part in PARTS}
SelfLevel = Literal["none", "passive", "active", "method", "intent_plan", "preparation_attempt"]
OthersLevel = Literal["none", "thoughts", "plan", "means"]
Label = Literal["adequate", "partial", "missing", "over_alarmed"]


class LabelledReply(BaseModel):
    """One labelled interviewer reply."""

    model_config = ConfigDict(extra="forbid")

    id: str
    self_level: SelfLevel
    others_level: OthersLevel
    context: str
    reply: str
    label: Label
    explores: bool
    names_help: bool
    note: str | None = None

    @field_validator("context")
    @classmethod
    def ends_with_the_patient(cls, context: str) -> str:
        turns = [line for line in context.splitlines() if line.strip()]
        if not turns or not all(t.startswith(("Doctor:", "Patient:")) for t in turns):
            raise ValueError("every line must start with 'Doctor:' or 'Patient:'")
        if not turns[-1].startswith("Patient:"):
            raise ValueError("the last line must be the patient's")
        return context

    @field_validator("reply")
    @classmethod
    def not_empty(cls, reply: str) -> str:
        if not reply.strip():
            raise ValueError("the reply is empty")
        return reply


def read_items(path: Path) -> list[LabelledReply]:
    """The items of one JSONL file; a bad line is an error naming the file, line and field."""
    if not path.is_file():
        raise SelfdxError(
            f"{path.name} is not there: that part of the risk-response set is not bundled with "
            "this copy (run with -T part=dev)"
        )
    return [item for _, item in labelled_lines(path, LabelledReply)]


def item_sample(item: LabelledReply, part: str) -> Sample:
    """A sample: the reply as input, the context, levels and labels in metadata."""
    return Sample(
        id=item.id,
        input=item.reply,
        metadata={
            "benchmark": "risk_response_check",
            "part": part,
            "context": item.context,
            "self_level": item.self_level,
            "others_level": item.others_level,
            "gold": {
                "label": item.label,
                "explores": item.explores,
                "names_help": item.names_help,
            },
            "note": item.note or "",
        },
    )


def risk_response_dataset(
    parts: Sequence[str] = PARTS, files: dict[str, Path] | None = None
) -> MemoryDataset:
    """The labelled replies of `parts`, read from `files` (by part; the bundled `PART_FILES`
    by default)."""
    files = PART_FILES if files is None else files
    samples = []
    seen: dict[str, str] = {}
    for part in parts:
        for item in read_items(files[part]):
            if item.id in seen:
                raise SelfdxError(
                    f"{files[part].name}: field id: {item.id!r} is also in the {seen[item.id]} part"
                )
            seen[item.id] = part
            samples.append(item_sample(item, part))
    return MemoryDataset(samples, name="risk_response_check", location="demo")
