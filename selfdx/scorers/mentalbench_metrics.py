"""MentalBench metrics: micro precision/recall/F1 over option letters, and the metric layout.

Every rate carries a standard error clustered by seed profile (`seed_group`), because the
five variants and three generations of one seed, and the Type 3-4 items built on a Type 2
seed, are not independent.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, Value, metric

from selfdx.scorers.key_metrics import key_means

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


@metric
def letter_overlap() -> Metric:
    """Micro precision, recall and F1 over option letters, each with a clustered stderr.

    precision = Σ|P∩G| / Σ|P|, recall = Σ|P∩G| / Σ|G|, F1 = 2Σ|P∩G| / (Σ|P| + Σ|G|) (the
    harmonic mean of the two), summed over every item of the run; an unparsed reply has P = ∅.
    """

    def compute(scores: list[SampleScore]) -> Value:
        values = [score.score.value for score in scores]
        if not all(isinstance(value, dict) for value in values):
            raise ValueError("letter_overlap needs the dict-valued MentalBench scores")
        hits = [float(value["letters_hit"]) for value in values]  # type: ignore[index]
        predicted = [float(value["letters_predicted"]) for value in values]  # type: ignore[index]
        gold = [float(value["letters_gold"]) for value in values]  # type: ignore[index]
        clusters = [(score.sample_metadata or {}).get(CLUSTER_KEY) for score in scores]
        precision = ratio_with_stderr(hits, predicted, clusters)
        recall = ratio_with_stderr(hits, gold, clusters)
        f1 = ratio_with_stderr(
            [2 * h for h in hits], [p + g for p, g in zip(predicted, gold, strict=True)], clusters
        )
        result: dict[str, float] = {}
        for name, (value, error) in (("precision", precision), ("recall", recall), ("f1", f1)):
            result[name] = value
            result[f"{name}_stderr"] = error
        return result

    return compute


def mentalbench_metrics(types: Iterable[int] = (1, 2, 3, 4)) -> list[Metric]:
    """The metric layout for a run over `types`: one results entry, a line per number.

    `accuracy` (micro over all items), `type1`..`type4` (only the types run), the error shares
    `over_diagnosis`, `under_diagnosis`, `incorrect`, `unparsed`, each with `<key>_stderr`
    clustered by seed profile; then micro `precision`, `recall` and `f1` over letters. The
    per-disorder and per-pair accuracies are in every sample's metadata and in `selfdx report`.
    """
    keys = ["accuracy", *(f"type{t}" for t in sorted(set(types))), *ERROR_KEYS]
    return [key_means(keys, cluster=CLUSTER_KEY), letter_overlap()]
