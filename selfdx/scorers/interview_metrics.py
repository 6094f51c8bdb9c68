"""Metrics of `selfdx/interview`: NaN-skipping means with standard errors clustered by seed.

Score values are dicts; Inspect hands each per-key metric the scalar of its key. A value is
NaN where it does not apply (criteria-call accuracy of a case without an answer, everything but
`excluded` for an excluded case); those are skipped, not counted as zero. The stderr is
cluster-robust over `seed_group` (the variants of one seed profile are not independent), the
same estimator as `selfdx/mentalbench` (`ratio_with_stderr` with unit denominators).
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, metric

from selfdx.scorers.mentalbench_metrics import CLUSTER_KEY, ratio_with_stderr

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


def present(scores: list[SampleScore]) -> tuple[list[float], list[object]]:
    values, clusters = [], []
    for score in scores:
        value = score.score.as_float()
        if not math.isnan(value):
            values.append(value)
            clusters.append((score.sample_metadata or {}).get(CLUSTER_KEY, score.sample_id))
    return values, clusters


@metric
def mean() -> Metric:
    """Mean over the samples where the value applies (NaN skipped)."""

    def compute(scores: list[SampleScore]) -> float:
        values, _ = present(scores)
        return sum(values) / len(values) if values else math.nan

    return compute


@metric
def stderr() -> Metric:
    """Standard error of that mean, clustered by seed profile (NaN below two clusters)."""

    def compute(scores: list[SampleScore]) -> float:
        values, clusters = present(scores)
        return ratio_with_stderr(values, [1.0] * len(values), clusters)[1]

    return compute


def interview_metrics() -> list[dict[str, list[Metric]]]:
    return [{key: [mean(), stderr()] for key in SCORE_KEYS}]
