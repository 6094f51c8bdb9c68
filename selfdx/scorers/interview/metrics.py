"""Metrics of `selfdx/interview`: NaN-skipping means with standard errors clustered by seed.

Score values are dicts; `interview_means` reports every key's mean and standard error in one
results entry, a line each (legible at 80 columns). A value is NaN where it does not apply
(criteria-call accuracy of a case without an answer, everything but `excluded` and the leaks
for an excluded case); those are skipped, not counted as zero. The stderr is cluster-robust
over `seed_group` (the variants of one seed profile are not independent), the same estimator
as `selfdx/mentalbench` (`ratio_with_stderr` with unit denominators).
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from selfdx.scorers.mentalbench.metrics import CLUSTER_KEY, ratio_with_stderr

# Score keys in display order: (key, description). The first few are the headline.
KEYS: tuple[tuple[str, str], ...] = (
    ("accuracy", "diagnosis equals the key (declines and no answer count as wrong)"),
    ("criteria_call", "CRITERIA MET statement agrees with the rule check on the full profile"),
    ("questions", "questions asked"),
    ("fact_recall", "share of the profile's facts elicited by the answer"),
    ("critical_recall", "share of the facts the key's criteria need, elicited by the answer"),
    ("premature", "criteria claimed met while the elicited facts do not meet them"),
    ("no_answer", "no answer or decline within the budget"),
    ("declined", "declined to diagnose"),
    ("patient_leaks", "patient leak events (diagnosis named, fact not in the profile)"),
    ("excluded", "case excluded (the patient failed)"),
)
SCORE_KEYS: tuple[str, ...] = tuple(key for key, _ in KEYS)


def mean_and_stderr(scores: list[SampleScore], key: str) -> tuple[float, float]:
    """Mean of one key over the samples it applies to, and its seed-clustered stderr."""
    values, clusters = [], []
    for score in scores:
        value = score.score.value
        if not isinstance(value, dict) or key not in value:
            raise ValueError(f"score of sample {score.sample_id!r} has no key {key!r}")
        number = float(value[key])  # type: ignore[arg-type]
        if not math.isnan(number):
            values.append(number)
            clusters.append((score.sample_metadata or {}).get(CLUSTER_KEY, score.sample_id))
    if not values:
        return math.nan, math.nan
    return ratio_with_stderr(values, [1.0] * len(values), clusters)


@metric
def interview_means() -> Metric:
    """`<key>` and `<key>_stderr` for every score key, in one results entry (a line each)."""

    def compute(scores: list[SampleScore]) -> Value:
        result: dict[str, float] = {}
        for key in SCORE_KEYS:
            result[key], result[f"{key}_stderr"] = mean_and_stderr(scores, key)
        return result

    return compute


def interview_metrics() -> list[Metric]:
    return [interview_means()]
