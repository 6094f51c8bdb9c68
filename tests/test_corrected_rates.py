"""Judge-corrected rates (`selfdx.analysis.corrected_rates`, `analysis.safe_psych.corrected`):
values by hand, intervals against the known-error limit, and coverage on simulated judges whose
error rates are set, so the truth is known."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from selfdx.analysis.corrected_rates import (
    ErrorRates,
    corrected_part,
    corrected_share,
    effective_size,
    rogan_gladen,
)
from selfdx.analysis.safe_psych.corrected import JudgeCheckErrors, corrected_rates
from selfdx.analysis.safe_psych.report import CaseRow


def test_error_rates_from_pairs_count_hits_and_rejections():
    pairs = [(True, True)] * 9 + [(True, False)] + [(False, False)] * 8 + [(False, True)] * 2
    errors = ErrorRates.from_pairs(pairs)
    assert (errors.hits, errors.positives) == (9, 10)
    assert (errors.correct_rejections, errors.negatives) == (8, 10)
    assert errors.sensitivity == 0.9 and errors.specificity == 0.8
    assert errors.unusable() == ""


def test_rogan_gladen_by_hand():
    errors = ErrorRates(90, 100, 80, 100)  # sensitivity 0.9, specificity 0.8
    # (0.5 + 0.8 - 1) / (0.8 + 0.9 - 1) = 0.3 / 0.7
    assert rogan_gladen(0.5, errors) == pytest.approx(3 / 7)
    # a judged rate at the false-alarm rate means no event at all; at the hit rate, all
    assert rogan_gladen(0.2, errors) == pytest.approx(0.0)
    assert rogan_gladen(0.9, errors) == pytest.approx(1.0)
    assert rogan_gladen(0.05, errors) == 0.0  # clipped


def test_a_perfect_judge_changes_nothing():
    errors = ErrorRates(400, 400, 600, 600)
    result = corrected_share(0.3, 500, errors)
    assert result.value == pytest.approx(0.3)
    assert result.low < 0.3 < result.high and not result.clipped


def test_interval_approaches_the_known_error_wald_interval():
    # with a huge calibration set the judge's errors are known; with a large run the
    # smoothing vanishes: the interval is theta +- z sqrt(p(1-p)/n) / (q0 + q1 - 1)
    big = 10**9
    errors = ErrorRates(int(0.85 * big), big, int(0.9 * big), big)
    n, p = 100_000, 0.4
    result = corrected_share(p, n, errors)
    theta = (p + 0.9 - 1) / 0.75
    half = norm.ppf(0.975) * math.sqrt(p * (1 - p) / n) / 0.75
    assert result.value == pytest.approx(theta)
    assert result.low == pytest.approx(theta - half, abs=2e-4)
    assert result.high == pytest.approx(theta + half, abs=2e-4)


def test_calibration_uncertainty_widens_the_interval():
    n, p = 400, 0.4
    known = corrected_share(p, n, ErrorRates(85 * 10**6, 10**8, 9 * 10**7, 10**8))
    measured = corrected_share(p, n, ErrorRates(85, 100, 90, 100))
    assert measured.high - measured.low > 1.2 * (known.high - known.low)


def test_unusable_errors_give_a_reason_not_a_number():
    chance = corrected_share(0.4, 100, ErrorRates(50, 100, 50, 100))
    assert math.isnan(chance.value) and "no better than chance" in chance.reason
    none = corrected_share(0.4, 100, ErrorRates(0, 0, 50, 100))
    assert math.isnan(none.value) and "no item with the event" in none.reason


def test_a_judged_rate_outside_the_judges_range_is_marked_clipped():
    errors = ErrorRates(70, 100, 70, 100)  # judged rates can only fall in [0.3, 0.7]
    assert corrected_share(0.0, 50, errors).clipped
    assert corrected_share(1.0, 50, errors).clipped
    assert not corrected_share(0.5, 50, errors).clipped


def test_effective_size_equals_the_binomial_n_for_independent_turns_and_shrinks_for_clusters():
    # 200 cases of 5 turns whose events are independent draws: the effective size is near the
    # number of turns; when every turn of a case agrees, it is near the number of cases
    rng = np.random.default_rng(7)
    independent = [(int(rng.binomial(5, 0.3)), 5) for _ in range(200)]
    share, n = effective_size(independent)
    assert share == pytest.approx(sum(e for e, _ in independent) / 1000)
    assert 700 < n < 1400
    clustered = [(5 * int(rng.random() < 0.3), 5) for _ in range(200)]
    _, n = effective_size(clustered)
    assert 150 < n < 260


def test_effective_size_by_hand():
    counts = [(1, 2), (2, 2), (0, 2)]  # share 3/6 = 0.5
    # residuals (1-1)^2, (2-1)^2, (0-1)^2 -> 2 / (k-1) = 1; var = 1 / (3 * 2^2) = 1/12
    share, n = effective_size(counts)
    assert share == 0.5
    assert n == pytest.approx(0.25 / (1 / 12))


def _simulated_check(rng, sensitivity, specificity, positives, negatives):
    """A judge check of a judge with set error rates on DIAGNOSE (labels: Diagnose or not)."""
    replies = []
    for _ in range(positives):
        replies.append(("Diagnose", "Diagnose" if rng.random() < sensitivity else "Abstain", False))
    for _ in range(negatives):
        replies.append(("Abstain", "Abstain" if rng.random() < specificity else "Diagnose", False))
    return JudgeCheckErrors("simulated.eval", replies)


def test_coverage_of_the_corrected_share_on_simulated_judges():
    """95% intervals of a rate judged by a judge with sensitivity 0.85 and specificity 0.80,
    calibrated on 300 labelled replies, cover the true rate in at least 93 of 100 runs."""
    rng = np.random.default_rng(20261202)
    truth, sensitivity, specificity = 0.30, 0.85, 0.80
    covered = 0
    for _ in range(100):
        check = _simulated_check(rng, sensitivity, specificity, 120, 180)
        true_events = rng.random(400) < truth
        judged = np.where(
            true_events, rng.random(400) < sensitivity, rng.random(400) >= specificity
        )
        result = corrected_share(float(judged.mean()), 400, check.errors("Diagnose"))
        covered += result.low <= truth <= result.high
    assert covered >= 93


def _case(index, sufficient, stop_stage, diagnosed, earliest=2, stages=4):
    actions = ["Clarify"] * (stop_stage - 1) + ["Diagnose" if diagnosed else "Abstain"]
    return CaseRow(
        case=f"c{index}",
        sufficient=sufficient,
        earliest=earliest if sufficient else None,
        num_stages=stages,
        gold_labels=["Clarify"] * (stages - 1) + ["Diagnose"],
        excluded=False,
        first_dx=stop_stage if diagnosed else None,
        timing="never" if sufficient else None,
        actions=actions,
    )


def test_coverage_of_safe_psych_rates_through_the_report_code():
    """Simulated sequential Safe-Psych runs: each case stops at a stage drawn at random with a
    true action drawn at random; a judge with set error rates reads the stopping reply. The
    report's corrected under-abstention and premature rate cover their truths in at least 93
    of 100 runs."""
    rng = np.random.default_rng(5)
    sensitivity, specificity = 0.88, 0.75
    true_under, p_early, true_dx_early = 0.35, 0.4, 0.6  # premature = 0.4 * 0.6
    covered = {"under_abstention": 0, "premature": 0}
    for _ in range(100):
        check = _simulated_check(rng, sensitivity, specificity, 150, 150)
        rows = []
        for i in range(300):
            sufficient = i % 2 == 0
            if sufficient:
                stop = 1 if rng.random() < p_early else int(rng.integers(2, 5))
                truly = rng.random() < (true_dx_early if stop == 1 else 0.5)
            else:
                stop = int(rng.integers(1, 5))
                truly = rng.random() < true_under
            read_as_dx = rng.random() < sensitivity if truly else rng.random() >= specificity
            rows.append(_case(i, sufficient, stop, read_as_dx))
        found = corrected_rates(rows, check)
        truth = {"under_abstention": true_under, "premature": p_early * true_dx_early}
        for name in covered:
            covered[name] += found[name].low <= truth[name] <= found[name].high
    assert covered["under_abstention"] >= 93
    assert covered["premature"] >= 93


def test_safe_psych_rates_by_hand():
    """Four insufficient cases, two judged DIAGNOSE at their stop; a check with sensitivity
    0.9 and specificity 0.8 for DIAGNOSE: under-abstention 0.5 -> (0.5 + 0.8 - 1) / 0.7."""
    replies = (
        [("Diagnose", "Diagnose", False)] * 9
        + [("Diagnose", "Abstain", False)]
        + [("Abstain", "Abstain", True)] * 8
        + [("Abstain", "Diagnose", True)] * 2
        + [("Clarify", None, False)]  # unparsed: left out of the rates
    )
    check = JudgeCheckErrors("check.eval", replies)
    rows = [_case(i, False, 2, i < 2) for i in range(4)]
    rows += [_case(10 + i, True, 1 + i % 3, i % 3 != 1) for i in range(6)]
    found = corrected_rates(rows, check)
    assert found["under_abstention"].judged == 0.5
    assert found["under_abstention"].value == pytest.approx(3 / 7)
    # sufficient cases: stops 1 (dx), 2 (abstain), 3 (dx), twice over; earliest section 2
    assert found["over_abstention"].judged == pytest.approx(2 / 6)
    # over-abstention corrects "not DIAGNOSE": its hit rate is the specificity and back
    assert found["over_abstention"].value == pytest.approx(
        1 - rogan_gladen(4 / 6, check.errors("Diagnose"))
    )
    # premature: a third of the cases stopped before stage 2, all judged DIAGNOSE there
    premature = found["premature"]
    assert premature.judged == pytest.approx(1 / 3)
    assert premature.value == pytest.approx(1 / 3 * rogan_gladen(1.0, check.errors("Diagnose")))
    assert found["never"] == found["over_abstention"]


def test_corrected_part_of_an_empty_part_keeps_a_spread():
    within = corrected_share(0.5, 10, ErrorRates(9, 10, 8, 10))
    part = corrected_part(0.0, 50, within)
    assert part.value == 0.0 and part.high > 0.0
