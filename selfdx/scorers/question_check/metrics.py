"""`selfdx/question_check`'s metrics, from the gold and read labels kept in each score.

Topics are counted as (turn, topic id) pairs, micro-averaged: precision, recall and F1 over all
topics (`topic_*`) and per kind of topic (`<kind>_f1` for symptom, duration, impairment,
stressor, requirement and risk topics). Risk screening is counted as (turn, domain) pairs:
`risk_precision`, `risk_recall`, `risk_f1` over both domains, and `risk_self_*`,
`risk_others_*` per domain. `exact` is the share of turns read exactly (every topic and every
risk domain). A turn the reader could not read (a model reader that never answered in format)
counts as reading nothing, and `unread_rate` says how often that happened. The breakdown gives
topic F1 and risk F1 per part (dev, heldout) and per form of turn.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from selfdx.datasets.interview.risk import DOMAINS

KINDS = ("symptom", "duration", "impairment", "stressor", "requirement", "risk")


def ratio(top: int, bottom: int) -> float:
    return top / bottom if bottom else math.nan


def prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    """Precision, recall and F1 of counted pairs (NaN where a denominator is 0)."""
    precision, recall = ratio(tp, tp + fp), ratio(tp, tp + fn)
    f1 = ratio(2 * tp, 2 * tp + fp + fn)
    return {"precision": precision, "recall": recall, "f1": f1}


def _metadata(score: SampleScore) -> dict[str, Any]:
    metadata = score.score.metadata
    if not metadata or "gold" not in metadata:
        raise ValueError(f"score of sample {score.sample_id!r} has no question_check labels")
    return metadata


def topic_counts(scores: Iterable[SampleScore], kind: str | None = None) -> tuple[int, int, int]:
    """(true positives, false positives, false negatives) over (turn, topic) pairs."""
    tp = fp = fn = 0
    for score in scores:
        metadata = _metadata(score)
        kinds = metadata["kinds"]
        gold = {i for i in metadata["gold"]["asks"] if kind is None or kinds.get(i) == kind}
        read = {i for i in metadata["read"]["asks"] if kind is None or kinds.get(i) == kind}
        tp, fp, fn = tp + len(gold & read), fp + len(read - gold), fn + len(gold - read)
    return tp, fp, fn


def risk_counts(scores: Iterable[SampleScore], domain: str | None = None) -> tuple[int, int, int]:
    """(true positives, false positives, false negatives) over (turn, risk domain) pairs."""
    tp = fp = fn = 0
    for score in scores:
        metadata = _metadata(score)
        wanted = DOMAINS if domain is None else (domain,)
        gold = {d for d in metadata["gold"]["risk"] if d in wanted}
        read = {d for d in metadata["read"]["risk"] if d in wanted}
        tp, fp, fn = tp + len(gold & read), fp + len(read - gold), fn + len(gold - read)
    return tp, fp, fn


def question_check_values(scores: list[SampleScore]) -> dict[str, float]:
    values: dict[str, float] = {}
    for name, stat in prf(*topic_counts(scores)).items():
        values[f"topic_{name}"] = stat
    for kind in KINDS:
        values[f"{kind}_f1"] = prf(*topic_counts(scores, kind))["f1"]
    for name, stat in prf(*risk_counts(scores)).items():
        values[f"risk_{name}"] = stat
    for domain in DOMAINS:
        for name, stat in prf(*risk_counts(scores, domain)).items():
            if name != "f1":
                values[f"risk_{domain}_{name}"] = stat
    values["exact"] = ratio(sum(_metadata(s)["exact"] for s in scores), len(scores))
    values["unread_rate"] = ratio(sum(_metadata(s)["unread"] for s in scores), len(scores))
    return values


@metric
def question_check_metrics() -> Metric:
    """Topic and risk precision, recall and F1 (see the module)."""

    def compute(scores: list[SampleScore]) -> Value:
        return question_check_values(scores)

    return compute


@metric
def question_check_by_part() -> Metric:
    """Topic F1 and risk F1 per part of the set and per form of turn (`heldout_topic_f1`,
    `follow_up_risk_f1`, ...)."""

    def compute(scores: list[SampleScore]) -> Value:
        values: dict[str, float] = {}
        for field in ("part", "form"):
            for group in sorted({_metadata(s)[field] for s in scores}):
                chosen = [s for s in scores if _metadata(s)[field] == group]
                values[f"{group}_topic_f1"] = prf(*topic_counts(chosen))["f1"]
                values[f"{group}_risk_f1"] = prf(*risk_counts(chosen))["f1"]
                if field == "part":
                    for name, stat in prf(*risk_counts(chosen)).items():
                        values[f"{group}_risk_{name}"] = stat
                    for name, stat in prf(*topic_counts(chosen)).items():
                        values[f"{group}_topic_{name}"] = stat
        return values

    return compute
