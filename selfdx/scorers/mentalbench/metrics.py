"""MentalBench metrics: micro precision/recall/F1 over option letters, and the metric layout.

Every rate carries a standard error clustered by seed profile (`seed_group`), because the
five variants and three generations of one seed, and the Type 3-4 items built on a Type 2
seed, are not independent.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, Value, metric

from selfdx.scorers.key_means import key_means

CLUSTER_KEY = "seed_group"
ERROR_KEYS: tuple[str, ...] = ("over_diagnosis", "under_diagnosis", "incorrect", "unparsed")


def ratio_with_stderr(
    numerators: Sequence[float], denominators: Sequence[float], clusters: Sequence[object]
) -> tuple[float, float]:
    """A ratio of totals, Σnum / Σden, and its cluster-robust (delta-method) standard error.

    se = sqrt(C / (C - 1) * Σ_c (Σ_{i in c} (num_i - ratio * den_i))²) / Σden, over C clusters;
    with every denominator 1 this is Inspect's clustered `stderr` of a mean. The ratio is NaN
    when Σden is 0; the error is NaN with fewer than two clusters.
    """
    num = np.asarray(numerators, dtype=float)
    den = np.asarray(denominators, dtype=float)
    total = float(den.sum())
    if total == 0:
        return math.nan, math.nan
    ratio = float(num.sum()) / total
    residuals: dict[object, float] = {}
    for cluster, residual in zip(clusters, num - ratio * den, strict=True):
        residuals[cluster] = residuals.get(cluster, 0.0) + float(residual)
    count = len(residuals)
    if count < 2:
        return ratio, math.nan
    spread = sum(value**2 for value in residuals.values())
    return ratio, math.sqrt(spread * count / (count - 1)) / total


LETTER_RATIOS: tuple[str, ...] = ("precision", "recall", "f1")


def letter_ratio_parts(value: Mapping[str, float]) -> dict[str, tuple[float, float]]:
    """One item's share of each letter ratio, as (numerator, denominator).

    With P the letters read from the reply (empty when unparsed) and G the gold letters:
    precision |P∩G| / |P|, recall |P∩G| / |G|, F1 2|P∩G| / (|P| + |G|). Summing both parts
    over items gives the micro ratios; the task's metric and `selfdx report` both use this.
    """
    hit, predicted, gold = (
        float(value["letters_hit"]),
        float(value["letters_predicted"]),
        float(value["letters_gold"]),
    )
    return {"precision": (hit, predicted), "recall": (hit, gold), "f1": (2 * hit, predicted + gold)}


@metric
def letter_overlap() -> Metric:
    """Micro precision, recall and F1 over option letters (see `letter_ratio_parts`), each the
    ratio of sums over every item of the run, with a stderr clustered by seed profile."""

    def compute(scores: list[SampleScore]) -> Value:
        values = [score.score.value for score in scores]
        if not all(isinstance(value, dict) for value in values):
            raise ValueError("letter_overlap needs the dict-valued MentalBench scores")
        parts = [letter_ratio_parts(value) for value in values]  # type: ignore[arg-type]
        clusters = [(score.sample_metadata or {}).get(CLUSTER_KEY) for score in scores]
        result: dict[str, float] = {}
        for name in LETTER_RATIOS:
            numerators = [part[name][0] for part in parts]
            denominators = [part[name][1] for part in parts]
            value, error = ratio_with_stderr(numerators, denominators, clusters)
            result[name] = value
            result[f"{name}_stderr"] = error
        return result

    return compute


def mentalbench_metrics(types: Iterable[int] = (1, 2, 3, 4)) -> list[Metric]:
    """The metric layout for a run over `types`: one results entry, a line per number.

    `accuracy` (micro over all items), `type1`..`type4` (only the types run), the error shares
    `over_diagnosis`, `under_diagnosis`, `incorrect`, `unparsed`, each with `<key>_stderr`
    clustered by seed profile, and `accuracy_ci_lower` and `accuracy_ci_upper` (a bootstrap
    of seed profiles); then micro `precision`, `recall` and `f1` over letters. The
    per-disorder and per-pair accuracies are in every sample's metadata and in `selfdx report`.
    """
    keys = ["accuracy", *(f"type{t}" for t in sorted(set(types))), *ERROR_KEYS]
    return [key_means(keys, cluster=CLUSTER_KEY, intervals=("accuracy",)), letter_overlap()]
