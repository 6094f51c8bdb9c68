"""The report's interval functions on data where every argument shows (values by hand, or by the
percentile bootstrap written out with numpy): the cases bench/mutation.py found untested.

The bootstrap checks use continuous values, so that the number of resamples, the level and the
seed each move the percentiles (on a few 0/1 values they often do not).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from selfdx.analysis.statistics import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    bootstrap_interval,
    clip_to_range,
    paired_mode_gap,
    ratio_bootstrap_interval,
    t_interval,
)

NAN = math.nan
VALUES = np.array([0.13, 0.71, 0.42, 0.05, 0.98, 0.33, 0.57])
HITS = np.array([1.0, 0.0, 2.0, 3.0, 1.0, 2.0, 0.5])
ITEMS = np.array([2.0, 1.0, 3.0, 3.0, 2.0, 5.0, 4.0])


def percentile_bootstrap(
    statistic: Callable,
    arrays: tuple[np.ndarray, ...],
    level: float = 0.95,
    seed: int = BOOTSTRAP_SEED,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> tuple[float, float]:
    """`resamples` draws of n unit indices with replacement (numpy's Generator seeded with
    `seed`), the statistic of each, and its (1 - level) / 2 and (1 + level) / 2 percentiles."""
    n = len(arrays[0])
    index = np.random.default_rng(seed).integers(0, n, (resamples, n))
    values = statistic(*(array[index] for array in arrays))
    low, high = np.percentile(values, [50 * (1 - level), 50 * (1 + level)])
    return float(low), float(high)


# the defaults, and other values of every argument
ARGUMENTS = [(0.95, BOOTSTRAP_SEED, BOOTSTRAP_RESAMPLES), (0.8, 7, 500)]


def mean_of(x: np.ndarray) -> np.ndarray:
    return x.mean(axis=1)


def ratio_of(n: np.ndarray, d: np.ndarray) -> np.ndarray:
    totals = d.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, n.sum(axis=1) / totals, np.nan)


@pytest.mark.parametrize(("level", "seed", "resamples"), ARGUMENTS)
def test_bootstrap_interval_follows_level_seed_and_resamples(level, seed, resamples):
    got = bootstrap_interval(VALUES, level, seed, resamples)
    assert got == pytest.approx(percentile_bootstrap(mean_of, (VALUES,), level, seed, resamples))
    # and each argument matters on these values
    assert got != pytest.approx(percentile_bootstrap(mean_of, (VALUES,), 0.9, seed, resamples))
    assert got != pytest.approx(percentile_bootstrap(mean_of, (VALUES,), level, seed, 9999))


def test_bootstrap_interval_of_two_cases_and_of_constant_values():
    two = np.array([0.2, 0.7])
    assert bootstrap_interval(two) == pytest.approx(percentile_bootstrap(mean_of, (two,)))
    # constant values: exactly the value (a bootstrap would give 0.1 + rounding)
    assert bootstrap_interval(np.array([0.1, 0.1, 0.1])) == (0.1, 0.1)


@pytest.mark.parametrize(("level", "seed", "resamples"), ARGUMENTS)
def test_ratio_bootstrap_follows_level_seed_and_resamples(level, seed, resamples):
    got = ratio_bootstrap_interval(HITS, ITEMS, level, seed, resamples)
    expected = percentile_bootstrap(ratio_of, (HITS, ITEMS), level, seed, resamples)
    assert got == pytest.approx(expected)
    assert got != pytest.approx(percentile_bootstrap(ratio_of, (HITS, ITEMS), 0.9, seed, resamples))
    assert got != pytest.approx(percentile_bootstrap(ratio_of, (HITS, ITEMS), level, seed, 9999))


def test_ratio_bootstrap_edges():
    # one case, or no denominator at all: no interval
    assert all(math.isnan(x) for x in ratio_bootstrap_interval(np.array([1.0]), np.array([2.0])))
    zero = ratio_bootstrap_interval(np.array([1.0, 2.0]), np.array([0.0, 0.0]))
    assert all(math.isnan(x) for x in zero)
    # two cases; denominators summing to 1 (small totals are still totals)
    num, den = np.array([0.2, 0.1, 0.4]), np.array([0.5, 0.25, 0.25])
    for n, d in ((num[:2], den[:2]), (num, den)):
        assert ratio_bootstrap_interval(n, d) == pytest.approx(
            percentile_bootstrap(ratio_of, (n, d))
        )
    # a resample of only zero denominators has no ratio (NaN, not infinity)
    n, d = np.array([1.0, 1.0, 1.0]), np.array([0.0, 0.0, 1.0])
    expected = percentile_bootstrap(ratio_of, (n, d))
    assert ratio_bootstrap_interval(n, d) == pytest.approx(expected, nan_ok=True)
    # every case at the same ratio: exactly that ratio (the bootstrap would round differently)
    num, den = np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, 3.0])
    point = float(num.sum() / den.sum())
    assert ratio_bootstrap_interval(num, den) == (point, point)


def test_clip_to_range():
    assert clip_to_range(-0.1, 0.5) == (0.0, 0.5, True)
    assert clip_to_range(0.2, 1.3) == (0.2, 1.0, True)
    assert clip_to_range(0.0, 1.0) == (0.0, 1.0, False)  # at the bounds: not cut
    assert clip_to_range(1.0, 12.0, (0.0, 10.0)) == (1.0, 10.0, True)
    low, high, cut = clip_to_range(NAN, 1.4)
    assert math.isnan(low) and high == 1.4 and cut is False
    low, high, cut = clip_to_range(-0.5, NAN)
    assert low == -0.5 and math.isnan(high) and cut is False


def test_t_interval_edges():
    assert all(math.isnan(x) for x in t_interval([NAN]))
    mean, low, high = t_interval([0.4, NAN])
    assert mean == 0.4 and math.isnan(low) and math.isnan(high)
    # two runs: sd sqrt(0.02) = 0.1414..., t(0.975, 1) = 12.7062047
    mean, low, high = t_interval([0.5, 0.7])
    half = 12.706204736174707 * math.sqrt(0.02) / math.sqrt(2)
    assert (mean, low, high) == pytest.approx((0.6, 0.6 - half, 0.6 + half))
    assert t_interval([0.3, 0.3, 0.3]) == (0.3, 0.3, 0.3)


def gap_rows(with_initial: bool = True) -> list[tuple[str, str, str, float]]:
    """(case, seed profile, mode, correct): three profiles of 1, 2 and 3 cases; case c1 has a
    second epoch in full and a NaN (not applicable) epoch in interview."""
    table = {  # case: (profile, full, interview, initial)
        "a1": ("p1", 1.0, 1.0, 0.0),
        "b1": ("p2", 1.0, 0.0, 0.0),
        "b2": ("p2", 0.0, 0.0, 0.0),
        "c1": ("p3", 1.0, 1.0, 1.0),
        "c2": ("p3", 1.0, 0.0, 0.0),
        "c3": ("p3", 0.0, 1.0, 0.0),
    }
    rows = []
    for case, (profile, full, interview, initial) in table.items():
        rows += [(case, profile, "full", full), (case, profile, "interview", interview)]
        if with_initial:
            rows.append((case, profile, "initial", initial))
    rows += [("c1", "p3", "full", 0.0), ("c1", "p3", "interview", NAN)]
    return rows


def test_paired_mode_gap_by_hand():
    got = paired_mode_gap(gap_rows(), level=0.8, seed=11, resamples=300)
    # per case (epochs averaged; c1 full (1 + 0) / 2): full 1, 1, 0, 0.5, 1, 0 = 3.5 / 6;
    # interview 1, 0, 0, 1, 0, 1 = 3 / 6; initial 0, 0, 0, 1, 0, 0 = 1 / 6
    assert got["cases"] == 6.0
    assert (got["full"], got["interview"], got["initial"]) == pytest.approx((3.5 / 6, 0.5, 1 / 6))
    assert got["gap"] == pytest.approx(0.5 / 6)
    # share: (interview - initial) / (full - initial) = 2 / 2.5
    assert got["share"] == pytest.approx(0.8)
    # profile sums p1, p2, p3: full 1, 1, 1.5; interview 1, 0, 2; initial 0, 0, 1; cases 1, 2, 3
    diff, count = np.array([0.0, 1.0, -0.5]), np.array([1.0, 2.0, 3.0])
    gained, span = np.array([1.0, 0.0, 1.0]), np.array([1.0, 1.0, 0.5])
    gap = percentile_bootstrap(ratio_of, (diff, count), 0.8, 11, 300)
    share = percentile_bootstrap(ratio_of, (gained, span), 0.8, 11, 300)
    assert (got["gap_low"], got["gap_high"]) == pytest.approx(gap)
    assert (got["share_low"], got["share_high"]) == pytest.approx(share)
    default = paired_mode_gap(gap_rows())
    assert (default["gap_low"], default["gap_high"]) == pytest.approx(
        percentile_bootstrap(ratio_of, (diff, count))
    )
    assert (default["gap_low"], default["gap_high"]) != pytest.approx(gap)


def profile_rows() -> tuple[list[tuple[str, str, str, float]], dict[str, np.ndarray]]:
    """Fifteen seed profiles of 1 to 3 cases, some interview answers over two epochs, and per
    profile the sums of full - interview, the case count, interview - initial and
    full - initial."""
    rows, sums = [], {"diff": [], "count": [], "gained": [], "span": []}
    for p in range(15):
        cases = []
        for j in range(1 + p % 3):
            case = f"p{p}c{j}"
            full = 1.0 if j == 0 else float((p + j) % 2)
            # initial only where full is right: full - initial > 0 in every profile, so no
            # resample has a zero span
            initial = 1.0 if j == 1 and full == 1.0 else 0.0
            epochs = [float((p * j + p) % 3 == 0)]
            if (p + j) % 4 == 1:
                epochs.append(1.0 - epochs[0])  # a second epoch: the case's mean is 1/2
            rows += [(case, f"p{p}", "full", full), (case, f"p{p}", "initial", initial)]
            rows += [(case, f"p{p}", "interview", value) for value in epochs]
            cases.append((full, sum(epochs) / len(epochs), initial))
        sums["diff"].append(sum(f - i for f, i, _ in cases))
        sums["count"].append(len(cases))
        sums["gained"].append(sum(i - n for _, i, n in cases))
        sums["span"].append(sum(f - n for f, _, n in cases))
    return rows, {key: np.array(value, dtype=float) for key, value in sums.items()}


@pytest.mark.parametrize(("level", "seed", "resamples"), ARGUMENTS)
def test_paired_mode_gap_intervals_follow_level_seed_and_resamples(level, seed, resamples):
    rows, sums = profile_rows()
    got = paired_mode_gap(rows, level, seed, resamples)
    gap = (sums["diff"], sums["count"])
    share = (sums["gained"], sums["span"])
    assert (got["gap_low"], got["gap_high"]) == pytest.approx(
        percentile_bootstrap(ratio_of, gap, level, seed, resamples)
    )
    assert (got["share_low"], got["share_high"]) == pytest.approx(
        percentile_bootstrap(ratio_of, share, level, seed, resamples)
    )
    # and the seed and the number of resamples each move both intervals on these data
    for other_seed, other_resamples in ((seed + 1, resamples), (seed, 9999)):
        for pair, low, high in ((gap, "gap_low", "gap_high"), (share, "share_low", "share_high")):
            other = percentile_bootstrap(ratio_of, pair, level, other_seed, other_resamples)
            assert (got[low], got[high]) != pytest.approx(other)


def test_paired_mode_gap_without_initial_or_without_anything_to_recover():
    got = paired_mode_gap(gap_rows(with_initial=False))
    assert list(got) == [
        "full", "interview", "initial", "gap", "gap_low", "gap_high", "share", "share_low",
        "share_high", "cases",
    ]  # fmt: skip
    assert got["cases"] == 6.0 and got["gap"] == pytest.approx(0.5 / 6)
    for key in ("initial", "share", "share_low", "share_high"):
        assert math.isnan(got[key]), key
    # full equals initial everywhere (nothing to recover) while the interview differs: no share
    # (span 0 for each profile; gained -1 + 1 - 1)
    flat = [
        (case, case, mode, value)
        for case, (full, interview) in {"x": (1.0, 0.0), "y": (0.0, 1.0), "z": (1.0, 0.0)}.items()
        for mode, value in (("full", full), ("initial", full), ("interview", interview))
    ]
    got = paired_mode_gap(flat)
    assert got["initial"] == got["full"] == pytest.approx(2 / 3)
    assert all(math.isnan(got[key]) for key in ("share", "share_low", "share_high"))
    # a span of exactly 1 still gives a share: x 1 - 0, y 0 - 0
    one = [
        ("x", "x", "full", 1.0), ("x", "x", "initial", 0.0), ("x", "x", "interview", 1.0),
        ("y", "y", "full", 0.0), ("y", "y", "initial", 0.0), ("y", "y", "interview", 1.0),
    ]  # fmt: skip
    assert paired_mode_gap(one)["share"] == pytest.approx(2.0)
    empty = paired_mode_gap([("x", "x", "full", NAN), ("x", "x", "interview", 1.0)])
    assert empty["cases"] == 0.0 and all(math.isnan(v) for k, v in empty.items() if k != "cases")
