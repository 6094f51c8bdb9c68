"""`key_means` and `key_scores` on hand-made scores: the cases bench/mutation.py found untested
(a NaN before other values, a key no case applies to, one or two units, the errors)."""

from __future__ import annotations

import math

import pytest
from inspect_ai.scorer import SampleScore, Score

from selfdx.scorers.key_means import key_means, key_scores

NAN = math.nan


def scores_of(*rows: tuple[str, float, str]) -> list[SampleScore]:
    """(sample id, value of `x`, seed group) -> scores with `{"x": value}`."""
    return [
        SampleScore(score=Score(value={"x": v}), sample_id=i, sample_metadata={"seed_group": g})
        for i, v, g in rows
    ]


def test_key_scores_skip_nan_wherever_it_is_and_keep_each_samples_identity():
    scores = scores_of(("a", NAN, "g1"), ("b", 1.0, "g2"), ("c", NAN, "g2"), ("d", 0.0, "g3"))
    keyed = key_scores(scores, "x")
    assert [(s.sample_id, s.score.value, s.sample_metadata) for s in keyed] == [
        ("b", 1.0, {"seed_group": "g2"}),
        ("d", 0.0, {"seed_group": "g3"}),
    ]


@pytest.mark.parametrize("value", [{"y": 1.0}, 1.0])
def test_key_scores_name_the_sample_without_the_key(value):
    scores = [SampleScore(score=Score(value=value), sample_id="s7")]
    with pytest.raises(ValueError, match="^score of sample 's7' has no key 'x'$"):
        key_scores(scores, "x")


def test_a_nan_first_is_skipped_not_the_end_of_the_key():
    # x over (1, 0) once the NaN is left out: mean 0.5; sd sqrt(0.5) / sqrt(2) = 0.5
    result = key_means(["x"])(scores_of(("a", NAN, "g1"), ("b", 1.0, "g2"), ("c", 0.0, "g3")))
    assert result == {"x": 0.5, "x_stderr": pytest.approx(0.5)}


def test_a_key_no_case_applies_to_is_nan_not_zero():
    result = key_means(["x"])(scores_of(("a", NAN, "g1"), ("b", NAN, "g2")))
    assert math.isnan(result["x"]) and math.isnan(result["x_stderr"])


def test_one_unit_has_no_standard_error_and_two_have_one():
    one = key_means(["x"])(scores_of(("a", 1.0, "g1")))
    assert one["x"] == 1.0 and math.isnan(one["x_stderr"])  # Inspect's stderr would say 0
    # two cases of one seed group, clustered: one unit (unclustered they would be two)
    same_group = scores_of(("a", 1.0, "g1"), ("b", 0.0, "g1"))
    clustered = key_means(["x"], cluster="seed_group")(same_group)
    assert clustered["x"] == 0.5 and math.isnan(clustered["x_stderr"])
    # two units: sd of (1, 0) is sqrt(0.5), over sqrt(2): 0.5
    assert key_means(["x"])(same_group)["x_stderr"] == pytest.approx(0.5)
    two_groups = scores_of(("a", 1.0, "g1"), ("b", 0.0, "g2"))
    # clustered, two clusters of one case: residuals 0.5, -0.5 -> sqrt(2/1 * 0.5) / 2 = 0.5
    assert key_means(["x"], cluster="seed_group")(two_groups)["x_stderr"] == pytest.approx(0.5)
