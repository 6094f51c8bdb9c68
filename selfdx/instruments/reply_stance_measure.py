"""The reply reader's agreement with the labelled replies (`selfdx.datasets.reply_stance`):
over the yes-or-no questions that ask whether the thing applies (what the patient check asks),
and over every question.

    python -m selfdx.instruments.reply_stance_measure
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from selfdx.datasets.reply_stance import PARTS, LabelledReply, read_replies
from selfdx.instruments.reply_stance import stance


@dataclass(frozen=True)
class Agreement:
    """How often the reader reads a reply as its label, and how it errs."""

    items: int
    agreed: int
    errors: Counter  # (label, read) -> count

    @property
    def rate(self) -> float:
        return self.agreed / self.items if self.items else float("nan")


def agreement(items: list[LabelledReply], yes_no_only: bool = True) -> Agreement:
    """The reader against the labels: over the yes-or-no questions that ask whether the thing
    applies (what the patient check asks), or over every item (`yes_no_only=False`, the label
    turned round for a `negative` question and taken as it is for an `open` one)."""
    errors: Counter = Counter()
    agreed = counted = 0
    for item in items:
        if yes_no_only and item.polarity != "positive":
            continue
        wanted, read = item.said_to_question(), stance(item.reply)
        counted += 1
        agreed += read == wanted
        if read != wanted:
            errors[(wanted, read)] += 1
    return Agreement(counted, agreed, errors)


def main() -> None:
    """Print the agreement on each part."""
    for part in PARTS:
        items = read_replies(part)
        for scope, only in (("yes-or-no questions", True), ("every question", False)):
            found = agreement(items, only)
            print(f"{part}, {scope}: {found.rate:.3f} ({found.agreed} of {found.items})")


if __name__ == "__main__":
    main()
