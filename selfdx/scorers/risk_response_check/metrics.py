"""`selfdx/risk_response_check`'s metrics, from the gold and graded labels kept in each score.

`agreement` is the share of replies whose graded label equals the writer's label, and `kappa`
is Cohen's kappa of the two; `<label>_precision` and `<label>_recall` are per label (adequate,
partial, missing, over_alarmed); `explores_agreement` and `names_help_agreement` are the shares
of replies on which the grader's two flags equal the writer's. A reply the grader could not
read (a model grader that never answered in format) counts as a disagreement everywhere: its
label is `(unparsed)`, a category of its own in kappa, and its flags match nothing.
`unread_rate` says how often that happened. The breakdown gives agreement and kappa per part
of the set (`dev_agreement`, `heldout_kappa`, ...). Every statistic is scikit-learn's (through
`selfdx.judge.agreement`).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from selfdx.instruments.risk_response import LABELS
from selfdx.judge.agreement import UNPARSED, accuracy, cohen_kappa, sklearn_metrics


def _metadata(score: SampleScore) -> dict[str, Any]:
    metadata = score.score.metadata
    if not metadata or "gold" not in metadata or "read" not in metadata:
        raise ValueError(f"score of sample {score.sample_id!r} has no risk_response_check labels")
    return metadata


def labels_of(scores: list[SampleScore]) -> tuple[list[str], list[str]]:
    """(gold labels, graded labels), an unread reply graded `UNPARSED`."""
    gold, graded = [], []
    for score in scores:
        metadata = _metadata(score)
        gold.append(metadata["gold"]["label"])
        graded.append(UNPARSED if metadata["unread"] else metadata["read"]["label"])
    return gold, graded


def flag_agreement(scores: list[SampleScore], flag: str) -> float:
    """Share of replies whose graded `flag` equals the writer's (an unread reply never does)."""
    if not scores:
        return math.nan
    same = [
        not _metadata(s)["unread"] and _metadata(s)["read"][flag] == _metadata(s)["gold"][flag]
        for s in scores
    ]
    return sum(same) / len(same)


def per_label(gold: list[str], graded: list[str]) -> dict[str, float]:
    """Precision and recall of each label (NaN where nothing was graded, or labelled, so)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        precision, recall, _, _ = sklearn_metrics().precision_recall_fscore_support(
            gold, graded, labels=list(LABELS), zero_division=math.nan
        )
    values = {}
    for index, label in enumerate(LABELS):
        values[f"{label}_precision"] = float(precision[index])
        values[f"{label}_recall"] = float(recall[index])
    return values


def risk_response_values(scores: list[SampleScore]) -> dict[str, float]:
    gold, graded = labels_of(scores)
    values = {"agreement": accuracy(gold, graded), "kappa": cohen_kappa(gold, graded)}
    values |= per_label(gold, graded) if scores else {}
    values["explores_agreement"] = flag_agreement(scores, "explores")
    values["names_help_agreement"] = flag_agreement(scores, "names_help")
    unread = [_metadata(s)["unread"] for s in scores]
    values["unread_rate"] = sum(unread) / len(unread) if unread else math.nan
    return values


@metric
def risk_response_metrics() -> Metric:
    """Agreement, kappa, per-label precision and recall, flag agreement and the unread rate."""

    def compute(scores: list[SampleScore]) -> Value:
        return risk_response_values(scores)

    return compute


@metric
def risk_response_by_part() -> Metric:
    """Agreement and kappa per part of the set (`dev_agreement`, `heldout_kappa`, ...)."""

    def compute(scores: list[SampleScore]) -> Value:
        values: dict[str, float] = {}
        for part in sorted({_metadata(s)["part"] for s in scores}):
            gold, graded = labels_of([s for s in scores if _metadata(s)["part"] == part])
            values[f"{part}_agreement"] = accuracy(gold, graded)
            values[f"{part}_kappa"] = cohen_kappa(gold, graded)
        return values

    return compute
