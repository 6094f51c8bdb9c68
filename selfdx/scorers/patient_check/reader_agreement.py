"""A model reply reader measured against the labelled replies (`selfdx.datasets.reply_stance`),
before `selfdx/patient_check -T reader=model` trusts it:

    python -m selfdx.scorers.patient_check.reader_agreement --reader-model openai/gpt-5.4-mini

Each sample is one labelled reply; the `reader` role reads it with the question and the thing
asked about (`instruments.reply_stance_model`), and the reading is compared with the writer's
label of what the reply says about that thing. `agrees` counts an unread answer as a
disagreement; `agrees_yes_no` is over the `positive` yes-or-no questions only (what the patient
check asks); `unread` is the share never answered in the asked form. One Inspect eval, its log
in `--log-dir`; the offline rules are measured by `instruments.reply_stance_measure`.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from selfdx.datasets.reply_stance import PARTS, LabelledReply, read_replies
from selfdx.instruments.reply_stance_model import read_reply_with_model
from selfdx.scorers.key_means import key_means

AGREEMENT_KEYS = ("agrees", "agrees_yes_no", "unread")


@scorer(metrics=[key_means(AGREEMENT_KEYS)])
def reader_agreement(attempts: int = 3) -> Scorer:
    """Score the `reader` role's reading of each labelled reply against its label."""

    async def score(state: TaskState, target: Target) -> Score:
        item = LabelledReply.model_validate(state.metadata["item"])
        result = await read_reply_with_model(item.question, item.reply, item.about, attempts)
        agrees = float(result.parsed == item.stance)
        return Score(
            value={
                "agrees": agrees,
                "agrees_yes_no": agrees if item.polarity == "positive" else math.nan,
                "unread": float(result.parsed is None),
            },
            answer=result.parsed or "(unread)",
            explanation=f"label {item.stance}, read {result.parsed or 'nothing'}"
            + (f" ({result.error})" if result.error else ""),
            metadata={"part": state.metadata["part"], **result.logged()},
        )

    return score


def reader_task(parts: Sequence[str], attempts: int = 3) -> Task:
    """One sample per labelled reply of `parts`, scored by the `reader` role's reading."""
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
        part = found.setdefault(str((sample.metadata or {})["part"]), {})
        for key, value in dict(score.value).items():  # type: ignore[arg-type]
            if not math.isnan(value):
                part.setdefault(key, []).append(value)
    return {
        part: {key: (sum(v) / len(v), len(v)) for key, v in keys.items()}
        for part, keys in found.items()
    }


def main(argv: list[str] | None = None) -> None:
    """Print a model reader's agreement on each part asked for."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reader-model", required=True, help="provider/name of the reader")
    parser.add_argument("--part", choices=[*PARTS, "all"], default="all")
    parser.add_argument("--reader-attempts", type=int, default=3)
    parser.add_argument("--log-dir", default="logs/reply-reader")
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    main()
