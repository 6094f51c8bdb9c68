"""Intervals for per-case rates: case bootstrap (scipy), Student-t over seeds, and the paired
bootstrap of the interview's static-interactive gap."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable

import numpy as np
from scipy import stats

BOOTSTRAP_SEED = 20261129
BOOTSTRAP_RESAMPLES = 2000


def case_means(pairs: Iterable[tuple[object, float]]) -> np.ndarray:
    """Average each case's values over its epochs; cases with no applicable value are dropped.

    `pairs` holds (case id, value) with NaN for not applicable. The case is the cluster: the
    bootstrap then resamples these per-case means.
    """
    totals: dict[object, list[float]] = defaultdict(list)
    for case, value in pairs:
        if value is not None and not math.isnan(value):
            totals[case].append(value)
    return np.array([sum(v) / len(v) for v in totals.values()], dtype=float)


def bootstrap_interval(
    values: np.ndarray,
    level: float = 0.95,
    seed: int = BOOTSTRAP_SEED,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of `values` (one value per case), seeded.

    With fewer than two cases there is no interval (NaN, NaN); constant values give a
    zero-width interval.
    """
    if len(values) < 2:
        return math.nan, math.nan
    if np.all(values == values[0]):
        return float(values[0]), float(values[0])
    result = stats.bootstrap(
        (values,),
        np.mean,
        confidence_level=level,
        n_resamples=resamples,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def ratio_bootstrap_interval(
    numerators: np.ndarray,
    denominators: np.ndarray,
    level: float = 0.95,
    seed: int = BOOTSTRAP_SEED,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> tuple[float, float]:
    """Percentile bootstrap interval of a ratio of totals, sum(num) / sum(den), resampling
    cases (each case's numerator and denominator stay together)."""
    if len(numerators) < 2 or denominators.sum() == 0:
        return math.nan, math.nan

    def ratio(num: np.ndarray, den: np.ndarray, axis: int = -1) -> np.ndarray:
        totals = den.sum(axis=axis)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(totals > 0, num.sum(axis=axis) / totals, np.nan)

    point = float(numerators.sum() / denominators.sum())
    if np.allclose(numerators, point * denominators):
        return point, point
    result = stats.bootstrap(
        (numerators, denominators),
        ratio,
        paired=True,
        vectorized=True,
        confidence_level=level,
        n_resamples=resamples,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


RATE_RANGE = (0.0, 1.0)


def clip_to_range(
    low: float, high: float, bounds: tuple[float, float] = RATE_RANGE
) -> tuple[float, float, bool]:
    """An interval cut to the metric's range, and whether it had to be cut."""
    if math.isnan(low) or math.isnan(high):
        return low, high, False
    clipped = low < bounds[0] or high > bounds[1]
    return max(low, bounds[0]), min(high, bounds[1]), clipped


def t_interval(run_values: list[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean over runs (seeds) with a Student-t interval: mean +- t(n-1) * sd / sqrt(n).

    The t interval knows nothing of a rate's range; `clip_to_range` cuts it to [0, 1].
    """
    values = np.array([v for v in run_values if not math.isnan(v)], dtype=float)
    if len(values) == 0:
        return math.nan, math.nan, math.nan
    mean = float(values.mean())
    if len(values) < 2:
        return mean, math.nan, math.nan
    sem = float(values.std(ddof=1) / math.sqrt(len(values)))
    if sem == 0:
        return mean, mean, mean
    low, high = stats.t.interval(level, len(values) - 1, loc=mean, scale=sem)
    return mean, float(low), float(high)


def paired_mode_gap(
    rows: Iterable[tuple[object, object, str, float]],
    level: float = 0.95,
    seed: int = BOOTSTRAP_SEED,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> dict[str, float]:
    """The static-interactive gap over the cases run in every mode, with paired intervals.

    `rows` holds (case, seed profile, mode, correct) for the modes `full`, `interview` and
    `initial` (epochs averaged per case). Over the cases present in `full` and `interview` (and
    `initial`, when it was run): the accuracies, `gap` (full - interview) and `share` (the part
    of full - initial that the interview recovers, (interview - initial) / (full - initial)),
    each with a percentile bootstrap interval that resamples seed profiles, keeping each
    profile's cases and modes together (a paired bootstrap). `cases` counts the paired cases.
    """
    values: dict[tuple[object, str], list[float]] = defaultdict(list)
    cluster_of: dict[object, object] = {}
    for case, cluster, mode, correct in rows:
        if correct is not None and not math.isnan(correct):
            values[(case, mode)].append(correct)
            cluster_of[case] = cluster
    modes = ["full", "interview"] + (["initial"] if any(m == "initial" for _, m in values) else [])
    cases = [c for c in cluster_of if all((c, m) in values for m in modes)]
    out = dict.fromkeys(
        ("full", "interview", "initial", "gap", "gap_low", "gap_high", "share", "share_low",
         "share_high"),
        math.nan,
    )  # fmt: skip
    out["cases"] = float(len(cases))
    if not cases:
        return out
    sums: dict[object, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for case in cases:
        for mode in modes:
            sums[cluster_of[case]][mode] += float(np.mean(values[(case, mode)]))
        sums[cluster_of[case]]["n"] += 1
    table = list(sums.values())
    count = np.array([t["n"] for t in table])
    per_mode = {m: np.array([t[m] for t in table]) for m in modes}
    for mode in modes:
        out[mode] = float(per_mode[mode].sum() / count.sum())
    out["gap"] = out["full"] - out["interview"]
    out["gap_low"], out["gap_high"] = ratio_bootstrap_interval(
        per_mode["full"] - per_mode["interview"], count, level, seed, resamples
    )
    if "initial" in per_mode:
        span = per_mode["full"] - per_mode["initial"]
        if span.sum() > 0:
            gained = per_mode["interview"] - per_mode["initial"]
            out["share"] = float(gained.sum() / span.sum())
            out["share_low"], out["share_high"] = ratio_bootstrap_interval(
                gained, span, level, seed, resamples
            )
    return out
