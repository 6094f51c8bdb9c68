"""Rates corrected for the error of the instrument that decided them (a judge, a reader).

A rate counted from a judge's labels is biased by the judge's misses and false alarms. Given
the judge's sensitivity q1 and specificity q0 for the event counted, measured on labelled items
(a calibration set), the rate of the event itself is

    theta = (p + q0 - 1) / (q0 + q1 - 1)

(Rogan and Gladen 1978), where p is the judged rate. Its interval here is the plug-in interval of
Lee, Zeng, Jeong, Sohn and Lee, "How to correctly report LLM-as-a-judge evaluations" (arXiv
2511.21140): the run's p and the calibration set's q0 and q1 are smoothed (p with z^2/2
pseudo-successes of z^2 trials, each q with one of two), the centre is shifted by the estimator's
second-order bias, and the standard error carries the variance of all three estimates. The
correction assumes the judge errs on the run's items at the rates it erred on the labelled ones.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from scipy.stats import norm


@dataclass(frozen=True)
class ErrorRates:
    """A judge's hits on one event (a reply is DIAGNOSE, say), counted on labelled items."""

    hits: int  # labelled with the event, and judged so
    positives: int  # labelled with the event (m1)
    correct_rejections: int  # labelled without it, and judged without it
    negatives: int  # labelled without it (m0)

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[bool, bool]]) -> ErrorRates:
        """From (labelled with the event, judged with it) per labelled item."""
        hits = positives = rejections = negatives = 0
        for labelled, judged in pairs:
            if labelled:
                positives += 1
                hits += judged
            else:
                negatives += 1
                rejections += not judged
        return cls(hits, positives, rejections, negatives)

    @property
    def sensitivity(self) -> float:
        return self.hits / self.positives if self.positives else math.nan

    @property
    def specificity(self) -> float:
        return self.correct_rejections / self.negatives if self.negatives else math.nan

    def unusable(self) -> str:
        """Why these counts cannot correct a rate ('' when they can)."""
        if not self.positives or not self.negatives:
            missing = "with" if not self.positives else "without"
            return f"the labelled set has no item {missing} the event"
        if self.sensitivity + self.specificity <= 1:
            return (
                f"the judge is no better than chance on it (sensitivity {self.sensitivity:.2f} "
                f"+ specificity {self.specificity:.2f} <= 1)"
            )
        return ""


@dataclass(frozen=True)
class Corrected:
    """A judged rate beside its corrected value and interval (NaN with a reason when none)."""

    judged: float
    value: float
    low: float
    high: float
    reason: str = ""
    # The judged rate lies outside [1 - q0, q1], the range a judge with the measured error
    # rates can produce: the judge erred less on these items than on the labelled ones (the
    # correction's assumption fails), and the corrected value is clipped to 0 or 1.
    clipped: bool = False


def _clip(x: float) -> float:
    return min(1.0, max(0.0, x))


def rogan_gladen(p: float, errors: ErrorRates) -> float:
    """The corrected rate of the event, clipped to [0, 1]."""
    q0, q1 = errors.specificity, errors.sensitivity
    return _clip((p + q0 - 1) / (q0 + q1 - 1))


def corrected_share(judged: float, n: float, errors: ErrorRates, level: float = 0.95) -> Corrected:
    """Correct a judged share `judged` of `n` items with `errors`, with its interval.

    `n` may be an effective number of items (a share over clustered turns, see
    `effective_size`); it is the binomial n for a share of independent cases.
    """
    if n <= 0 or math.isnan(judged):
        return Corrected(judged, math.nan, math.nan, math.nan, "no items")
    reason = errors.unusable()
    if reason:
        return Corrected(judged, math.nan, math.nan, math.nan, reason)
    z = float(norm.ppf(0.5 + level / 2))
    m0, m1 = errors.negatives, errors.positives
    # smoothed estimates (Agresti-Coull for p; one success in two added trials for each q)
    p = (n * judged + z * z / 2) / (n + z * z)
    q0 = (m0 * errors.specificity + 1) / (m0 + 2)
    q1 = (m1 * errors.sensitivity + 1) / (m1 + 2)
    n_s, m0_s, m1_s = n + z * z, m0 + 2, m1 + 2
    theta = (p + q0 - 1) / (q0 + q1 - 1)
    var_q0, var_q1 = q0 * (1 - q0) / m0_s, q1 * (1 - q1) / m1_s
    shift = 2 * z * z * (theta * var_q1 - (1 - theta) * var_q0)
    spread = p * (1 - p) / n_s + (1 - theta) ** 2 * var_q0 + theta**2 * var_q1
    half = z * math.sqrt(spread) / (q0 + q1 - 1)
    centre = theta + shift
    raw = (judged + errors.specificity - 1) / (errors.specificity + errors.sensitivity - 1)
    return Corrected(
        judged,
        rogan_gladen(judged, errors),
        _clip(centre - half),
        _clip(centre + half),
        clipped=not 0.0 <= raw <= 1.0,
    )


def corrected_part(
    part_share: float, n: float, within: Corrected, level: float = 0.95
) -> Corrected:
    """A share of the form P(part) x P(event | part): the part's share of `n` items, fixed by
    the run (not by the judge), times the corrected share of the event within it. The interval
    is the delta method's, from the part's binomial variance (smoothed as `corrected_share`
    smooths p, so that a part of share 0 or 1 still has a spread) and the within-part interval."""
    judged = part_share * within.judged
    if within.reason or n <= 0:
        return Corrected(judged, math.nan, math.nan, math.nan, within.reason or "no items")
    z = float(norm.ppf(0.5 + level / 2))
    within_se = (within.high - within.low) / (2 * z)
    centre_within = (within.high + within.low) / 2
    smoothed = (n * part_share + z * z / 2) / (n + z * z)
    se = math.sqrt(
        centre_within**2 * smoothed * (1 - smoothed) / (n + z * z) + smoothed**2 * within_se**2
    )
    centre = part_share * centre_within
    return Corrected(
        judged,
        part_share * within.value,
        _clip(centre - z * se),
        _clip(centre + z * se),
        clipped=within.clipped,
    )


def effective_size(counts: list[tuple[int, int]]) -> tuple[float, float]:
    """The pooled share of events over clusters and its effective binomial size.

    `counts` holds (events, items) per cluster (a case's turns). The share is sum(events) /
    sum(items); its variance is the ratio estimator's, from the spread of the clusters, and
    the effective size is the n a binomial share would need for that variance.
    """
    clusters = [(e, t) for e, t in counts if t > 0]
    total = sum(t for _, t in clusters)
    if not clusters or total == 0:
        return math.nan, 0.0
    share = sum(e for e, _ in clusters) / total
    k = len(clusters)
    if k < 2 or share in (0.0, 1.0):
        return share, float(total)
    mean_items = total / k
    residuals = sum((e - share * t) ** 2 for e, t in clusters) / (k - 1)
    variance = residuals / (k * mean_items**2)
    if variance <= 0:
        return share, float(total)
    return share, share * (1 - share) / variance
