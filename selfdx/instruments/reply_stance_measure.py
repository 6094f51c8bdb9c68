"""The reply reader's agreement with the labelled replies (`selfdx.datasets.reply_stance`):
over the yes-or-no questions that ask whether the thing applies (what the patient check asks),
and over every question.

    python -m selfdx.instruments.reply_stance_measure                  # every part
    python -m selfdx.instruments.reply_stance_measure --part dev --errors   # and its misreadings
    python -m selfdx.instruments.reply_stance_measure --reader-model openai/gpt-5.4-mini

With `--reader-model` the replies are read by that model in the `reader` role (the patient
check's `-T reader=model`), through one Inspect eval whose log goes to `--log-dir`; its
agreement is with the writers' labels of what each reply says about the thing asked.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample

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


def reader_task(parts: Sequence[str], attempts: int = 3) -> Task:
    """One sample per labelled reply of `parts`, scored by the `reader` role's reading."""
    from selfdx.scorers.patient_check.reader_agreement import reader_agreement

    samples = [
        Sample(
            id=item.id,
            input=item.reply,
            target=item.stance,
            metadata={"item": item.model_dump(), "part": part},
        )
        for part in parts
        for item in read_replies(part)
    ]
    return Task(
        dataset=MemoryDataset(samples, name="reply_stance"),
        solver=[],
        scorer=reader_agreement(attempts),
    )


def model_agreement(
    reader: str, parts: Sequence[str], log_dir: str, attempts: int = 3
) -> dict[str, dict[str, tuple[float, int]]]:
    """Per part, `agrees`, `agrees_yes_no` and `unread` of the model `reader` (mean, count)."""
    log = inspect_eval(
        reader_task(parts, attempts),
        model=reader,
        model_roles={"reader": reader},
        log_dir=log_dir,
        display="none",
    )[0]
    if log.status != "success" or not log.samples:
        raise SystemExit(f"the reader eval did not finish ({log.status}): see {log.location}")
    found: dict[str, dict[str, list[float]]] = {}
    for sample in log.samples:
        score = next(iter((sample.scores or {}).values()))
        part = found.setdefault(str(sample.metadata["part"]), {})
        for key, value in dict(score.value).items():  # type: ignore[arg-type]
            if not math.isnan(value):
                part.setdefault(key, []).append(value)
    return {
        part: {key: (sum(v) / len(v), len(v)) for key, v in keys.items()}
        for part, keys in found.items()
    }


def main(argv: list[str] | None = None) -> None:
    """Print the agreement on each part asked for, and with `--errors` every reply read
    differently from its label (only for the part tuned on: reading a held-out part's errors
    spends it)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=[*PARTS, "all"], default="all")
    parser.add_argument("--errors", action="store_true", help="list the misread replies")
    parser.add_argument("--reader-model", help="read with this model (provider/name) instead")
    parser.add_argument("--reader-attempts", type=int, default=3)
    parser.add_argument("--log-dir", default="logs/reply-reader")
    args = parser.parse_args(argv)
    if args.reader_model:
        parts = PARTS if args.part == "all" else (args.part,)
        measured = model_agreement(args.reader_model, parts, args.log_dir, args.reader_attempts)
        for part in parts:
            row = measured.get(part, {})
            for key, label in (
                ("agrees_yes_no", "yes-or-no questions"),
                ("agrees", "every question"),
                ("unread", "unread"),
            ):
                mean, count = row.get(key, (math.nan, 0))
                print(f"{part}, {label}: {mean:.3f} (of {count})")
        return
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
