"""The reply reader's agreement with the labelled replies (`selfdx.datasets.reply_stance`):
over the yes-or-no questions that ask whether the thing applies (what the patient check asks),
and over every question.

    python -m selfdx.instruments.reply_stance_measure                  # every part
    python -m selfdx.instruments.reply_stance_measure --part dev --errors   # and its misreadings

A model reader is measured on the same replies by `selfdx.scorers.patient_check.reader_agreement`.
"""

from __future__ import annotations

import argparse
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


def main(argv: list[str] | None = None) -> None:
    """Print the agreement on each part asked for, and with `--errors` every reply read
    differently from its label (only for the part tuned on: reading a held-out part's errors
    spends it)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=[*PARTS, "all"], default="all")
    parser.add_argument("--errors", action="store_true", help="list the misread replies")
    args = parser.parse_args(argv)
    for part in PARTS if args.part == "all" else (args.part,):
        items = read_replies(part)
        for scope, only in (("yes-or-no questions", True), ("every question", False)):
            found = agreement(items, only)
            print(f"{part}, {scope}: {found.rate:.3f} ({found.agreed} of {found.items})")
        if args.errors:
            for item in items:
                wanted, read = item.said_to_question(), stance(item.reply)
                if read != wanted:
                    print(f"  {item.id} ({item.polarity}) {wanted}, read {read}: {item.reply}")


if __name__ == "__main__":
    main()
