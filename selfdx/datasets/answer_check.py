"""Labelled final answers for measuring the answer readers (`selfdx.instruments.answers`).

Each item is a model's final turn in one of six situations, labelled with what it commits to:

- `mentalbench_single` / `mentalbench_multi`: a MentalBench reply to four lettered options
  (one answer; every option that applies);
- `interview_letters` / `interview_type3`: an interview's last turn with a `DIAGNOSIS:` line
  naming one option, or every option that applies, of four;
- `interview_free_text`: a `DIAGNOSIS:` line naming a disorder, no options shown;
- `safe_psych`: a `structured_actions` reply (`DIAGNOSE` on its first line) with an ICD-10 code.

`kind` is `committed` (a careful reader has no doubt what the answer is; `answer` holds it: the
letters, the disorder's MentalKG name, or the ICD-10 code), `hedged` (no commitment: "A or C") or
`none` (a refusal, only ruled-out options, no pick). The bundled set
(`demo/answer_check_dev.jsonl`, `demo/answer_check_heldout.jsonl`) was written by five writers
who never saw the readers (demo/README.md says how); the held-out part tunes no rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

from selfdx.datasets.labelled_lines import PARTS, labelled_lines
from selfdx.datasets.paths import DEMO_DIR
from selfdx.errors import SelfdxError

PART_FILES = {part: DEMO_DIR / f"answer_check_{part}.jsonl" for part in PARTS}
NAMES_FILE = DEMO_DIR / "answer_check_names.json"  # the 23 MentalKG disorders: code -> name
Situation = Literal[
    "mentalbench_single",
    "mentalbench_multi",
    "interview_letters",
    "interview_type3",
    "interview_free_text",
    "safe_psych",
]
LETTERED = ("mentalbench_single", "mentalbench_multi", "interview_letters", "interview_type3")


class Option(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    code: str  # the MentalKG disorder code of the option


class LabelledAnswer(BaseModel):
    """One labelled final answer."""

    model_config = ConfigDict(extra="forbid")

    id: str
    writer: str
    situation: Situation
    options: list[Option] = []  # lettered situations: A, B, C, D in order
    kind: Literal["committed", "hedged", "none"]
    answer: list[str]
    reply: str

    @model_validator(mode="after")
    def _consistent(self) -> LabelledAnswer:
        if self.kind != "committed" and self.answer:
            raise ValueError("answer: give it only for a committed reply")
        if self.kind == "committed" and not self.answer:
            raise ValueError("answer: a committed reply needs its answer")
        if self.situation in LETTERED:
            if len(self.options) < 2:
                raise ValueError("options: a lettered situation needs its options")
            letters = "ABCDEFGH"[: len(self.options)]
            bad = [a for a in self.answer if a not in letters]
            if bad:
                raise ValueError(f"answer: {bad[0]!r} is not an option letter")
        return self


def read_answers(path: Path | str) -> list[LabelledAnswer]:
    """The items of one file; a SelfdxError names the file, line and field that is wrong."""
    return [item for _, item in labelled_lines(path, LabelledAnswer)]


def disorder_names() -> dict[str, str]:
    """The 23 MentalKG disorders, code -> name (what a free-text answer is read against)."""
    return json.loads(NAMES_FILE.read_text(encoding="utf-8"))


def load_answers(
    parts: tuple[str, ...] = PARTS, path: Path | str | None = None
) -> list[LabelledAnswer]:
    """The bundled parts' items, or those of the file at `path` when one is given."""
    names = set(disorder_names().values())
    files = [path] if path is not None else [PART_FILES[part] for part in parts]
    items = [item for file in files for item in read_answers(file)]
    for item in items:
        if item.situation == "interview_free_text" and item.kind == "committed":
            if item.answer[0] not in names:
                raise SelfdxError(
                    f"{item.id}: field answer: {item.answer[0]!r} is not a MentalKG disorder name"
                )
    return items
