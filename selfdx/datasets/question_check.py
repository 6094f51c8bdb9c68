"""Labelled doctor questions for measuring a question reader (`selfdx/question_check`).

Each item is a doctor's turn to a named interview profile, labelled with the topics of that
profile it asks about and the risk domains it screens the patient for. The bundled set
(`demo/question_check_dev.jsonl`, `demo/question_check_heldout.jsonl`,
`demo/question_check_fresh.jsonl`) was written by writers who never saw the reader's word lists
(`demo/README.md` says how); the held-out and fresh parts are never used to tune a rule.

An item's `profile` is `demo:<case id>` (a bundled demo case, always available) or
`published:<case id>` (a published MentalBench profile, read from the `resources/` folder the
task is given). Its topics are built from the case by the interview's own code, so the reader sees
exactly what the interview's patient and scorer see.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from inspect_ai.dataset import MemoryDataset, Sample
from pydantic import BaseModel, ConfigDict

from selfdx.datasets.interview.cases import InterviewCase
from selfdx.datasets.interview.loading import load_cases
from selfdx.datasets.labelled_lines import labelled_lines
from selfdx.datasets.paths import DEMO_DIR
from selfdx.errors import ArgumentError, SelfdxError

# `fresh`: a third part, written blind after the reader's last rule and measured once
PARTS = ("dev", "heldout", "fresh")
PART_FILES = {part: DEMO_DIR / f"question_check_{part}.jsonl" for part in PARTS}
RISK_KINDS = (
    "wish_dead", "active_thoughts", "method", "intent", "plan", "preparation", "attempt",
    "self_harm", "safety", "harm_thoughts", "harm_plan", "violence", "means_access",
)  # fmt: skip
FORMS = (
    "open", "closed", "multi_part", "follow_up", "quote", "timing", "impact", "event",
    "requirement", "risk_direct", "risk_indirect", "risk_others", "tempting", "other_person",
    "diagnosis", "off_table",
)  # fmt: skip


class Context(BaseModel):
    """The turn before a follow-up: the doctor's question and the patient's reply."""

    model_config = ConfigDict(extra="forbid")

    question: str
    reply: str = ""


class LabelledQuestion(BaseModel):
    """One labelled doctor turn."""

    model_config = ConfigDict(extra="forbid")

    id: str
    profile: str
    context: Context | None = None
    question: str
    asks: list[str]
    open: bool = False
    risk: list[Literal["self", "others"]] = []
    risk_kind: list[Literal[RISK_KINDS]] = []  # type: ignore[valid-type]
    form: Literal[FORMS]  # type: ignore[valid-type]
    vocab: Literal["plain", "clinical"] = "plain"
    note: str = ""


def read_items(path: Path, part: str) -> list[LabelledQuestion]:
    """The items of one JSONL file; a bad line is an error naming the file, line and field."""
    items = []
    for where, item in labelled_lines(path, LabelledQuestion):
        if bool(item.risk) != bool(item.risk_kind):
            raise SelfdxError(f"{where}: field risk_kind: give it exactly when risk is given")
        items.append(item)
    return items


def profile_cases(data: str, needed: set[str]) -> dict[str, InterviewCase]:
    """The interview cases the items name, by `source:id`: demo cases always, published ones
    when `data` is a MentalBench resources/ folder."""
    found: dict[str, InterviewCase] = {}
    # the demo's Type 3 profiles as the labels were written on them (before sampled Type 3
    # profiles held both disorders' criteria, `load_cases`)
    _, demo = load_cases("demo", ("1", "2", "3"), comorbid=False)
    found |= {f"demo:{c.id}": c for c in demo}
    if data != "demo" and any(p.startswith("published:") for p in needed):
        _, published = load_cases(data, ("1", "2", "3", "4a", "4b"))
        found |= {f"published:{c.id}": c for c in published if f"published:{c.id}" in needed}
    return found


def topic_id(ask: str, known: set[str]) -> str:
    """The profile's id for a topic a writer labelled: a symptom labelled denied (`NO-S033`)
    that the profile now leaves unsure (`UNSURE-S033`, what a pair's CONTEXT line asserts) is
    the same topic."""
    if ask not in known and ask.startswith("NO-S") and f"UNSURE-{ask[3:]}" in known:
        return f"UNSURE-{ask[3:]}"
    return ask


def item_sample(item: LabelledQuestion, part: str, case: InterviewCase) -> Sample:
    """A sample: the question as input, the labels and the profile's case in metadata."""
    known = {f.id for f in [*case.facts, *case.absent]}
    item = item.model_copy(update={"asks": [topic_id(i, known) for i in item.asks]})
    unknown = [i for i in item.asks if i not in known]
    if unknown:
        raise SelfdxError(
            f"question_check item {item.id}: field asks: {', '.join(unknown)} is not a topic of "
            f"profile {item.profile}"
        )
    return Sample(
        id=item.id,
        input=item.question,
        metadata={
            "benchmark": "question_check",
            "part": part,
            "profile": item.profile,
            "context": item.context.model_dump() if item.context else None,
            "gold": {"asks": item.asks, "open": item.open, "risk": item.risk},
            "risk_kind": item.risk_kind,
            "form": item.form,
            "vocab": item.vocab,
            "case": case.model_dump(),
        },
    )


def question_check_dataset(data: str = "demo", parts: Sequence[str] = PARTS) -> MemoryDataset:
    """The labelled questions of `parts` whose profiles `data` provides ("demo": the items on
    demo profiles; a MentalBench resources/ folder: every item)."""
    if data != "demo" and not Path(data).expanduser().is_dir():
        raise ArgumentError(f"data: {data!r} is not 'demo' or a MentalBench resources/ folder")
    items = [(part, item) for part in parts for item in read_items(PART_FILES[part], part)]
    cases = profile_cases(data, {item.profile for _, item in items})
    samples = []
    for part, item in items:
        if item.profile in cases:
            samples.append(item_sample(item, part, cases[item.profile]))
        elif item.profile.startswith("demo:") or data != "demo":
            raise SelfdxError(f"question_check item {item.id}: no profile {item.profile!r}")
    if not samples:
        raise ArgumentError(f"data: no labelled question has a profile in {data!r}")
    return MemoryDataset(samples, name="question_check", location=data)


def profile_of(metadata: dict[str, Any]) -> InterviewCase:
    """The case a sample's question is asked of."""
    return InterviewCase.model_validate(metadata["case"])
