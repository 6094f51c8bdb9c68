"""MentalBench per-item scores and metrics on hand-made cases (expected values worked by hand)."""

from __future__ import annotations

import math

import pytest
from inspect_ai.scorer import SampleScore, Score, stderr

from selfdx.scorers.key_means import key_means
from selfdx.scorers.mentalbench.metrics import (
    letter_overlap,
    mentalbench_metrics,
    ratio_with_stderr,
)
from selfdx.scorers.mentalbench.scorer import error_category, score_values


def fs(letters: str | None) -> frozenset[str] | None:
    return None if letters is None else frozenset(letters)


@pytest.mark.parametrize(
    ("predicted", "gold", "category"),
    [
        ("A", "A", "correct"),
        ("AB", "AB", "correct"),
        ("AB", "A", "over_diagnosis"),
        ("ABC", "AB", "over_diagnosis"),
        ("A", "AB", "under_diagnosis"),
        ("C", "AB", "incorrect"),
        ("AC", "AB", "incorrect"),  # covers one gold letter and adds a wrong one
        ("", "A", "incorrect"),  # "none of the options"
        (None, "A", "unparsed"),
        (None, "AB", "unparsed"),
    ],
)
def test_error_category(predicted, gold, category):
    assert error_category(fs(predicted), fs(gold)) == category


def test_score_values_of_an_under_diagnosed_type3_item():
    values = score_values(fs("A"), fs("AB"), 3)
    nan_keys = {key for key, value in values.items() if math.isnan(value)}
    assert nan_keys == {"type1", "type2", "type4"}
    assert {k: v for k, v in values.items() if k not in nan_keys} == {
        "accuracy": 0.0,
        "type3": 0.0,
        "over_diagnosis": 0.0,
        "under_diagnosis": 1.0,
        "incorrect": 0.0,
        "unparsed": 0.0,
        "letters_hit": 1.0,
        "letters_predicted": 1.0,
        "letters_gold": 2.0,
    }


def test_score_values_of_a_correct_and_an_unparsed_item():
    correct = score_values(fs("C"), fs("C"), 1)
    assert correct["accuracy"] == correct["type1"] == 1.0
    assert [correct[k] for k in ("over_diagnosis", "under_diagnosis", "incorrect", "unparsed")] == [
        0.0
    ] * 4
    missing = score_values(None, fs("C"), 4)
    assert missing["type4"] == 0.0 and missing["unparsed"] == 1.0
    assert (missing["letters_hit"], missing["letters_predicted"], missing["letters_gold"]) == (
        0.0,
        0.0,
        1.0,
    )


def test_ratio_with_stderr_by_hand():
    # ratio = (1 + 0 + 2 + 1) / (1 + 1 + 2 + 2) = 2/3; residuals num - 2/3 den:
    # 1/3, -2/3, 2/3, -1/3; cluster sums x: -1/3, y: 2/3, z: -1/3; squares sum to 6/9;
    # times C/(C-1) = 3/2 gives 1; sqrt(1) / 6 = 1/6
    ratio, error = ratio_with_stderr([1, 0, 2, 1], [1, 1, 2, 2], ["x", "x", "y", "z"])
    assert ratio == pytest.approx(2 / 3)
    assert error == pytest.approx(1 / 6)


def test_ratio_with_stderr_edge_cases():
    assert all(math.isnan(v) for v in ratio_with_stderr([0, 0], [0, 0], ["a", "b"]))
    ratio, error = ratio_with_stderr([1, 0], [1, 1], ["a", "a"])
    assert ratio == 0.5 and math.isnan(error)


def make_score(value: dict[str, float], group: str, sample_id: str) -> SampleScore:
    return SampleScore(
        score=Score(value=value), sample_id=sample_id, sample_metadata={"seed_group": group}
    )


def test_ratio_with_unit_denominators_is_inspects_clustered_stderr():
    values = [1.0, 0.0, 1.0, 1.0, 0.0]
    groups = ["a", "a", "b", "c", "c"]
    scores = [make_score(v, g, str(i)) for i, (v, g) in enumerate(zip(values, groups, strict=True))]  # type: ignore[arg-type]
    _, error = ratio_with_stderr(values, [1.0] * 5, groups)
    assert error == pytest.approx(stderr(cluster="seed_group")(scores))


def test_letter_overlap_by_hand():
    # item   gold  predicted  hits  predicted  gold  seed group
    # i1     A     A          1     1          1     s1
    # i2     AB    A          1     1          2     s1
    # i3     C     CD         1     2          1     s2
    # i4     B     (none)     0     0          1     s3
    rows = [
        (fs("A"), fs("A"), "s1"),
        (fs("A"), fs("AB"), "s1"),
        (fs("CD"), fs("C"), "s2"),
        (None, fs("B"), "s3"),
    ]
    scores = [
        make_score(score_values(predicted, gold, 4), group, f"i{n}")
        for n, (predicted, gold, group) in enumerate(rows, start=1)
    ]
    result = letter_overlap()(scores)
    assert isinstance(result, dict)
    # precision 3/4; residuals hits - 0.75 predicted: .25, .25, -.5, 0 -> clusters .5, -.5, 0
    # -> sqrt(0.5 * 3/2) / 4
    assert result["precision"] == pytest.approx(0.75)
    assert result["precision_stderr"] == pytest.approx(math.sqrt(0.75) / 4)
    # recall 3/5; residuals hits - 0.6 gold: .4, -.2, .4, -.6 -> clusters .2, .4, -.6
    # -> sqrt((.04 + .16 + .36) * 3/2) / 5
    assert result["recall"] == pytest.approx(0.6)
    assert result["recall_stderr"] == pytest.approx(math.sqrt(0.84) / 5)
    # F1 = 2*3 / (4 + 5) = 2/3 (= 2PR/(P+R)); residuals 2 hits - 2/3 (predicted + gold):
    # 2/3, 0, 0, -2/3 -> clusters 2/3, 0, -2/3 -> sqrt(8/9 * 3/2) / 9
    assert result["f1"] == pytest.approx(2 / 3)
    assert result["f1"] == pytest.approx(2 * 0.75 * 0.6 / (0.75 + 0.6))
    assert result["f1_stderr"] == pytest.approx(math.sqrt(4 / 3) / 9)


def test_key_means_by_hand():
    rows = [  # (accuracy, type1, seed group)
        (1.0, 1.0, "g1"),
        (0.0, 0.0, "g2"),
        (1.0, 1.0, "g2"),
        (1.0, math.nan, "g3"),  # not a Type 1 item: left out of type1
    ]
    scores = [
        SampleScore(
            score=Score(value={"accuracy": a, "type1": t, "excluded": 1.0 - a}),
            sample_id=str(n),
            sample_metadata={"seed_group": g},
        )
        for n, (a, t, g) in enumerate(rows)
    ]
    result = key_means(["accuracy", "type1", "type9"], counts=("excluded",))(scores)
    assert isinstance(result, dict)
    # type9 is in no score: left out; excluded is counted
    assert list(result) == [
        "accuracy",
        "accuracy_stderr",
        "type1",
        "type1_stderr",
        "excluded_count",
    ]
    assert result["accuracy"] == 0.75 and result["type1"] == pytest.approx(2 / 3)
    # unclustered: sample sd / sqrt(n); accuracy: sd of (1, 0, 1, 1) = 0.5 -> 0.5 / 2
    assert result["accuracy_stderr"] == pytest.approx(0.25)
    # type1 over (1, 0, 1): sd = sqrt(1/3) -> sqrt(1/3) / sqrt(3) = 1/3
    assert result["type1_stderr"] == pytest.approx(1 / 3)
    assert result["excluded_count"] == 1.0
    clustered = key_means(["accuracy"], cluster="seed_group")(scores)
    # residuals per group: g1 0.25, g2 -0.75 + 0.25 = -0.5, g3 0.25
    # -> sqrt(3/2 * (1/16 + 1/4 + 1/16)) / 4
    assert clustered["accuracy_stderr"] == pytest.approx(math.sqrt(1.5 * 0.375) / 4)
    bad = scores[:1] + [SampleScore(score=Score(value={"type1": 1.0}), sample_id="x")]
    with pytest.raises(ValueError, match="sample 'x' has no key 'accuracy'"):
        key_means(["accuracy"])(bad)


def test_letter_overlap_with_nothing_predicted():
    scores = [make_score(score_values(None, fs("A"), 1), "s1", "i1")]
    result = letter_overlap()(scores)
    assert isinstance(result, dict)
    assert math.isnan(result["precision"]) and result["recall"] == 0.0


def test_metric_layout_follows_the_types_run():
    means, overlap = mentalbench_metrics([3, 1])
    scores = [
        make_score(score_values(fs("A"), fs("A"), 1), "s1", "g1"),
        make_score(score_values(fs("B"), fs("AB"), 3), "s2", "g2"),
    ]
    assert list(means(scores)) == [
        "accuracy",
        "accuracy_stderr",
        "accuracy_ci_lower",  # the headline's 95% interval (tests/test_log_intervals.py)
        "accuracy_ci_upper",
    ] + [
        f"{key}{suffix}"
        for key in (
            "type1",
            "type3",
            "over_diagnosis",
            "under_diagnosis",
            "incorrect",
            "unparsed",
        )
        for suffix in ("", "_stderr")
    ]
    assert set(overlap(scores)) == {
        f"{k}{s}" for k in ("precision", "recall", "f1") for s in ("", "_stderr")
    }
