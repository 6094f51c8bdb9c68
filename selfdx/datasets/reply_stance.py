"""Labelled patient replies for measuring the reply reader (`selfdx.instruments.reply_stance`).

Each item is a doctor's question about one thing of a patient, whether that thing is true,
the patient's style, a reply written by a writer who never saw the reader, and the writer's
label of what the reply says about the thing (`stance`). A separate labeller marked each
question's `polarity`: whether a plain yes means the thing applies (`positive`), does not
(`negative`: "Can you keep yourself safe?") or the question has no yes-or-no answer (`open`).
`demo/README.md` says how the set was written. Its parts: `dev` (the rules were tuned on it),
`heldout` (measured once, on 2026-12-03, and read several times since, so no longer clean) and
`fresh` (written by a writer who never saw the reader or the other parts, measured once on
2026-12-07, then tuned on), `fresh2` and `fresh3` (two more such writers, each measured once);
no rule is tuned on `heldout`, `fresh2` or `fresh3`.

    python -m selfdx.instruments.reply_stance_measure      # the reader's agreement, per part
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from selfdx.datasets.labelled_lines import labelled_lines
from selfdx.datasets.paths import DEMO_DIR

PARTS = ("dev", "heldout", "fresh", "fresh2", "fresh3")
FLIPPED = {"affirms": "denies", "denies": "affirms"}


class LabelledReply(BaseModel):
    """One labelled reply."""

    model_config = ConfigDict(extra="forbid")

    id: str
    question: str
    about: str
    kind: Literal[
        "symptom", "duration", "impairment", "stressor", "requirement", "context", "rule", "risk"
    ]
    true: bool
    style: Literal["plain", "minimising", "vague", "guarded", "over_reporting"]
    truthful: bool
    polarity: Literal["positive", "negative", "open"]
    reply: str
    stance: Literal["affirms", "denies", "unsure", "evades"]
    note: str = ""

    def said_to_question(self) -> str:
        """What the reply says to the question as asked: the label, turned round where a yes
        to the question means the thing does not apply."""
        if self.polarity == "negative":
            return FLIPPED.get(self.stance, self.stance)
        return self.stance


__all__ = ["PARTS", "LabelledReply", "read_replies"]


def read_replies(part: str) -> list[LabelledReply]:
    """The items of one part; a bad line is one error naming the file, line and field."""
    path = DEMO_DIR / f"reply_stance_{part}.jsonl"
    return [item for _, item in labelled_lines(path, LabelledReply)]
