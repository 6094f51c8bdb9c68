"""One results entry for a dict-valued score: the mean and standard error of each named key.

Inspect shows every key of `{key: [mean(), stderr()]}` as its own results entry, four to a
row, which cuts long names at 80 columns (`under_abst…`). `key_means` reports the same
numbers in one entry, a line each, `<key>` and `<key>_stderr`, computed by Inspect's own
`mean` and `stderr` on the values of that key; a sample whose value for the key is NaN (not
applicable) is left out of that key, as Inspect does for per-key metrics. A key with a single
case (or a single cluster) has no standard error: NaN, where Inspect's `stderr` gives 0.

For the keys named in `intervals` (the headline rates), `<key>_ci_lower` and `<key>_ci_upper`
are Inspect's `ci()`: a 95% percentile bootstrap of the mean (2,000 resamples, whole clusters
resampled when the standard error is clustered), the interval `selfdx report` gives a single run.
The resampling is seeded, so the same scores always give the same interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, Score, Value, ci, mean, metric, stderr

INTERVAL_LEVEL = 0.95
INTERVAL_RESAMPLES = 2000
INTERVAL_SEED = 20261129  # the report's bootstrap seed (selfdx.analysis.statistics)
BOUNDS = ("lower", "upper")


def present(scores: list[SampleScore], key: str) -> bool:
    """Whether the scores carry `key` (every one of them must, or none)."""
    have = [isinstance(s.score.value, dict) and key in s.score.value for s in scores]
    if any(have) and not all(have):
        missing = next(s.sample_id for s, has in zip(scores, have, strict=True) if not has)
        raise ValueError(f"score of sample {missing!r} has no key {key!r}")
    return any(have)


def key_scores(scores: list[SampleScore], key: str) -> list[SampleScore]:
    """The scores of one key, as scalar SampleScores, without the NaN (not applicable) ones."""
    keyed = []
    made: dict[float, Score] = {}  # one Score per value (most are 0 or 1): building is slow
    for score in scores:
        value = score.score.value
        if not isinstance(value, dict) or key not in value:
            raise ValueError(f"score of sample {score.sample_id!r} has no key {key!r}")
        number = float(value[key])  # type: ignore[arg-type]
        if math.isnan(number):
            continue
        shared = made.get(number)
        if shared is None:
            shared = made[number] = Score(value=number)
        keyed.append(
            SampleScore(
                score=shared,
                sample_id=score.sample_id,
                sample_metadata=score.sample_metadata,
            )
        )
    return keyed


def units(scores: list[SampleScore], cluster: str | None) -> int:
    """How many independent units the scores are: cases, or clusters of them."""
    if cluster is None:
        return len(scores)
    return len({(s.sample_metadata or {}).get(cluster) for s in scores})


def seeded(compute: Metric, scores: list[SampleScore]) -> Value:
    """`compute(scores)` with numpy's global generator (which Inspect's bootstrap draws from)
    seeded, and put back as it was afterwards."""
    state = np.random.get_state()
    np.random.seed(INTERVAL_SEED)
    try:
        return compute(scores)  # type: ignore[arg-type]
    finally:
        np.random.set_state(state)


@metric
def key_means(
    keys: Sequence[str],
    cluster: str | None = None,
    counts: Sequence[str] = (),
    intervals: Sequence[str] = (),
) -> Metric:
    """`<key>` (mean) and `<key>_stderr` for each key; `<key>_count` (cases at 1) for `counts`;
    `<key>_ci_lower` and `<key>_ci_upper` (Inspect's bootstrap `ci()`) for `intervals`.

    `cluster` names the sample-metadata field by which standard errors (and the bootstrap)
    are clustered. A key no sample applies to is NaN; a key absent from every score (a metric
    the run's strategy does not have) is left out. An interval needs two cases (or clusters).
    """
    unknown = [key for key in intervals if key not in keys]
    if unknown:
        raise ValueError(f"key_means: intervals for keys it does not report: {unknown}")
    take_mean, take_stderr = mean(), stderr(cluster=cluster) if cluster else stderr()
    take_ci = ci(
        level=INTERVAL_LEVEL,
        method="bootstrap",
        num_samples=INTERVAL_RESAMPLES,
        cluster=cluster,
    )

    def compute(scores: list[SampleScore]) -> Value:
        if not scores:  # before any sample is scored (Inspect's live display): every key NaN,
            # so that a headline metric is found from the start
            empty = {name: math.nan for k in keys for name in (k, f"{k}_stderr")}
            return empty | {f"{k}_ci_{end}": math.nan for k in intervals for end in BOUNDS}
        result: dict[str, float] = {}
        for key in (k for k in keys if present(scores, k)):
            keyed = key_scores(scores, key)
            result[key] = float(take_mean(keyed)) if keyed else math.nan  # type: ignore[arg-type]
            result[f"{key}_stderr"] = (
                float(take_stderr(keyed))  # type: ignore[arg-type]
                if units(keyed, cluster) >= 2
                else math.nan  # one case (or cluster) has no standard error; Inspect says 0
            )
            if key in intervals:
                result |= interval(keyed, key)
        for key in (k for k in counts if present(scores, k)):
            result[f"{key}_count"] = float(
                sum(1 for s in key_scores(scores, key) if s.score.value == 1.0)
            )
        return result

    def interval(keyed: list[SampleScore], key: str) -> dict[str, float]:
        if units(keyed, cluster) < 2:  # Inspect would give the point: there is no interval
            return {f"{key}_ci_{end}": math.nan for end in BOUNDS}
        bounds = seeded(take_ci, keyed)
        return {f"{key}_ci_{end}": float(bounds[end]) for end in BOUNDS}  # type: ignore[index]

    return compute
