"""MentalBench metric formulas: the cases that bench/mutation.py found untested (values by hand)."""

from __future__ import annotations

import math

import pytest
from inspect_ai.scorer import SampleScore, Score

from selfdx.scorers.mentalbench.metrics import (
    letter_overlap,
    mentalbench_metrics,
    ratio_with_stderr,
)
from selfdx.scorers.mentalbench.scorer import error_category


def scored(value: dict[str, float], group: str, sample_id: str) -> SampleScore:
    return SampleScore(
        score=Score(value=value), sample_id=sample_id, sample_metadata={"seed_group": group}
    )


def test_ratio_with_two_clusters_has_a_standard_error():
    # ratio 2/3; residuals 1/3, -2/3, 1/3 -> clusters a: -1/3, b: 1/3; squares 2/9;
    # times C/(C-1) = 2 gives 4/9; sqrt = 2/3, over the total 3: 2/9
    ratio, error = ratio_with_stderr([1, 0, 1], [1, 1, 1], ["a", "a", "b"])
    assert ratio == pytest.approx(2 / 3)
    assert error == pytest.approx(2 / 9)


def test_ratio_refuses_lists_of_different_lengths():
    with pytest.raises(ValueError):
        ratio_with_stderr([1, 0, 1], [1, 1, 1], ["a", "b"])


def test_the_layouts_standard_errors_are_clustered_by_seed_profile():
    # two items of one seed profile are one unit: no standard error (unclustered it is 0.5)
    means, _ = mentalbench_metrics([1])
    scores = [scored({"accuracy": 1.0}, "s1", "i1"), scored({"accuracy": 0.0}, "s1", "i2")]
    result = means(scores)
    assert result["accuracy"] == 0.5
    assert math.isnan(result["accuracy_stderr"])


def test_letter_overlap_names_what_it_needs():
    scores = [SampleScore(score=Score(value=1.0), sample_id="i1")]
    with pytest.raises(
        ValueError, match="^letter_overlap needs the dict-valued MentalBench scores$"
    ):
        letter_overlap()(scores)


def test_an_empty_answer_to_an_empty_key_is_incorrect_not_over_diagnosis():
    # the loader refuses an item without a key letter; error_category itself still calls
    # "none" against "none" incorrect (only a non-empty key can be matched)
    assert error_category(frozenset(), frozenset()) == "incorrect"
